//! Private keys for Sprig's `genPrivateKey` and certificate functions: generation from a seeded
//! generator (so renders are reproducible), PEM encoding in the block types Sprig uses, and
//! parsing of the PEM keys templates pass in (Sprig's `parsePrivateKeyPEM`).
//!
//! Not for: DSA (parameter generation is slow and DSA is obsolete: generating errors, and a DSA
//! key is recognised but cannot sign), elliptic curves other than P-256.

use rand_chacha::ChaCha20Rng;
use rand_core06::RngCore as _;
use rsa::pkcs1::{DecodeRsaPrivateKey as _, EncodeRsaPrivateKey as _};
use rsa::RsaPrivateKey;

use super::der::{self, cons, oid, tlv, Reader};

const OID_RSA_ENCRYPTION: &[u64] = &[1, 2, 840, 113549, 1, 1, 1];
const OID_EC_PUBLIC_KEY: &[u64] = &[1, 2, 840, 10045, 2, 1];
const OID_P256: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
const OID_ED25519: &[u64] = &[1, 3, 101, 112];

/// A parsed private key.
pub(crate) enum PrivateKey {
    Rsa(Box<RsaPrivateKey>),
    Ecdsa(p256::SecretKey),
    /// The 32-byte seed.
    Ed25519([u8; 32]),
    /// A well-formed key offlux cannot sign with (named as Go's type would be).
    Other(&'static str),
}

impl PrivateKey {
    /// Sprig's `pemBlockForKey`: the key re-encoded in the block type Go writes for its type.
    pub(crate) fn to_pem(&self) -> Result<String, String> {
        match self {
            PrivateKey::Rsa(k) => rsa_pem(k),
            PrivateKey::Ecdsa(k) => Ok(ec_pem(k)),
            PrivateKey::Ed25519(seed) => Ok(ed25519_seed_pem(seed)),
            PrivateKey::Other(kind) => Err(format!("error pem-encoding key: unsupported {kind}")),
        }
    }
}

pub(crate) fn generate_rsa(rng: &mut ChaCha20Rng, bits: usize) -> Result<RsaPrivateKey, String> {
    RsaPrivateKey::new(rng, bits).map_err(|e| format!("error generating rsa key: {e}"))
}

/// Go's `x509.MarshalPKCS1PrivateKey` in an "RSA PRIVATE KEY" block.
pub(crate) fn rsa_pem(key: &RsaPrivateKey) -> Result<String, String> {
    let doc = key
        .to_pkcs1_der()
        .map_err(|e| format!("error pem-encoding key: {e}"))?;
    Ok(der::pem_encode("RSA PRIVATE KEY", doc.as_bytes()))
}

/// A P-256 key as Go's `x509.MarshalECPrivateKey` writes it, in an "EC PRIVATE KEY" block.
pub(crate) fn ecdsa_pem(rng: &mut ChaCha20Rng) -> String {
    ec_pem(&p256::SecretKey::random(rng))
}

/// The uncompressed public point of a P-256 key (`04 || X || Y`).
pub(crate) fn ec_public_point(secret: &p256::SecretKey) -> Vec<u8> {
    use p256::elliptic_curve::sec1::ToEncodedPoint as _;
    secret
        .public_key()
        .to_encoded_point(false)
        .as_bytes()
        .to_vec()
}

fn ec_pem(secret: &p256::SecretKey) -> String {
    let body = cons(
        der::SEQUENCE,
        &[
            &der::tlv(der::INTEGER, &[1]),
            &tlv(der::OCTET_STRING, &secret.to_bytes()),
            &tlv(0xa0, &oid(OID_P256)),
            &tlv(0xa1, &der::bits(&ec_public_point(secret))),
        ],
    );
    der::pem_encode("EC PRIVATE KEY", &body)
}

/// An Ed25519 key as Go's `x509.MarshalPKCS8PrivateKey` writes it (the seed only), in a
/// "PRIVATE KEY" block. The seed is the key; no curve arithmetic is needed to store it.
pub(crate) fn ed25519_pem(rng: &mut ChaCha20Rng) -> String {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    ed25519_seed_pem(&seed)
}

fn ed25519_seed_pem(seed: &[u8; 32]) -> String {
    let body = cons(
        der::SEQUENCE,
        &[
            &der::tlv(der::INTEGER, &[0]),
            &cons(der::SEQUENCE, &[&oid(OID_ED25519)]),
            &tlv(der::OCTET_STRING, &tlv(der::OCTET_STRING, seed)),
        ],
    );
    der::pem_encode("PRIVATE KEY", &body)
}

/// Sprig's `parsePrivateKeyPEM`, with its messages.
pub(crate) fn parse_pem(text: &str) -> Result<PrivateKey, String> {
    let (label, bytes) = der::pem_decode(text).ok_or("no PEM data in input")?;
    if label == "PRIVATE KEY" {
        return parse_pkcs8(&bytes).map_err(|e| format!("decoding PEM as PKCS#8: {e}"));
    }
    let Some(kind) = label.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {label}"));
    };
    match kind {
        "RSA" => RsaPrivateKey::from_pkcs1_der(&bytes)
            .map(|k| PrivateKey::Rsa(Box::new(k)))
            .map_err(|e| format!("parsing RSA private key from PEM: {e}")),
        "EC" => {
            parse_sec1(&bytes, None).map_err(|e| format!("parsing EC private key from PEM: {e}"))
        }
        "DSA" => well_formed(&bytes)
            .map(|_| PrivateKey::Other("*dsa.PrivateKey"))
            .map_err(|e| format!("parsing DSA private key from PEM: {e}")),
        _ => Err(format!("invalid private key type {label}")),
    }
}

