//! Which addresses a fetch may connect to. By default none that is internal to the
//! machine or its network: loopback, link-local (cloud metadata endpoints), private, shared,
//! unique-local and unspecified addresses, as a repository under review must not make a CI
//! runner call its own services. The check is a name resolver, so it applies to the address
//! actually connected to, after DNS, for the first request and for every redirect alike.
//! Not for: proxies (none is used) or TLS.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// Resolves as the default resolver does, then drops the addresses `refuse` names (by default
/// the internal ones; none when private networks are allowed). A name left with no address is
/// refused with an error naming it.
#[derive(Debug)]
pub struct GuardedResolver {
    refuse: fn(IpAddr) -> bool,
    inner: DefaultResolver,
}

impl GuardedResolver {
    pub fn new(allow_private: bool) -> GuardedResolver {
        GuardedResolver::refusing(if allow_private {
            |_| false
        } else {
            is_internal
        })
    }

    /// A resolver that refuses the addresses `refuse` names.
    pub fn refusing(refuse: fn(IpAddr) -> bool) -> GuardedResolver {
        GuardedResolver {
            refuse,
            inner: DefaultResolver::default(),
        }
    }
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let resolved = self.inner.resolve(uri, config, timeout)?;
        let mut kept = self.inner.empty();
        let mut refused = None;
        for address in resolved.iter() {
            if (self.refuse)(address.ip()) {
                refused.get_or_insert(address.ip());
            } else {
                kept.push(*address);
            }
        }
        match refused {
            Some(ip) if kept.is_empty() => Err(ureq::Error::Io(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "refused to connect to {} ({ip}): a loopback, link-local or private address \
                     (--allow-private-network allows it)",
                    uri.host().unwrap_or_default()
                ),
            ))),
            _ => Ok(kept),
        }
    }
}

/// Whether `ip` is an address a fetch must not reach by default. An IPv6 address that carries
/// an IPv4 address a gateway would forward to (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
/// Teredo) is judged by that IPv4 address as well.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (first & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated)
                || (first == 0x2001 && v6.segments()[1] == 0x0db8) // documentation 2001:db8::/32
                || v6.is_multicast()
                || is_local_nat64(v6)
                || embedded_v4(v6).into_iter().any(is_internal_v4)
        }
    }
}

/// The IPv4 addresses `v6` carries for a translator or tunnel to reach, by prefix:
/// - `::ffff:0:0/96` (IPv4-mapped) and `::/96` (IPv4-compatible, deprecated): the last 32 bits;
/// - `64:ff9b::/96` (NAT64's well-known prefix, RFC 6052): the last 32 bits;
/// - `2002::/16` (6to4, RFC 3056): bits 16 to 47;
/// - `2001::/32` (Teredo, RFC 4380): the server (bits 32 to 63) and the client, whose address
///   is the last 32 bits inverted.
fn embedded_v4(v6: Ipv6Addr) -> Vec<Ipv4Addr> {
    let o = v6.octets();
    let s = v6.segments();
    let v4 = |a: u8, b: u8, c: u8, d: u8| Ipv4Addr::new(a, b, c, d);
    let last = v4(o[12], o[13], o[14], o[15]);
    match s {
        [0, 0, 0, 0, 0, 0xffff, ..] | [0, 0, 0, 0, 0, 0, ..] => vec![last],
        [0x64, 0xff9b, 0, 0, 0, 0, ..] => vec![last],
        [0x2002, ..] => vec![v4(o[2], o[3], o[4], o[5])],
        [0x2001, 0, ..] => vec![
            v4(o[4], o[5], o[6], o[7]),
            v4(!o[12], !o[13], !o[14], !o[15]),
        ],
        _ => Vec::new(),
    }
}

/// `64:ff9b:1::/48`, local-use NAT64 (RFC 8215): a site's own translator, reaching the IPv4
/// addresses the site chooses, at a place in the address that depends on a prefix length only
/// the site knows (RFC 6052 allows /48 to /96 here). Refused as a whole, as a private network is.
fn is_local_nat64(v6: Ipv6Addr) -> bool {
    matches!(v6.segments(), [0x64, 0xff9b, 1, ..])
}

