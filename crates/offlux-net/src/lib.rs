//! The HTTP client offlux's fetchers share: one `ureq` agent whose name resolver enforces the
//! egress policy ([`egress`]) on every address connected to, redirects included; no proxy or
//! other setting from the environment; bodies read in full up to a cap; a per-read idle timeout,
//! a per-request timeout and the run's network deadline. Statuses are the caller's to judge.
//!
//! Not for: any protocol above HTTP (Helm indexes, OCI distribution, Git smart HTTP are their
//! callers'), caching, credentials beyond [`basic_header`].

pub mod egress;

use std::time::{Duration, Instant};

use base64::Engine;

pub use egress::GuardedResolver;

/// When the run's network time ends, and the seconds it was set to (for the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub at: Instant,
    pub secs: u64,
}

/// How a client behaves.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// Connect to loopback, link-local and private addresses too.
    pub allow_private_network: bool,
    /// The largest body read.
    pub max_bytes: u64,
    /// Per-request timeout in seconds.
    pub timeout_secs: u64,
    /// Seconds a request may wait for its next bytes.
    pub idle_timeout_secs: u64,
    /// No request starts after it, and one in flight is cut there.
    pub deadline: Option<Deadline>,
    /// An HTTP(S) or SOCKS proxy every request goes through (`http://host:port`), never one
    /// from the environment. The egress policy then applies to the proxy's address, and to a
    /// target named by an address; a target named by a host name is the proxy's to resolve.
    pub proxy: Option<String>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            allow_private_network: false,
            max_bytes: 64 << 20,
            timeout_secs: 60,
            idle_timeout_secs: 15,
            deadline: None,
            proxy: None,
        }
    }
}

/// Why a request did not complete. A status the server answered with is not an error here.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// No connection (DNS, refused, TLS, an address the egress policy refuses) or a broken
    /// transfer.
    #[error("{url}: {message}")]
    Transport { url: String, message: String },
    /// The TLS handshake failed: the server does not speak TLS there, or its certificate is not
    /// trusted. What the cluster's fetch would meet as well, so not a question of reach.
    #[error("{url}: {message}")]
    Tls { url: String, message: String },
    #[error("{url}: body larger than {limit} bytes")]
    TooLarge { url: String, limit: u64 },
    #[error("{url}: no data for {secs} s")]
    Idle { url: String, secs: u64 },
    #[error("{url}: the run's network time of {secs} s is used up")]
    Deadline { url: String, secs: u64 },
}

/// A blocking HTTP client (see the crate's documentation).
pub struct Client {
    agent: ureq::Agent,
    /// The proxy requests go through, for the messages.
    proxy: Option<String>,
    /// Set when requests go through a proxy and internal addresses are refused: a target named
    /// by an internal address is refused before the request (the proxy would reach it).
    refuse_internal_targets: bool,
    /// A proxy setting that could not be read: every request fails with it.
    bad_proxy: Option<String>,
    pub max_bytes: u64,
    timeout: Duration,
    idle_secs: u64,
    deadline: Option<Deadline>,
}

