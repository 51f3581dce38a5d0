//! Sprig's `encryptAES`/`decryptAES`: AES-256 in CBC mode (RustCrypto's `aes` and `cbc`) with
//! PKCS#7 padding; the key is the password's bytes, zero-padded or cut to 32; the output is base64
//! of IV followed by ciphertext.
//! The IV comes from the deterministic random source, so a render is reproducible.
//!
//! Not for: anything needing confidentiality guarantees (the IV is predictable by design here).

use aes::cipher::block_padding::{NoPadding, Pkcs7};
use aes::cipher::{BlockDecryptMut as _, BlockEncryptMut as _, KeyIvInit as _};
use base64::Engine as _;

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::random::next_u64;
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] =
    &[("encryptAES", encrypt_aes), ("decryptAES", decrypt_aes)];

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
    let mut iv = [0u8; 16];
    iv[..8].copy_from_slice(&next_u64(env).to_be_bytes());
    iv[8..].copy_from_slice(&next_u64(env).to_be_bytes());
    let ciphertext = cbc::Encryptor::<aes::Aes256>::new(&key_of(password).into(), &iv.into())
        .encrypt_padded_vec_mut::<Pkcs7>(plaintext.as_bytes());
    let mut out = iv.to_vec();
    out.extend_from_slice(&ciphertext);
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
    let mut iv = [0u8; 16];
    iv.copy_from_slice(&data[..16]);
    let Ok(mut plain) = cbc::Decryptor::<aes::Aes256>::new(&key_of(password).into(), &iv.into())
        .decrypt_padded_vec_mut::<NoPadding>(&data[16..])
    else {
        return err("crypto/cipher: input not full blocks");
    };
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

    fn env() -> FuncEnv {
        FuncEnv {
            rng_state: 3,
            now_unix: 0,
            lookups: 0,
            run: None,
        }
    }

    #[test]
    fn round_trip() {
        let mut env = env();
        let c = encrypt_aes(
            &mut env,
            &[Value::String("k".into()), Value::String("plaintext".into())],
        )
        .unwrap();
        let p = decrypt_aes(&mut env, &[Value::String("k".into()), c]).unwrap();
        assert_eq!(p, Value::String("plaintext".into()));
    }

    /// Decrypts what Helm's Sprig encrypted (real Helm, `encryptAES "secretkey" "plaintext to
    /// hide, longer than one block"`, IV from crypto/rand): mode, padding and key are Sprig's.
    #[test]
    fn decrypts_what_sprig_encrypted() {
        let mut env = env();
        let from_helm = "4OVx6jhM0ogtAKogSR0arB3CdSSgaTLK3RKvOYJ/w9zPOUCriIRx0IC4UksdgC1ZgcZh8CZiRCG6l9KuDeXUxw==";
        let p = decrypt_aes(
            &mut env,
            &[
                Value::String("secretkey".into()),
                Value::String(from_helm.into()),
            ],
        )
        .unwrap();
        assert_eq!(
            p,
            Value::String("plaintext to hide, longer than one block".into())
        );
        assert!(decrypt_aes(
            &mut env,
            &[Value::String("k".into()), Value::String("AAAA".into())]
        )
        .is_err());
    }
}