fn well_formed(bytes: &[u8]) -> Result<(), String> {
    let mut r = Reader::new(bytes);
    r.expect(der::SEQUENCE, "private key")?;
    Ok(())
}

fn parse_pkcs8(bytes: &[u8]) -> Result<PrivateKey, String> {
    let mut outer = Reader::new(bytes);
    let seq = outer.expect(der::SEQUENCE, "PKCS#8")?;
    let mut r = Reader::new(seq.content);
    r.expect(der::INTEGER, "PKCS#8 version")?;
    let alg = r.expect(der::SEQUENCE, "PKCS#8 algorithm")?;
    let alg_oid = Reader::new(alg.content).expect(der::OID, "PKCS#8 algorithm")?;
    let key = r.expect(der::OCTET_STRING, "PKCS#8 private key")?;
    if alg_oid.raw == oid(OID_RSA_ENCRYPTION).as_slice() {
        RsaPrivateKey::from_pkcs1_der(key.content)
            .map(|k| PrivateKey::Rsa(Box::new(k)))
            .map_err(|e| format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}"))
    } else if alg_oid.raw == oid(OID_EC_PUBLIC_KEY).as_slice() {
        let mut params = Reader::new(alg.content);
        params.next()?;
        let curve = params.expect(der::OID, "EC parameters")?;
        parse_sec1(key.content, Some(curve.raw))
            .map_err(|e| format!("x509: failed to parse EC private key embedded in PKCS#8: {e}"))
    } else if alg_oid.raw == oid(OID_ED25519).as_slice() {
        let seed = Reader::new(key.content).expect(der::OCTET_STRING, "Ed25519 key")?;
        let seed: [u8; 32] = seed.content.try_into().map_err(|_| {
            format!(
                "x509: invalid Ed25519 private key length: {}",
                seed.content.len()
            )
        })?;
        Ok(PrivateKey::Ed25519(seed))
    } else {
        Err("x509: PKCS#8 wrapping contained private key with unknown algorithm".into())
    }
}