/// A response whose body has been read in full (within the cap).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl Client {
    pub fn new(options: &ClientOptions) -> Client {
        Client::with_resolver(options, GuardedResolver::new(options.allow_private_network))
    }

    /// A client whose connections go through `resolver`, which decides the addresses allowed.
    pub fn with_resolver(options: &ClientOptions, resolver: GuardedResolver) -> Client {
        let (proxy, bad_proxy) = match options.proxy.as_deref().map(ureq::Proxy::new) {
            None => (None, None),
            Some(Ok(proxy)) => (Some(proxy), None),
            Some(Err(e)) => (
                None,
                Some(format!(
                    "the proxy `{}` cannot be used: {e}",
                    options.proxy.as_deref().unwrap_or_default()
                )),
            ),
        };
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Only the proxy given, never one from the environment: the address check is on
            // what is connected to.
            .proxy(proxy)
            // Every read waits at most this long for bytes; the whole request is bounded per
            // request, by the per-request timeout and the run's deadline.
            .timeout_per_read(Some(Duration::from_secs(options.idle_timeout_secs.max(1))))
            .max_redirects(10)
            // Credentials follow a redirect to the same host over https, never elsewhere (a
            // registry's blob redirect to object storage must not carry them).
            .redirect_auth_headers(ureq::config::RedirectAuthHeaders::SameHost)
            .build();
        let agent = ureq::Agent::with_parts(
            config,
            ureq::unversioned::transport::DefaultConnector::default(),
            resolver,
        );
        Client {
            agent,
            proxy: options.proxy.clone(),
            refuse_internal_targets: options.proxy.is_some() && !options.allow_private_network,
            bad_proxy,
            max_bytes: options.max_bytes,
            timeout: Duration::from_secs(options.timeout_secs.max(1)),
            idle_secs: options.idle_timeout_secs.max(1),
            deadline: options.deadline,
        }
    }

    /// How long a request starting now may take: the per-request timeout, cut at the run's
    /// deadline; an error naming `url` once the deadline has passed.
    fn time_left(&self, url: &str) -> Result<Duration, NetError> {
        if let Some(message) = &self.bad_proxy {
            return Err(NetError::Transport {
                url: url.to_string(),
                message: message.clone(),
            });
        }
        if self.refuse_internal_targets {
            check_target(url)?;
        }
        let Some(deadline) = self.deadline else {
            return Ok(self.timeout);
        };
        match deadline.at.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(left.min(self.timeout)),
            _ => Err(NetError::Deadline {
                url: url.to_string(),
                secs: deadline.secs,
            }),
        }
    }

    /// A transport error, named for the limit that ended it where one did.
    fn failed(&self, url: &str, error: ureq::Error) -> NetError {
        match error {
            ureq::Error::Timeout(ureq::Timeout::PerRead) => NetError::Idle {
                url: url.to_string(),
                secs: self.idle_secs,
            },
            // The request was given until the deadline (read a little early: the two clocks
            // were read apart).
            ureq::Error::Timeout(_)
                if self
                    .deadline
                    .is_some_and(|d| Instant::now() + Duration::from_millis(100) >= d.at) =>
            {
                NetError::Deadline {
                    url: url.to_string(),
                    secs: self.deadline.map_or(0, |d| d.secs),
                }
            }
            ureq::Error::BodyExceedsLimit(limit) => NetError::TooLarge {
                url: url.to_string(),
                limit,
            },
            error => {
                let message = error.to_string();
                if let Some(tls) = tls_failure(&message) {
                    return NetError::Tls {
                        url: url.to_string(),
                        message: tls,
                    };
                }
                let message = match &self.proxy {
                    Some(proxy) => format!("{message} (through the proxy {proxy}, `--proxy`)"),
                    None => message,
                };
                NetError::Transport {
                    url: url.to_string(),
                    message,
                }
            }
        }
    }

    /// GET `url` with `headers`, reading at most `max_bytes` of body.
    pub fn get(&self, url: &str, headers: &[(&str, String)]) -> Result<Reply, NetError> {
        let left = self.time_left(url)?;
        let mut request = self.agent.get(url);
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let response = request
            .config()
            .timeout_global(Some(left))
            .build()
            .call()
            .map_err(|e| self.failed(url, e))?;
        self.read(url, response)
    }

    /// POST `body` to `url` with `headers`, reading at most `max_bytes` of the answer.
    pub fn post(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &[u8],
    ) -> Result<Reply, NetError> {
        let left = self.time_left(url)?;
        let mut request = self.agent.post(url);
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let response = request
            .config()
            .timeout_global(Some(left))
            .build()
            .send(body)
            .map_err(|e| self.failed(url, e))?;
        self.read(url, response)
    }

    fn read(
        &self,
        url: &str,
        mut response: ureq::http::Response<ureq::Body>,
    ) -> Result<Reply, NetError> {
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let body = response
            .body_mut()
            .with_config()
            .limit(self.max_bytes)
            .read_to_vec()
            .map_err(|e| self.failed(url, e))?;
        Ok(Reply {
            status,
            headers,
            body,
        })
    }
}

