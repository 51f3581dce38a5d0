//! Sprig's random functions, made deterministic: every draw comes from `FuncEnv::rng_state`
//! (SplitMix64), so a render is reproducible. The values differ from Go's, whose source is
//! `crypto/rand`; only their shape (length, alphabet, format) matches.
//!
//! Not for: anything that needs unpredictability.

use base64::Engine as _;

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("randAlphaNum", rand_alpha_num),
    ("randAlpha", rand_alpha),
    ("randAscii", rand_ascii),
    ("randNumeric", rand_numeric),
    ("randInt", rand_int),
    ("randBytes", rand_bytes),
    ("uuidv4", uuidv4),
    ("shuffle", shuffle),
];

/// SplitMix64: small, fast, and good enough for shapes.
pub(super) fn next_u64(env: &mut FuncEnv) -> u64 {
    env.rng_state = env.rng_state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = env.rng_state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn below(env: &mut FuncEnv, n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        next_u64(env) % n
    }
}

const MAX_COUNT: i64 = 1 << 20;

fn from_alphabet(env: &mut FuncEnv, name: &str, a: &[Value], alphabet: &[u8]) -> Result<Value> {
    exact(name, a, 1)?;
    let count = args::int(&a[0])?;
    if !(0..=MAX_COUNT).contains(&count) {
        return err(format!("{name}: count {count} out of range"));
    }
    let out: String = (0..count)
        .map(|_| alphabet[below(env, alphabet.len() as u64) as usize] as char)
        .collect();
    Ok(Value::String(out))
}

const ALPHA: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const NUMERIC: &[u8] = b"0123456789";
const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn rand_alpha_num(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    from_alphabet(env, "randAlphaNum", a, ALNUM)
}

fn rand_alpha(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    from_alphabet(env, "randAlpha", a, ALPHA)
}

fn rand_numeric(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    from_alphabet(env, "randNumeric", a, NUMERIC)
}

fn rand_ascii(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let printable: Vec<u8> = (32u8..127).collect();
    from_alphabet(env, "randAscii", a, &printable)
}

fn rand_int(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("randInt", a, 2)?;
    let min = args::int(&a[0])?;
    let max = args::int(&a[1])?;
    let span = max.wrapping_sub(min);
    if span <= 0 {
        return err("invalid argument to Intn");
    }
    Ok(Value::Int(min + below(env, span as u64) as i64))
}

fn rand_bytes(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("randBytes", a, 1)?;
    let count = args::int(&a[0])?;
    if !(0..=MAX_COUNT).contains(&count) {
        return err(format!("randBytes: count {count} out of range"));
    }
    let bytes: Vec<u8> = (0..count).map(|_| next_u64(env) as u8).collect();
    Ok(Value::String(
        base64::engine::general_purpose::STANDARD.encode(bytes),
    ))
}

fn uuidv4(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("uuidv4", a, 0)?;
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&next_u64(env).to_be_bytes());
    b[8..].copy_from_slice(&next_u64(env).to_be_bytes());
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    Ok(Value::String(format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )))
}

fn shuffle(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("shuffle", a, 1)?;
    let mut chars: Vec<char> = args::string(&a[0])?.chars().collect();
    for i in (1..chars.len()).rev() {
        let j = below(env, i as u64 + 1) as usize;
        chars.swap(i, j);
    }
    Ok(Value::String(chars.into_iter().collect()))
}