/// RFC 5915 ECPrivateKey; the curve comes from the key or, in PKCS#8, from the wrapper.
fn parse_sec1(bytes: &[u8], wrapper_curve: Option<&[u8]>) -> Result<PrivateKey, String> {
    let seq = Reader::new(bytes).expect(der::SEQUENCE, "EC private key")?;
    let mut r = Reader::new(seq.content);
    let version = r.expect(der::INTEGER, "EC private key version")?;
    if version.content != [1] {
        return Err("x509: unknown EC private key version".into());
    }
    let d = r.expect(der::OCTET_STRING, "EC private key")?;
    let mut curve = wrapper_curve.map(<[u8]>::to_vec);
    while !r.is_empty() {
        let el = r.next()?;
        if el.tag == 0xa0 {
            curve = Some(
                Reader::new(el.content)
                    .expect(der::OID, "EC curve")?
                    .raw
                    .to_vec(),
            );
        }
    }
    if curve.as_deref() != Some(oid(OID_P256).as_slice()) {
        return Err("x509: unknown elliptic curve (offlux supports P-256)".into());
    }
    p256::SecretKey::from_slice(d.content)
        .map(PrivateKey::Ecdsa)
        .map_err(|_| "x509: invalid elliptic curve private key value".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core06::SeedableRng as _;

    #[test]
    fn generated_keys_parse_back() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let ec = ecdsa_pem(&mut rng);
        assert!(ec.starts_with("-----BEGIN EC PRIVATE KEY-----\n"));
        match parse_pem(&ec) {
            Ok(k @ PrivateKey::Ecdsa(_)) => assert_eq!(k.to_pem().unwrap(), ec),
            _ => panic!("EC key did not parse back"),
        }
        let ed = ed25519_pem(&mut rng);
        assert!(ed.starts_with("-----BEGIN PRIVATE KEY-----\n"));
        match parse_pem(&ed) {
            Ok(k @ PrivateKey::Ed25519(_)) => assert_eq!(k.to_pem().unwrap(), ed),
            _ => panic!("Ed25519 key did not parse back"),
        }
        // Wrapped in PKCS#8 (as openssl writes it), the EC key parses to the same key and
        // re-encodes as SEC1, as Go's pemBlockForKey does.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ec.pem"), &ec).unwrap();
        let out = std::process::Command::new("openssl")
            .args(["pkcs8", "-topk8", "-nocrypt", "-in", "ec.pem"])
            .current_dir(dir.path())
            .output()
            .expect("this test needs the `openssl` command on PATH");
        let pkcs8 = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(pkcs8.starts_with("-----BEGIN PRIVATE KEY-----"), "{pkcs8}");
        match parse_pem(&pkcs8) {
            Ok(k @ PrivateKey::Ecdsa(_)) => assert_eq!(k.to_pem().unwrap(), ec),
            _ => panic!("PKCS#8 EC key did not parse"),
        }
        let dsa = der::pem_encode("DSA PRIVATE KEY", &[0x30, 0]);
        assert!(matches!(
            parse_pem(&dsa),
            Ok(PrivateKey::Other("*dsa.PrivateKey"))
        ));
        // The Go encoding of an Ed25519 PKCS#8 key is a fixed 48 bytes.
        assert_eq!(der::pem_decode(&ed).map(|(_, d)| d.len()), Some(48));
        let rsa = generate_rsa(&mut rng, 1024).unwrap();
        let pem = rsa_pem(&rsa).unwrap();
        match parse_pem(&pem) {
            Ok(PrivateKey::Rsa(k)) => assert_eq!(*k, rsa),
            _ => panic!("RSA key did not parse back"),
        }
    }

    #[test]
    fn parse_errors_match_sprig() {
        assert_eq!(
            parse_pem("x").err().as_deref(),
            Some("no PEM data in input")
        );
        let cert = der::pem_encode("CERTIFICATE", &[0x30, 0]);
        assert_eq!(
            parse_pem(&cert).err().as_deref(),
            Some("no private key data in PEM block of type CERTIFICATE")
        );
        let odd = der::pem_encode("FOO PRIVATE KEY", &[0x30, 0]);
        assert_eq!(
            parse_pem(&odd).err().as_deref(),
            Some("invalid private key type FOO PRIVATE KEY")
        );
        let bad = der::pem_encode("RSA PRIVATE KEY", &[0x30, 0]);
        assert!(parse_pem(&bad)
            .err()
            .is_some_and(|e| e.starts_with("parsing RSA private key from PEM")));
    }
}