/// Through a proxy the target is not resolved here: one named by an internal address (or
/// `localhost`) is refused as the resolver would refuse it.
fn check_target(url: &str) -> Result<(), NetError> {
    let refused = |what: &str| {
        NetError::Transport {
        url: url.to_string(),
        message: format!(
            "refused to connect to {what}: a loopback, link-local or private address (--allow-private-network allows it)"
        ),
    }
    };
    let uri: ureq::http::Uri = url.parse().map_err(|e| NetError::Transport {
        url: url.to_string(),
        message: format!("not a URL: {e}"),
    })?;
    let host = uri.host().unwrap_or_default();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if bare.eq_ignore_ascii_case("localhost") || bare.to_ascii_lowercase().ends_with(".localhost") {
        return Err(refused(host));
    }
    if let Ok(ip) = bare.parse::<std::net::IpAddr>() {
        if egress::is_internal(ip) {
            return Err(refused(host));
        }
    }
    Ok(())
}

/// What a failed TLS handshake means, from rustls' message: a plain-HTTP server answering
/// (`InvalidContentType`) or a certificate the system roots do not vouch for.
fn tls_failure(message: &str) -> Option<String> {
    if message.contains("InvalidContentType") || message.contains("corrupt message") {
        return Some(format!(
            "{message}: the server does not speak TLS (a plain-HTTP server: a source says so with `insecure: true`)"
        ));
    }
    let certificate = message.contains("invalid peer certificate")
        || message.contains("UnknownIssuer")
        || message.contains("certificate");
    certificate.then(|| format!("{message}: the server's certificate is not trusted"))
}

/// The `Authorization` value of HTTP basic auth.
pub fn basic_header(username: &str, password: &str) -> String {
    let raw = format!("{username}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Through a proxy, a target named by an internal address is refused before any connection
    /// (the proxy would reach it); one named by a public address or a host name goes to the
    /// proxy, and a proxy that cannot be read fails every request with why.
    #[test]
    fn a_proxied_request_to_an_internal_address_is_refused_first() {
        let through = |allow_private_network: bool, proxy: &str| {
            Client::new(&ClientOptions {
                proxy: Some(proxy.to_owned()),
                allow_private_network,
                timeout_secs: 2,
                ..ClientOptions::default()
            })
        };
        // Port 9 on loopback: nothing listens, so a request that passed the checks fails to
        // connect rather than hanging.
        let client = through(false, "http://127.0.0.1:9");
        for url in [
            "http://10.0.0.1/x",
            "http://169.254.169.254/latest/meta-data",
            "https://[::1]:8443/v2/",
            "http://localhost:8080/",
            "http://registry.localhost/v2/",
        ] {
            let error = client.get(url, &[]).err().map(|e| e.to_string());
            assert!(
                error
                    .as_deref()
                    .is_some_and(|e| e.contains("refused to connect to")),
                "{url}: {error:?}"
            );
        }
        // A public name is the proxy's: the request goes to it (here a refused connection to
        // a proxy on loopback, which the resolver refuses as well).
        let error = client
            .get("http://charts.example.com/index.yaml", &[])
            .err();
        assert!(
            error
                .as_ref()
                .is_some_and(|e| e.to_string().contains("127.0.0.1")),
            "{error:?}"
        );
        // With private networks allowed, the target check is off.
        let allowed = through(true, "http://127.0.0.1:9");
        let error = allowed
            .get("http://10.0.0.1/x", &[])
            .err()
            .map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| !e.contains("refused to connect to 10.0.0.1")),
            "{error:?}"
        );
        let bad = through(true, "not a proxy ::");
        let error = bad
            .get("http://example.com/", &[])
            .err()
            .map(|e| e.to_string());
        assert!(
            error
                .as_deref()
                .is_some_and(|e| e.contains("cannot be used")),
            "{error:?}"
        );
    }
}
