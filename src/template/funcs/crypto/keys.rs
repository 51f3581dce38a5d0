//! Private keys for Sprig's `genPrivateKey` and certificate functions: generation from a seeded
//! generator (so renders are reproducible), PEM encoding in the block types Sprig uses, and
//! parsing of the PEM keys templates pass in (Sprig's `parsePrivateKeyPEM`).
//!
//! Not for: DSA generation (parameter generation is slow and DSA is obsolete; it errors), signing
//! certificates with anything but RSA.

use rand_chacha::ChaCha20Rng;
use rand_core06::RngCore as _;
use rsa::pkcs1::{DecodeRsaPrivateKey as _, EncodeRsaPrivateKey as _};
use rsa::RsaPrivateKey;

use super::der::{self, cons, oid, tlv, Reader};

const OID_RSA_ENCRYPTION: &[u64] = &[1, 2, 840, 113549, 1, 1, 1];
const OID_EC_PUBLIC_KEY: &[u64] = &[1, 2, 840, 10045, 2, 1];
const OID_P256: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
const OID_ED25519: &[u64] = &[1, 3, 101, 112];

/// A parsed private key. Only RSA keys are kept whole: they are the only ones offlux signs with.
pub enum PrivateKey {
    Rsa(Box<RsaPrivateKey>),
    /// A well-formed key of another algorithm (named as Go's type would be).
    Other(&'static str),
}

pub fn generate_rsa(rng: &mut ChaCha20Rng, bits: usize) -> Result<RsaPrivateKey, String> {
    RsaPrivateKey::new(rng, bits).map_err(|e| format!("error generating rsa key: {e}"))
}

/// Go's `x509.MarshalPKCS1PrivateKey` in an "RSA PRIVATE KEY" block.
pub fn rsa_pem(key: &RsaPrivateKey) -> Result<String, String> {
    let doc = key
        .to_pkcs1_der()
        .map_err(|e| format!("error pem-encoding key: {e}"))?;
    Ok(der::pem_encode("RSA PRIVATE KEY", doc.as_bytes()))
}

/// A P-256 key as Go's `x509.MarshalECPrivateKey` writes it, in an "EC PRIVATE KEY" block.
pub fn ecdsa_pem(rng: &mut ChaCha20Rng) -> String {
    use p256::elliptic_curve::sec1::ToEncodedPoint as _;
    let secret = p256::SecretKey::random(rng);
    let point = secret.public_key().to_encoded_point(false);
    let body = cons(
        der::SEQUENCE,
        &[
            &der::tlv(der::INTEGER, &[1]),
            &tlv(der::OCTET_STRING, &secret.to_bytes()),
            &tlv(0xa0, &oid(OID_P256)),
            &tlv(0xa1, &der::bits(point.as_bytes())),
        ],
    );
    der::pem_encode("EC PRIVATE KEY", &body)
}

/// An Ed25519 key as Go's `x509.MarshalPKCS8PrivateKey` writes it (the seed only), in a
/// "PRIVATE KEY" block. The seed is the key; no curve arithmetic is needed to store it.
pub fn ed25519_pem(rng: &mut ChaCha20Rng) -> String {
    let mut seed = [0u8; 32];
    rng.fill_bytes(&mut seed);
    let body = cons(
        der::SEQUENCE,
        &[
            &der::tlv(der::INTEGER, &[0]),
            &cons(der::SEQUENCE, &[&oid(OID_ED25519)]),
            &tlv(der::OCTET_STRING, &tlv(der::OCTET_STRING, &seed)),
        ],
    );
    der::pem_encode("PRIVATE KEY", &body)
}

/// Sprig's `parsePrivateKeyPEM`, with its messages.
pub fn parse_pem(text: &str) -> Result<PrivateKey, String> {
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
        "EC" => well_formed(&bytes)
            .map(|_| PrivateKey::Other("*ecdsa.PrivateKey"))
            .map_err(|e| format!("parsing EC private key from PEM: {e}")),
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
        Ok(PrivateKey::Other("*ecdsa.PrivateKey"))
    } else if alg_oid.raw == oid(OID_ED25519).as_slice() {
        Ok(PrivateKey::Other("ed25519.PrivateKey"))
    } else {
        Err("x509: PKCS#8 wrapping contained private key with unknown algorithm".into())
    }
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
        assert!(matches!(
            parse_pem(&ec),
            Ok(PrivateKey::Other("*ecdsa.PrivateKey"))
        ));
        let ed = ed25519_pem(&mut rng);
        assert!(ed.starts_with("-----BEGIN PRIVATE KEY-----\n"));
        assert!(matches!(
            parse_pem(&ed),
            Ok(PrivateKey::Other("ed25519.PrivateKey"))
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
