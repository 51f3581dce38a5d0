//! Sprig's digest functions (`sha1sum`, `sha256sum`, `sha512sum`, `adler32sum`), password
//! functions (`bcrypt`, `htpasswd`, `derivePassword`) and key and certificate generators
//! (`genPrivateKey`; the certificates are in `x509`). Everything random (salts, keys, serials)
//! comes from a ChaCha20 generator seeded from `FuncEnv::rng_state`, so a render is reproducible;
//! the values differ from Go's, whose source is `crypto/rand`, but have its formats.
//!
//! Not for: random values (see `random`), DNS (`getHostByName` errors offline), DSA keys.

mod der;
mod keys;
mod x509;

use base64::Engine as _;
use rand_chacha::ChaCha20Rng;
use rand_core06::{RngCore as _, SeedableRng as _};
use sha2::Digest as _;

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("sha1sum", sha1sum),
    ("sha256sum", sha256sum),
    ("sha512sum", sha512sum),
    ("adler32sum", adler32sum),
    ("bcrypt", bcrypt),
    ("htpasswd", htpasswd),
    ("derivePassword", derive_password),
    ("genPrivateKey", gen_private_key),
    ("buildCustomCert", x509::build_custom_cert),
    ("genCA", x509::gen_ca),
    ("genCAWithKey", x509::gen_ca_with_key),
    ("genSelfSignedCert", x509::gen_self_signed_cert),
    (
        "genSelfSignedCertWithKey",
        x509::gen_self_signed_cert_with_key,
    ),
    ("genSignedCert", x509::gen_signed_cert),
    ("genSignedCertWithKey", x509::gen_signed_cert_with_key),
    ("getHostByName", unsupported),
];

fn unsupported(_: &mut FuncEnv, _: &[Value]) -> Result<Value> {
    err("this function is not supported by offlux (DNS is not resolved offline)")
}

/// A cryptographic generator for one call, seeded from (and advancing) the render's state.
fn rng(env: &mut FuncEnv) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(super::random::next_u64(env))
}

