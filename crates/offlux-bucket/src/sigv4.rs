//! AWS Signature Version 4 in the `Authorization` header, as S3 checks it: the canonical request,
//! the string to sign and the derived signing key of the "Authenticating Requests (AWS Signature
//! Version 4)" section of the S3 API reference, and the URI encoding S3 expects of paths and
//! query strings. Not for: presigned URLs, chunked (streaming) payloads, session tokens.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The SHA-256 of an empty payload, the `x-amz-content-sha256` of every GET.
pub(crate) const EMPTY_SHA256: &str =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// A request as it will be sent, in the parts the signature covers.
pub(crate) struct Request<'a> {
    pub(crate) method: &'a str,
    /// The path as sent, already encoded by [`uri_encode`] (S3, unlike other services, signs the
    /// path encoded once, not twice).
    pub(crate) path: &'a str,
    /// The query as sent, from [`canonical_query`].
    pub(crate) query: &'a str,
    /// The headers signed (`host`, `x-amz-date` and `x-amz-content-sha256` among them), as sent.
    pub(crate) headers: &'a [(&'a str, &'a str)],
    /// The hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`: the `x-amz-content-sha256` value.
    pub(crate) payload_sha256: &'a str,
}

/// Whose key signs, and for which region and service.
pub(crate) struct Signer<'a> {
    pub(crate) access_key: &'a str,
    pub(crate) secret_key: &'a str,
    pub(crate) region: &'a str,
    pub(crate) service: &'a str,
}

