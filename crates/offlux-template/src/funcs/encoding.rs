//! Sprig's base64 and base32 functions. Decoding failures return the error text as the result,
//! as Sprig does.
//!
//! Not for: JSON, YAML or TOML (see `gofmt`, `yaml`, `toml`).

use base64::Engine as _;

use super::super::value::Value;
use super::args::{self, exact, Result};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("b64enc", b64enc),
    ("b64dec", b64dec),
    ("b32enc", b32enc),
    ("b32dec", b32dec),
];

fn b64enc(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("b64enc", a, 1)?;
    let text = args::string(&a[0])?;
    Ok(Value::String(
        base64::engine::general_purpose::STANDARD.encode(text),
    ))
}

fn b64dec(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("b64dec", a, 1)?;
    let text = args::string(&a[0])?;
    Ok(Value::String(
        match base64::engine::general_purpose::STANDARD.decode(text) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => match e {
                base64::DecodeError::InvalidByte(at, _)
                | base64::DecodeError::InvalidLastSymbol(at, _) => {
                    format!("illegal base64 data at input byte {at}")
                }
                // Go reports where the incomplete final quantum starts.
                _ => format!("illegal base64 data at input byte {}", text.len() / 4 * 4),
            },
        },
    ))
}

const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32 with padding, as `base32.StdEncoding`.
pub(crate) fn base32_encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let bits = buf.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(B32[((bits >> (35 - i * 5)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base32_decode(text: &str) -> std::result::Result<Vec<u8>, usize> {
    let bytes = text.as_bytes();
    if bytes.len() % 8 != 0 {
        return Err(bytes.len() / 8 * 8);
    }
    let mut out = Vec::new();
    for (ci, chunk) in bytes.chunks(8).enumerate() {
        let mut bits = 0u64;
        let mut count = 0;
        for (i, &b) in chunk.iter().enumerate() {
            if b == b'=' {
                if chunk[i..].iter().any(|&p| p != b'=') {
                    return Err(ci * 8 + i);
                }
                break;
            }
            let v = B32.iter().position(|&c| c == b).ok_or(ci * 8 + i)?;
            bits |= (v as u64) << (35 - i * 5);
            count += 1;
        }
        let n = count * 5 / 8;
        for i in 0..n {
            out.push((bits >> (32 - i * 8)) as u8);
        }
    }
    Ok(out)
}

fn b32enc(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("b32enc", a, 1)?;
    Ok(Value::String(base32_encode(
        args::string(&a[0])?.as_bytes(),
    )))
}

fn b32dec(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("b32dec", a, 1)?;
    Ok(Value::String(match base32_decode(args::string(&a[0])?) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(at) => format!("illegal base32 data at input byte {at}"),
    }))
}