/// Go's `bcrypt.GenerateFromPassword` at `DefaultCost` (10), `$2a$` form, or Sprig's message.
fn bcrypt_hash(env: &mut FuncEnv, password: &str) -> String {
    // x/crypto/bcrypt refuses what it would otherwise silently truncate.
    if password.len() > 72 {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
            .to_string();
    }
    let mut salt = [0u8; 16];
    rng(env).fill_bytes(&mut salt);
    match ::bcrypt::hash_with_salt(password, 10, salt) {
        Ok(parts) => parts.format_for_version(::bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

fn bcrypt(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("bcrypt", a, 1)?;
    Ok(Value::String(bcrypt_hash(env, args::string(&a[0])?)))
}

/// Sprig v3.3's `htpasswd username password hashAlgorithm`: "sha" gives `{SHA}` + base64 SHA-1,
/// anything else bcrypt.
fn htpasswd(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("htpasswd", a, 3)?;
    let user = args::string(&a[0])?;
    let password = args::string(&a[1])?;
    let algorithm = args::string(&a[2])?;
    if user.contains(':') {
        return Ok(Value::String(format!("invalid username: {user}")));
    }
    let hash = if algorithm == "sha" {
        format!(
            "{{SHA}}{}",
            base64::engine::general_purpose::STANDARD.encode(sha1(password.as_bytes()))
        )
    } else {
        bcrypt_hash(env, password)
    };
    Ok(Value::String(format!("{user}:{hash}")))
}

const MASTER_PASSWORD_SEED: &[u8] = b"com.lyndir.masterpassword";

/// Master Password v3 templates, by Sprig's password type names.
fn password_templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_characters(class: u8) -> &'static [u8] {
    match class {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        _ => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

/// `derivePassword counter type password user site`: the Master Password v3 algorithm.
fn derive_password(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("derivePassword", a, 5)?;
    let counter = args::int(&a[0])?;
    let Ok(counter) = u32::try_from(counter) else {
        return err(format!(
            "derivePassword: counter {counter} overflows uint32"
        ));
    };
    let kind = args::string(&a[1])?;
    let password = args::string(&a[2])?;
    let user = args::string(&a[3])?;
    let site = args::string(&a[4])?;
    let Some(templates) = password_templates(kind) else {
        return Ok(Value::String(format!(
            "cannot find password template {kind}"
        )));
    };
    let Some(templates_len) = std::num::NonZeroUsize::new(templates.len()) else {
        return Ok(Value::String(String::new()));
    };
    let mut salt = MASTER_PASSWORD_SEED.to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let derived = scrypt::Params::new(15, 8, 2, 64)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            scrypt::scrypt(password.as_bytes(), &salt, &p, &mut key).map_err(|e| e.to_string())
        });
    if let Err(e) = derived {
        return Ok(Value::String(format!("failed to derive password: {e}")));
    }
    let mut message = MASTER_PASSWORD_SEED.to_vec();
    message.extend_from_slice(&(site.len() as u32).to_be_bytes());
    message.extend_from_slice(site.as_bytes());
    message.extend_from_slice(&counter.to_be_bytes());
    let seed = hmac_sha256(&key, &message);
    let template = templates[usize::from(seed[0]) % templates_len.get()];
    let out: String = template
        .bytes()
        .zip(seed.iter().skip(1))
        .map(|(class, s)| {
            let chars = template_characters(class);
            char::from(chars[usize::from(*s) % chars.len()])
        })
        .collect();
    Ok(Value::String(out))
}

/// HMAC (RFC 2104) over SHA-256.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&sha2::Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = sha2::Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = sha2::Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// `genPrivateKey type`: PEM in the block types Sprig writes; unknown types give Sprig's string.
fn gen_private_key(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("genPrivateKey", a, 1)?;
    let kind = args::string(&a[0])?;
    let mut rng = rng(env);
    let pem = match kind {
        "" | "rsa" => keys::generate_rsa(&mut rng, 4096).and_then(|k| keys::rsa_pem(&k)),
        "ecdsa" => Ok(keys::ecdsa_pem(&mut rng)),
        "ed25519" => Ok(keys::ed25519_pem(&mut rng)),
        "dsa" => return err("genPrivateKey: dsa keys are not supported by offlux"),
        other => Ok(format!("Unknown type {other}")),
    };
    match pem {
        Ok(p) => Ok(Value::String(p)),
        Err(e) => Ok(Value::String(format!(
            "failed to generate private key: {e}"
        ))),
    }
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
    let sum = adler2::adler32_slice(args::string(&a[0])?.as_bytes());
    Ok(Value::String(sum.to_string()))
}

/// SHA-1 of `data`, for `sha1sum` and the x509 key identifiers.
fn sha1(data: &[u8]) -> [u8; 20] {
    sha1::Sha1::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(seed: u64) -> FuncEnv {
        FuncEnv {
            rng_state: seed,
            now_unix: 1_700_000_000,
            lookups: 0,
            run: None,
        }
    }

    fn s(v: &str) -> Value {
        Value::String(v.to_string())
    }

    fn text(v: Result<Value>) -> String {
        match v {
            Ok(Value::String(s)) => s,
            other => panic!("expected a string, got {other:?}"),
        }
    }

    #[test]
    fn derive_password_matches_sprig_vectors() {
        // From Sprig's crypto_test.go.
        let cases = [
            (1, "long", "ZedaFaxcZaso9*"),
            (2, "long", "Fovi2@JifpTupx"),
            (1, "maximum", "pf4zS1LjCg&LjhsZ7T2~"),
            (1, "medium", "ZedJuz8$"),
            (1, "basic", "pIS54PLs"),
            (1, "short", "Zed5"),
            (1, "pin", "6685"),
        ];
        for (counter, kind, want) in cases {
            let a = [
                Value::Int(counter),
                s(kind),
                s("password"),
                s("user"),
                s("example.com"),
            ];
            assert_eq!(
                text(derive_password(&mut env(0), &a)),
                want,
                "{kind} {counter}"
            );
        }
        let a = [Value::Int(1), s("nope"), s("p"), s("u"), s("s")];
        assert_eq!(
            text(derive_password(&mut env(0), &a)),
            "cannot find password template nope"
        );
        let a = [Value::Int(-1), s("pin"), s("p"), s("u"), s("s")];
        assert!(derive_password(&mut env(0), &a).is_err());
    }

    #[test]
    fn hmac_matches_rfc4231_case_2() {
        assert_eq!(
            hex::encode(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn bcrypt_is_go_shaped_verifiable_and_seeded() {
        let h = text(bcrypt(&mut env(1), &[s("secret")]));
        assert!(h.starts_with("$2a$10$") && h.len() == 60, "{h}");
        assert!(::bcrypt::verify("secret", &h).unwrap());
        assert_eq!(h, text(bcrypt(&mut env(1), &[s("secret")])));
        assert_ne!(h, text(bcrypt(&mut env(2), &[s("secret")])));
        let long = "x".repeat(73);
        assert!(text(bcrypt(&mut env(1), &[s(&long)])).contains("exceeds 72 bytes"));
    }

    #[test]
    fn htpasswd_follows_sprig_v3_3() {
        let line = text(htpasswd(&mut env(1), &[s("me"), s("pw"), s("bcrypt")]));
        let (user, hash) = line.split_once(':').unwrap();
        assert_eq!(user, "me");
        assert!(::bcrypt::verify("pw", hash).unwrap());
        assert_eq!(
            text(htpasswd(&mut env(1), &[s("me"), s("password"), s("sha")])),
            "me:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="
        );
        assert_eq!(
            text(htpasswd(&mut env(1), &[s("a:b"), s("pw"), s("bcrypt")])),
            "invalid username: a:b"
        );
        assert!(htpasswd(&mut env(1), &[s("me"), s("pw")]).is_err());
    }

    #[test]
    fn private_keys_have_sprig_block_types_and_are_seeded() {
        let ec = text(gen_private_key(&mut env(3), &[s("ecdsa")]));
        assert!(ec.starts_with("-----BEGIN EC PRIVATE KEY-----\n"), "{ec}");
        assert_eq!(ec, text(gen_private_key(&mut env(3), &[s("ecdsa")])));
        assert_ne!(ec, text(gen_private_key(&mut env(4), &[s("ecdsa")])));
        let ed = text(gen_private_key(&mut env(3), &[s("ed25519")]));
        assert!(ed.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{ed}");
        assert_eq!(
            text(gen_private_key(&mut env(3), &[s("x")])),
            "Unknown type x"
        );
        assert!(gen_private_key(&mut env(3), &[s("dsa")])
            .err()
            .is_some_and(|e| e.0.contains("dsa keys are not supported")));
    }

    #[test]
    fn generated_private_keys_pass_openssl_checks() {
        let dir = tempfile::tempdir().unwrap();
        for (kind, tool, want) in [
            ("rsa", "rsa", "Private-Key: (4096 bit"),
            ("ecdsa", "ec", "ASN1 OID: prime256v1"),
            ("ed25519", "pkey", "ED25519 Private-Key"),
        ] {
            let pem = text(gen_private_key(&mut env(7), &[s(kind)]));
            let path = dir.path().join(format!("{kind}.pem"));
            std::fs::write(&path, pem).unwrap();
            let mut args = vec![tool, "-in", path.to_str().unwrap(), "-noout", "-text"];
            if tool != "pkey" {
                args.push("-check");
            }
            let out = std::process::Command::new("openssl")
                .args(&args)
                .output()
                .expect("this test needs the `openssl` command on PATH to check keys");
            let out_text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "openssl {args:?}: {out_text}");
            assert!(out_text.contains(want), "{kind}: {out_text}");
        }
    }
}