fn is_internal_v4(v4: Ipv4Addr) -> bool {
    let [a, b, ..] = v4.octets();
    v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (carrier-grade NAT)
        || (a == 192 && b == 0 && v4.octets()[2] == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || v4.is_documentation() // TEST-NET-1, -2, -3: never routed, so only a local network has them
        || a >= 240 // reserved
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A server on `address` that answers every request with `reply`, counting connections.
    fn serve(address: &str, reply: String) -> Option<(u16, Arc<AtomicUsize>)> {
        let listener = TcpListener::bind((address, 0)).ok()?;
        let port = listener.local_addr().ok()?.port();
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&connections);
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                counted.fetch_add(1, Ordering::SeqCst);
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let _ = stream.write_all(reply.as_bytes());
            }
        });
        Some((port, connections))
    }

    /// A redirect is checked like the first request: a public-looking first hop (here the
    /// test's 127.0.0.1, which this resolver lets through) that redirects to a refused address
    /// (127.0.0.2) fails before any connection is made to it.
    #[test]
    fn a_redirect_to_a_refused_address_is_not_followed() {
        let Some((inner_port, inner_hits)) = serve(
            "127.0.0.2",
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".into(),
        ) else {
            eprintln!("skipped: cannot listen on 127.0.0.2 on this system");
            return;
        };
        let redirect = format!(
            "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.2:{inner_port}/index.yaml\r\n\
             Content-Length: 0\r\nConnection: close\r\n\r\n"
        );
        let (outer_port, outer_hits) = serve("127.0.0.1", redirect).expect("listen on 127.0.0.1");
        let options = crate::ClientOptions {
            timeout_secs: 5,
            ..Default::default()
        };
        let client = crate::Client::with_resolver(
            &options,
            GuardedResolver::refusing(|ip| ip == IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))),
        );
        let result = client.get(&format!("http://127.0.0.1:{outer_port}/index.yaml"), &[]);
        let error = format!("{:?}", result.err());
        assert!(error.contains("refused to connect"), "{error}");
        assert_eq!(outer_hits.load(Ordering::SeqCst), 1);
        assert_eq!(
            inner_hits.load(Ordering::SeqCst),
            0,
            "the redirect target was reached"
        );

        // The same redirect with the target allowed is followed: the check above is the guard,
        // not a failure of the test server.
        let client = crate::Client::with_resolver(&options, GuardedResolver::refusing(|_| false));
        let reply = client.get(&format!("http://127.0.0.1:{outer_port}/index.yaml"), &[]);
        assert_eq!(reply.map(|r| r.body).ok(), Some(b"hi".to_vec()));
        assert_eq!(inner_hits.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn internal_addresses_are_recognised() {
        for internal in [
            "127.0.0.1",
            "127.0.0.2",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "fc00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            // NAT64, well-known and local-use prefixes (RFC 6052, RFC 8215).
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::10.0.0.1",
            "64:ff9b:1:7f00:1::",
            "64:ff9b:1::a00:1",
            "64:ff9b:1:ffff:ffff:ff00:a00:1",
            // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::",
            "2002:c0a8:101:1::1",
            // Teredo (RFC 4380): the server, and the client inverted in the last 32 bits.
            "2001:0:a00:1::1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            // Documentation ranges (RFC 5737, RFC 3849): never routed on the internet.
            "192.0.2.2",
            "198.51.100.7",
            "203.0.113.9",
            "::ffff:c000:202",
            "2001:db8::1",
        ] {
            assert!(is_internal(internal.parse().unwrap()), "{internal}");
        }
        for public in [
            "1.1.1.1",
            "140.82.112.3",
            "172.32.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
        ] {
            assert!(!is_internal(public.parse().unwrap()), "{public}");
        }
    }
}
