//! Sprig's digest functions (`sha1sum`, `sha256sum`, `sha512sum`, `adler32sum`), and the key,
//! certificate and password functions, which are not supported offline and say so.
//!
//! Not for: random values (see `random`).

use sha2::Digest as _;

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::{FuncEnv, Function};

pub const FUNCTIONS: &[(&str, Function)] = &[
    ("sha1sum", sha1sum),
    ("sha256sum", sha256sum),
    ("sha512sum", sha512sum),
    ("adler32sum", adler32sum),
    ("bcrypt", unsupported),
    ("htpasswd", unsupported),
    ("derivePassword", unsupported),
    ("genPrivateKey", unsupported),
    ("buildCustomCert", unsupported),
    ("genCA", unsupported),
    ("genCAWithKey", unsupported),
    ("genSelfSignedCert", unsupported),
    ("genSelfSignedCertWithKey", unsupported),
    ("genSignedCert", unsupported),
    ("genSignedCertWithKey", unsupported),
    ("getHostByName", unsupported),
];

fn unsupported(_: &mut FuncEnv, _: &[Value]) -> Result<Value> {
    err("this function is not supported by offlux (keys, certificates, password hashes and DNS are not rendered offline)")
}

fn sha256sum(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("sha256sum", a, 1)?;
    Ok(Value::String(hex::encode(sha2::Sha256::digest(
        args::string(&a[0])?.as_bytes(),
    ))))
}

fn sha512sum(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("sha512sum", a, 1)?;
    Ok(Value::String(hex::encode(sha2::Sha512::digest(
        args::string(&a[0])?.as_bytes(),
    ))))
}

fn sha1sum(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("sha1sum", a, 1)?;
    Ok(Value::String(hex::encode(sha1(
        args::string(&a[0])?.as_bytes(),
    ))))
}

fn adler32sum(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("adler32sum", a, 1)?;
    let (mut s1, mut s2) = (1u32, 0u32);
    for &b in args::string(&a[0])?.as_bytes() {
        s1 = (s1 + u32::from(b)) % 65521;
        s2 = (s2 + s1) % 65521;
    }
    Ok(Value::String(((s2 << 16) | s1).to_string()))
}

/// SHA-1 (FIPS 180-4). Kept here because Sprig needs it and no dependency of ours provides it.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut msg = data.to_vec();
    let bit_len = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A827999),
                20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (hv, v) in h.iter_mut().zip([a, b, c, d, e]) {
            *hv = hv.wrapping_add(v);
        }
    }
    let mut out = [0u8; 20];
    for (i, v) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&v.to_be_bytes());
    }
    out
}
