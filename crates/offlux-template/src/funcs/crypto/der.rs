//! The small slice of DER and PEM that Sprig's key and certificate functions need: writing
//! tag-length-value elements, reading them back one level at a time, and PEM armour as Go's
//! `encoding/pem` writes it (64-column base64, no headers).
//!
//! Not for: general ASN.1 (no schemas, no BER, no PEM headers).

use base64::Engine as _;

pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const SET: u8 = 0x31;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(super) const NULL: u8 = 0x05;
pub(crate) const OID: u8 = 0x06;
pub(crate) const BOOLEAN: u8 = 0x01;

/// One element: tag, length, contents.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// A constructed element from already-encoded children.
pub(crate) fn cons(tag: u8, children: &[&[u8]]) -> Vec<u8> {
    tlv(tag, &children.concat())
}

/// A non-negative INTEGER from big-endian magnitude bytes (minimal form).
pub(crate) fn uint(magnitude: &[u8]) -> Vec<u8> {
    let trimmed: &[u8] = {
        let skip = magnitude.iter().take_while(|b| **b == 0).count();
        &magnitude[skip..]
    };
    let mut content = Vec::with_capacity(trimmed.len() + 1);
    if trimmed.first().is_none_or(|b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend_from_slice(trimmed);
    tlv(INTEGER, &content)
}

/// An OBJECT IDENTIFIER from its arcs (the first two are below 3 and 40).
pub(crate) fn oid(arcs: &[u64]) -> Vec<u8> {
    let mut content = Vec::new();
    let mut push = |mut v: u64| {
        let mut groups = vec![(v & 0x7f) as u8];
        v >>= 7;
        while v > 0 {
            groups.push(0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        content.extend(groups.iter().rev());
    };
    if let [a, b, rest @ ..] = arcs {
        push(a * 40 + b);
        for &arc in rest {
            push(arc);
        }
    }
    tlv(OID, &content)
}

/// A BIT STRING with no unused bits.
pub(crate) fn bits(bytes: &[u8]) -> Vec<u8> {
    let mut content = vec![0];
    content.extend_from_slice(bytes);
    tlv(BIT_STRING, &content)
}

/// One parsed element: its tag, its contents, and the whole encoding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Element<'a> {
    pub tag: u8,
    pub content: &'a [u8],
    pub raw: &'a [u8],
}

/// Reads consecutive elements from a byte string.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The next element, or an error for truncated or non-DER lengths.
    pub(super) fn next(&mut self) -> Result<Element<'a>, String> {
        let input = self.rest;
        let (&tag, after_tag) = input.split_first().ok_or("truncated DER: missing tag")?;
        if tag & 0x1f == 0x1f {
            return Err("unsupported DER: multi-byte tag".into());
        }
        let (&first, after_len) = after_tag
            .split_first()
            .ok_or("truncated DER: missing length")?;
        let (len, header) = if first < 0x80 {
            (usize::from(first), 2)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 {
                return Err("invalid DER length".into());
            }
            let bytes = after_len.get(..n).ok_or("truncated DER length")?;
            let len = bytes
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, 2 + n)
        };
        let end = header
            .checked_add(len)
            .filter(|end| *end <= input.len())
            .ok_or("truncated DER: element longer than its input")?;
        let raw = &input[..end];
        self.rest = &input[end..];
        Ok(Element {
            tag,
            content: &raw[header..],
            raw,
        })
    }

    /// The next element, which must have `tag`.
    pub(super) fn expect(&mut self, tag: u8, what: &str) -> Result<Element<'a>, String> {
        let el = self.next()?;
        if el.tag != tag {
            return Err(format!(
                "malformed {what}: expected tag 0x{tag:02x}, got 0x{:02x}",
                el.tag
            ));
        }
        Ok(el)
    }
}

/// PEM armour as Go's `pem.Encode` writes it.
pub(crate) fn pem_encode(label: &str, der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// The first PEM block in `text`: its label and decoded bytes. Headers are not supported.
pub(crate) fn pem_decode(text: &str) -> Option<(String, Vec<u8>)> {
    let start = text.find("-----BEGIN ")?;
    let after = &text[start + 11..];
    let label_end = after.find("-----")?;
    let label = &after[..label_end];
    let body = &after[label_end + 5..];
    let end_marker = format!("-----END {label}-----");
    let body_end = body.find(&end_marker)?;
    let b64: String = body[..body_end]
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(b64.as_bytes())
        .ok()?;
    Some((label.to_string(), der))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_integers_are_minimal() {
        assert_eq!(tlv(OCTET_STRING, &[1, 2]), vec![4, 2, 1, 2]);
        let long = tlv(OCTET_STRING, &[0; 300]);
        assert_eq!(&long[..4], &[4, 0x82, 0x01, 0x2c]);
        assert_eq!(uint(&[0, 0, 0x7f]), vec![2, 1, 0x7f]);
        assert_eq!(uint(&[0x80]), vec![2, 2, 0, 0x80]);
        assert_eq!(uint(&[]), vec![2, 1, 0]);
        // sha256WithRSAEncryption
        assert_eq!(
            oid(&[1, 2, 840, 113549, 1, 1, 11]),
            vec![6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 1, 11]
        );
    }

    #[test]
    fn reader_round_trips_and_rejects_truncation() {
        let inner = tlv(INTEGER, &[5]);
        let outer = cons(SEQUENCE, &[&inner, &tlv(NULL, &[])]);
        let mut r = Reader::new(&outer);
        let seq = r.expect(SEQUENCE, "test").unwrap();
        assert!(r.is_empty());
        let mut r = Reader::new(seq.content);
        assert_eq!(r.expect(INTEGER, "n").unwrap().content, &[5]);
        assert_eq!(r.next().unwrap().tag, NULL);
        assert!(Reader::new(&outer[..3]).next().is_err());
        assert!(Reader::new(&[0x30, 0x85, 1, 1, 1, 1, 1]).next().is_err());
    }

    #[test]
    fn pem_round_trips() {
        let der: Vec<u8> = (0..=255).collect();
        let pem = pem_encode("TEST", &der);
        assert!(pem.starts_with("-----BEGIN TEST-----\n"));
        assert!(pem.ends_with("\n-----END TEST-----\n"));
        assert!(pem.lines().all(|l| l.len() <= 64));
        assert_eq!(pem_decode(&pem), Some(("TEST".to_string(), der)));
        assert_eq!(pem_decode("no pem here"), None);
    }
}
