//! AES-256 in CBC mode with PKCS#7 padding, for Sprig's `encryptAES`/`decryptAES`: the key is the
//! password's bytes, zero-padded or cut to 32; the output is base64 of IV followed by ciphertext.
//! The IV comes from the deterministic random source, so a render is reproducible.
//!
//! Not for: anything needing confidentiality guarantees (the IV is predictable by design here).

use base64::Engine as _;

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::random::next_u64;
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] =
    &[("encryptAES", encrypt_aes), ("decryptAES", decrypt_aes)];

/// Multiplication in GF(2^8) with the AES polynomial.
fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        let hi = a & 0x80;
        a <<= 1;
        if hi != 0 {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    p
}

/// The S-box and its inverse, computed from the field inverse and the affine map.
fn sboxes() -> ([u8; 256], [u8; 256]) {
    let mut sbox = [0u8; 256];
    let mut inv = [0u8; 256];
    for x in 0..=255u8 {
        let mut y = 0u8;
        if x != 0 {
            // x^254 is the multiplicative inverse in GF(2^8).
            let mut r = 1u8;
            let mut base = x;
            let mut e = 254u32;
            while e > 0 {
                if e & 1 != 0 {
                    r = gmul(r, base);
                }
                base = gmul(base, base);
                e >>= 1;
            }
            y = r;
        }
        let s =
            y ^ y.rotate_left(1) ^ y.rotate_left(2) ^ y.rotate_left(3) ^ y.rotate_left(4) ^ 0x63;
        sbox[x as usize] = s;
        inv[s as usize] = x;
    }
    (sbox, inv)
}

struct Aes256 {
    round_keys: [[u8; 16]; 15],
    sbox: [u8; 256],
    inv_sbox: [u8; 256],
}

impl Aes256 {
    fn new(key: &[u8; 32]) -> Aes256 {
        let (sbox, inv_sbox) = sboxes();
        let mut w = [[0u8; 4]; 60];
        for (i, word) in w.iter_mut().take(8).enumerate() {
            word.copy_from_slice(&key[i * 4..i * 4 + 4]);
        }
        let mut rcon = 1u8;
        for i in 8..60 {
            let mut t = w[i - 1];
            if i % 8 == 0 {
                t.rotate_left(1);
                for b in t.iter_mut() {
                    *b = sbox[*b as usize];
                }
                t[0] ^= rcon;
                rcon = gmul(rcon, 2);
            } else if i % 8 == 4 {
                for b in t.iter_mut() {
                    *b = sbox[*b as usize];
                }
            }
            for j in 0..4 {
                w[i][j] = w[i - 8][j] ^ t[j];
            }
        }
        let mut round_keys = [[0u8; 16]; 15];
        for (r, rk) in round_keys.iter_mut().enumerate() {
            for c in 0..4 {
                rk[c * 4..c * 4 + 4].copy_from_slice(&w[r * 4 + c]);
            }
        }
        Aes256 {
            round_keys,
            sbox,
            inv_sbox,
        }
    }

    fn add_round_key(state: &mut [u8; 16], rk: &[u8; 16]) {
        for (s, k) in state.iter_mut().zip(rk) {
            *s ^= k;
        }
    }

    /// State bytes are column-major: byte `r + 4c` is row r, column c.
    fn shift_rows(state: &mut [u8; 16], inverse: bool) {
        let old = *state;
        for r in 1..4 {
            for c in 0..4 {
                let from = if inverse {
                    (c + 4 - r) % 4
                } else {
                    (c + r) % 4
                };
                state[r + 4 * c] = old[r + 4 * from];
            }
        }
    }

    fn mix_columns(state: &mut [u8; 16], inverse: bool) {
        let m: [u8; 4] = if inverse {
            [14, 11, 13, 9]
        } else {
            [2, 3, 1, 1]
        };
        for c in 0..4 {
            let col = [
                state[4 * c],
                state[4 * c + 1],
                state[4 * c + 2],
                state[4 * c + 3],
            ];
            for r in 0..4 {
                state[4 * c + r] = gmul(col[r], m[0])
                    ^ gmul(col[(r + 1) % 4], m[1])
                    ^ gmul(col[(r + 2) % 4], m[2])
                    ^ gmul(col[(r + 3) % 4], m[3]);
            }
        }
    }