/// The `Authorization` value for `request` at `amz_date` (`YYYYMMDDTHHMMSSZ`, the request's
/// `x-amz-date`).
pub(crate) fn authorization(request: &Request<'_>, signer: &Signer<'_>, amz_date: &str) -> String {
    let date = amz_date.get(..8).unwrap_or(amz_date);
    let scope = format!("{date}/{}/{}/aws4_request", signer.region, signer.service);

    let mut headers: Vec<(String, String)> = request
        .headers
        .iter()
        .map(|(name, value)| (name.to_ascii_lowercase(), collapse_spaces(value)))
        .collect();
    headers.sort();
    let signed_headers = headers
        .iter()
        .map(|(name, _)| name.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let mut canonical_headers = String::new();
    for (name, value) in &headers {
        canonical_headers.push_str(name);
        canonical_headers.push(':');
        canonical_headers.push_str(value);
        canonical_headers.push('\n');
    }
    let canonical_request = format!(
        "{}\n{}\n{}\n{canonical_headers}\n{signed_headers}\n{}",
        request.method, request.path, request.query, request.payload_sha256
    );
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex::encode(Sha256::digest(canonical_request.as_bytes()))
    );

    let secret = format!("AWS4{}", signer.secret_key);
    let key = hmac(secret.as_bytes(), date.as_bytes());
    let key = hmac(&key, signer.region.as_bytes());
    let key = hmac(&key, signer.service.as_bytes());
    let key = hmac(&key, b"aws4_request");
    let signature = hex::encode(hmac(&key, string_to_sign.as_bytes()));
    format!(
        "AWS4-HMAC-SHA256 Credential={}/{scope},SignedHeaders={signed_headers},Signature={signature}",
        signer.access_key
    )
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC takes keys of any length: `new_from_slice` never fails for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        return Vec::new();
    };
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// A header value as SigV4 canonicalizes it: trimmed, runs of spaces made one.
fn collapse_spaces(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` percent-encoded as SigV4 asks: every byte but `A-Z a-z 0-9 - . _ ~` (and `/` when
/// `keep_slash`, for object keys in paths) as `%XY` in capitals.
pub(crate) fn uri_encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~')
            || (keep_slash && byte == b'/')
        {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The query string of `pairs`, canonical (so it is sent as it is signed): names and values
/// encoded, pairs sorted by name then value, `name=` for an empty value.
pub(crate) fn canonical_query(pairs: &[(&str, &str)]) -> String {
    let mut encoded: Vec<(String, String)> = pairs
        .iter()
        .map(|(name, value)| (uri_encode(name, false), uri_encode(value, false)))
        .collect();
    encoded.sort();
    encoded
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// `YYYYMMDDTHHMMSSZ` for `secs` seconds after the Unix epoch, in UTC.
pub(crate) fn amz_date(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The example signature calculations of the S3 API reference ("Signature Calculations for
    // the Authorization Header: Transferring Payload in a Single Chunk"), all with these keys
    // and this time, for `examplebucket` in virtual-host style.
    const SIGNER: Signer<'static> = Signer {
        access_key: "AKIAIOSFODNN7EXAMPLE",
        secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1",
        service: "s3",
    };
    const DATE: &str = "20130524T000000Z";
    const HOST: &str = "examplebucket.s3.amazonaws.com";

    fn signature(authorization: &str) -> &str {
        authorization.rsplit("Signature=").next().unwrap()
    }

    #[test]
    fn get_object_example() {
        let request = Request {
            method: "GET",
            path: "/test.txt",
            query: "",
            headers: &[
                ("Host", HOST),
                ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", EMPTY_SHA256),
                ("x-amz-date", DATE),
            ],
            payload_sha256: EMPTY_SHA256,
        };
        assert_eq!(
            authorization(&request, &SIGNER, DATE),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,\
             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,\
             Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
    }

    #[test]
    fn put_object_example_encodes_the_key() {
        let payload = hex::encode(Sha256::digest(b"Welcome to Amazon S3."));
        let path = format!("/{}", uri_encode("test$file.text", true));
        assert_eq!(path, "/test%24file.text");
        let request = Request {
            method: "PUT",
            path: &path,
            query: "",
            headers: &[
                ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("Host", HOST),
                ("x-amz-content-sha256", &payload),
                ("x-amz-date", DATE),
                ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ],
            payload_sha256: &payload,
        };
        assert_eq!(
            signature(&authorization(&request, &SIGNER, DATE)),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
        );
    }

    fn get_bucket(query: &str) -> String {
        let request = Request {
            method: "GET",
            path: "/",
            query,
            headers: &[
                ("Host", HOST),
                ("x-amz-content-sha256", EMPTY_SHA256),
                ("x-amz-date", DATE),
            ],
            payload_sha256: EMPTY_SHA256,
        };
        authorization(&request, &SIGNER, DATE)
    }

    #[test]
    fn get_bucket_lifecycle_example_has_an_empty_value() {
        let query = canonical_query(&[("lifecycle", "")]);
        assert_eq!(query, "lifecycle=");
        assert_eq!(
            signature(&get_bucket(&query)),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
        );
    }

    #[test]
    fn list_objects_example_sorts_the_query() {
        let query = canonical_query(&[("prefix", "J"), ("max-keys", "2")]);
        assert_eq!(query, "max-keys=2&prefix=J");
        assert_eq!(
            signature(&get_bucket(&query)),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
        );
    }

    #[test]
    fn encoding() {
        assert_eq!(uri_encode("a b/c+d~é", true), "a%20b/c%2Bd~%C3%A9");
        assert_eq!(uri_encode("a b/c", false), "a%20b%2Fc");
        assert_eq!(
            canonical_query(&[("prefix", "a/b c"), ("continuation-token", "x=y+z")]),
            "continuation-token=x%3Dy%2Bz&prefix=a%2Fb%20c"
        );
        assert_eq!(collapse_spaces("  a   b  "), "a b");
    }

    #[test]
    fn dates() {
        assert_eq!(amz_date(0), "19700101T000000Z");
        assert_eq!(amz_date(1_369_353_600), DATE);
        assert_eq!(amz_date(951_825_599), "20000229T115959Z");
        assert_eq!(amz_date(4_102_444_800), "21000101T000000Z");
    }
}