    fn encrypt_block(&self, block: &mut [u8; 16]) {
        Self::add_round_key(block, &self.round_keys[0]);
        for round in 1..15 {
            for b in block.iter_mut() {
                *b = self.sbox[*b as usize];
            }
            Self::shift_rows(block, false);
            if round != 14 {
                Self::mix_columns(block, false);
            }
            Self::add_round_key(block, &self.round_keys[round]);
        }
    }

    fn decrypt_block(&self, block: &mut [u8; 16]) {
        Self::add_round_key(block, &self.round_keys[14]);
        for round in (0..14).rev() {
            Self::shift_rows(block, true);
            for b in block.iter_mut() {
                *b = self.inv_sbox[*b as usize];
            }
            Self::add_round_key(block, &self.round_keys[round]);
            if round != 0 {
                Self::mix_columns(block, true);
            }
        }
    }
}

fn key_of(password: &str) -> [u8; 32] {
    let mut key = [0u8; 32];
    for (k, b) in key.iter_mut().zip(password.bytes()) {
        *k = b;
    }
    key
}

fn encrypt_aes(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("encryptAES", a, 2)?;
    let password = args::string(&a[0])?;
    let plaintext = args::string(&a[1])?;
    if plaintext.is_empty() {
        return Ok(Value::String(String::new()));
    }
    let aes = Aes256::new(&key_of(password));
    let mut data = plaintext.as_bytes().to_vec();
    let pad = 16 - data.len() % 16;
    data.extend(std::iter::repeat_n(pad as u8, pad));
    let mut prev = [0u8; 16];
    prev[..8].copy_from_slice(&next_u64(env).to_be_bytes());
    prev[8..].copy_from_slice(&next_u64(env).to_be_bytes());
    let mut out = prev.to_vec();
    for chunk in data.chunks(16) {
        let mut block = [0u8; 16];
        for (i, b) in block.iter_mut().enumerate() {
            *b = chunk[i] ^ prev[i];
        }
        aes.encrypt_block(&mut block);
        out.extend_from_slice(&block);
        prev = block;
    }
    Ok(Value::String(
        base64::engine::general_purpose::STANDARD.encode(out),
    ))
}

fn decrypt_aes(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("decryptAES", a, 2)?;
    let password = args::string(&a[0])?;
    let encoded = args::string(&a[1])?;
    if encoded.is_empty() {
        return Ok(Value::String(String::new()));
    }
    let data = match base64::engine::general_purpose::STANDARD.decode(encoded) {
        Ok(d) => d,
        Err(_) => return err("illegal base64 data in decryptAES input"),
    };
    if data.len() < 32 || data.len() % 16 != 0 {
        return err("crypto/cipher: input not full blocks");
    }
    let aes = Aes256::new(&key_of(password));
    let mut prev = [0u8; 16];
    prev.copy_from_slice(&data[..16]);
    let mut plain = Vec::with_capacity(data.len() - 16);
    for chunk in data[16..].chunks(16) {
        let mut block = [0u8; 16];
        block.copy_from_slice(chunk);
        let cipher = block;
        aes.decrypt_block(&mut block);
        for (b, p) in block.iter_mut().zip(prev) {
            *b ^= p;
        }
        plain.extend_from_slice(&block);
        prev = cipher;
    }
    let pad = plain.last().copied().unwrap_or(0) as usize;
    if pad > plain.len() {
        return err("runtime error: slice bounds out of range");
    }
    plain.truncate(plain.len() - pad);
    Ok(Value::String(String::from_utf8_lossy(&plain).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fips_197_aes_256_vector() {
        let key: [u8; 32] = std::array::from_fn(|i| i as u8);
        let aes = Aes256::new(&key);
        let mut block: [u8; 16] = std::array::from_fn(|i| (i as u8) * 0x11);
        aes.encrypt_block(&mut block);
        assert_eq!(hex::encode(block), "8ea2b7ca516745bfeafc49904b496089");
        aes.decrypt_block(&mut block);
        assert_eq!(hex::encode(block), "00112233445566778899aabbccddeeff");
    }

    #[test]
    fn round_trip() {
        let mut env = FuncEnv {
            rng_state: 3,
            now_unix: 0,
            lookups: 0,
            run: None,
        };
        let c = encrypt_aes(
            &mut env,
            &[Value::String("k".into()), Value::String("plaintext".into())],
        )
        .unwrap();
        let p = decrypt_aes(&mut env, &[Value::String("k".into()), c]).unwrap();
        assert_eq!(p, Value::String("plaintext".into()));
    }
}
