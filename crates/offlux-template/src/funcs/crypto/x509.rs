//! Sprig's certificate functions (`genCA`, `genSelfSignedCert`, `genSignedCert`, their `WithKey`
//! forms, `buildCustomCert`): X.509 v3 certificates written as DER by hand, with the fields and
//! extensions Go's `x509.CreateCertificate` writes for Sprig's template, signed as Go signs with
//! the issuer's key: RSA PKCS#1 v1.5 over SHA-256, ECDSA P-256 over SHA-256 (RFC 6979 nonces,
//! where Go's are random), or Ed25519. A certificate is a map with `Cert` and `Key` PEM strings, so templates reach
//! them as `.Cert` and `.Key` as they do Sprig's `certificate` struct.
//!
//! Keys and serial numbers come from a generator seeded from `FuncEnv::rng_state`, and validity
//! starts at `FuncEnv::now_unix`, so the same render gives the same bytes.
//!
//! Not for: DSA keys or curves other than P-256 (an error says so), certificate verification.

use std::collections::BTreeMap;
use std::net::IpAddr;

use base64::Engine as _;
use rand_chacha::ChaCha20Rng;
use rand_core06::RngCore as _;
use rsa::pkcs1::EncodeRsaPublicKey as _;
use rsa::Pkcs1v15Sign;
use sha2::Digest as _;

use super::super::super::value::Value;
use super::super::args::{self, err, exact, Result};
use super::super::dates::civil_from_days;
use super::super::FuncEnv;
use super::der::{self, cons, oid, tlv, Reader};
use super::keys::{self, PrivateKey};
use super::{rng, sha1};

/// Sprig's certificate key size.
const CERT_KEY_BITS: usize = 2048;

fn fail<T>(msg: impl Into<String>) -> Result<T> {
    err(msg)
}

pub(crate) fn gen_ca(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("genCA", a, 2)?;
    let (cn, days) = (args::string(&a[0])?, args::int(&a[1])?);
    let mut rng = rng(env);
    let key = generate(&mut rng)?;
    ca(&mut rng, env.now_unix, cn, days, &key)
}

pub(crate) fn gen_ca_with_key(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("genCAWithKey", a, 3)?;
    let (cn, days) = (args::string(&a[0])?, args::int(&a[1])?);
    let key = signing_key(args::string(&a[2])?)?;
    let mut rng = rng(env);
    ca(&mut rng, env.now_unix, cn, days, &key)
}

pub(crate) fn gen_self_signed_cert(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("genSelfSignedCert", a, 4)?;
    let mut rng = rng(env);
    let key = generate(&mut rng)?;
    self_signed(&mut rng, env.now_unix, a, &key)
}

pub(crate) fn gen_self_signed_cert_with_key(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("genSelfSignedCertWithKey", a, 5)?;
    let key = signing_key(args::string(&a[4])?)?;
    let mut rng = rng(env);
    self_signed(&mut rng, env.now_unix, &a[..4], &key)
}

pub(crate) fn gen_signed_cert(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("genSignedCert", a, 5)?;
    let issuer = Issuer::from_value(&a[4])?;
    let mut rng = rng(env);
    let key = generate(&mut rng)?;
    signed(&mut rng, env.now_unix, &a[..4], &key, &issuer)
}

pub(crate) fn gen_signed_cert_with_key(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("genSignedCertWithKey", a, 6)?;
    let issuer = Issuer::from_value(&a[4])?;
    let key = signing_key(args::string(&a[5])?)?;
    let mut rng = rng(env);
    signed(&mut rng, env.now_unix, &a[..4], &key, &issuer)
}

pub(crate) fn build_custom_cert(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("buildCustomCert", a, 2)?;
    let b64 = base64::engine::general_purpose::STANDARD;
    let cert = b64
        .decode(args::string(&a[0])?)
        .or_else(|_| fail("unable to decode base64 certificate"))?;
    let key = b64
        .decode(args::string(&a[1])?)
        .or_else(|_| fail("unable to decode base64 private key"))?;
    let cert = String::from_utf8_lossy(&cert).into_owned();
    let key = String::from_utf8_lossy(&key).into_owned();
    let Some((_, cert_der)) = der::pem_decode(&cert) else {
        return fail("unable to decode certificate");
    };
    parse_certificate(&cert_der).map_err(|e| {
        super::super::FuncError(format!("error parsing certificate: decodedCert.Bytes: {e}"))
    })?;
    keys::parse_pem(&key)
        .map_err(|e| super::super::FuncError(format!("error parsing private key: {e}")))?;
    Ok(certificate(cert, key))
}

fn certificate(cert: String, key: String) -> Value {
    let mut m = BTreeMap::new();
    m.insert("Cert".to_string(), Value::String(cert));
    m.insert("Key".to_string(), Value::String(key));
    Value::map(m)
}

fn generate(rng: &mut ChaCha20Rng) -> Result<PrivateKey> {
    let key = keys::generate_rsa(rng, CERT_KEY_BITS).or_else(fail)?;
    Ok(PrivateKey::Rsa(Box::new(key)))
}

fn signing_key(pem: &str) -> Result<PrivateKey> {
    match keys::parse_pem(pem) {
        Ok(PrivateKey::Other(kind)) => fail(format!(
            "offlux cannot sign certificates with a {kind} key (RSA, ECDSA P-256 and Ed25519 only)"
        )),
        Ok(k) => Ok(k),
        Err(e) => fail(format!("parsing private key: {e}")),
    }
}

/// What Sprig's `getBaseCertTemplate` fills in, plus `IsCA`.
struct Template {
    cn: String,
    ips: Vec<IpAddr>,
    dns: Vec<String>,
    days: i64,
    is_ca: bool,
}

impl Template {
    /// From the `cn ips alternateNames days` arguments.
    fn from_args(a: &[Value]) -> Result<Template> {
        let cn = args::string(&a[0])?.to_string();
        let ips = list(&a[1])?
            .iter()
            .map(|v| match v {
                Value::String(s) => s
                    .parse::<IpAddr>()
                    .or_else(|_| fail(format!("error parsing ip: {s}"))),
                other => fail(format!(
                    "error parsing ip: {} is not a string",
                    super::super::gofmt::format_v(other)
                )),
            })
            .collect::<Result<Vec<_>>>()?;
        let dns = list(&a[2])?
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => fail(format!(
                    "error processing alternate dns name: {} is not a string",
                    super::super::gofmt::format_v(other)
                )),
            })
            .collect::<Result<Vec<_>>>()?;
        let days = args::int(&a[3])?;
        Ok(Template {
            cn,
            ips,
            dns,
            days,
            is_ca: false,
        })
    }
}

fn list(v: &Value) -> Result<&[Value]> {
    match v {
        Value::Nil => Ok(&[]),
        Value::List(items) => Ok(items),
        other => fail(format!(
            "wrong type for value; expected []interface {{}}; got {}",
            super::super::gofmt::type_name(other)
        )),
    }
}

/// The signer of a certificate: its subject (as encoded) and key identifier, and its key.
struct Issuer {
    name: Vec<u8>,
    key_id: Option<Vec<u8>>,
    key: PrivateKey,
}

impl Issuer {
    /// From a certificate map (`.Cert`, `.Key`) as the generators return.
    fn from_value(v: &Value) -> Result<Issuer> {
        let (cert, key) = match v {
            Value::Map(m) => (m.get("Cert"), m.get("Key")),
            _ => (None, None),
        };
        let (Some(Value::String(cert)), Some(Value::String(key))) = (cert, key) else {
            return fail(format!(
                "wrong type for value; expected sprig.certificate; got {}",
                super::super::gofmt::type_name(v)
            ));
        };
        let Some((_, cert_der)) = der::pem_decode(cert) else {
            return fail("unable to decode certificate");
        };
        let parsed = parse_certificate(&cert_der).map_err(|e| {
            super::super::FuncError(format!(
                "error parsing certificate: decodedSignerCert.Bytes: {e}"
            ))
        })?;
        let key = match keys::parse_pem(key) {
            Ok(PrivateKey::Other(kind)) => {
                return fail(format!(
                    "offlux cannot sign certificates with a {kind} key (RSA, ECDSA P-256 and Ed25519 only)"
                ))
            }
            Ok(k) => k,
            Err(e) => return fail(format!("error parsing private key: {e}")),
        };
        Ok(Issuer {
            name: parsed.subject,
            key_id: parsed.subject_key_id,
            key,
        })
    }
}

fn ca(rng: &mut ChaCha20Rng, now: i64, cn: &str, days: i64, key: &PrivateKey) -> Result<Value> {
    let t = Template {
        cn: cn.to_string(),
        ips: Vec::new(),
        dns: Vec::new(),
        days,
        is_ca: true,
    };
    issue(rng, now, &t, key, None)
}

fn self_signed(rng: &mut ChaCha20Rng, now: i64, a: &[Value], key: &PrivateKey) -> Result<Value> {
    let t = Template::from_args(a)?;
    issue(rng, now, &t, key, None)
}

fn signed(
    rng: &mut ChaCha20Rng,
    now: i64,
    a: &[Value],
    key: &PrivateKey,
    issuer: &Issuer,
) -> Result<Value> {
    let t = Template::from_args(a)?;
    issue(rng, now, &t, key, Some(issuer))
}

fn issue(
    rng: &mut ChaCha20Rng,
    now: i64,
    t: &Template,
    key: &PrivateKey,
    issuer: Option<&Issuer>,
) -> Result<Value> {
    let der = certificate_der(rng, now, t, key, issuer).or_else(fail)?;
    let key_pem = key.to_pem().or_else(fail)?;
    Ok(certificate(der::pem_encode("CERTIFICATE", &der), key_pem))
}

const OID_SHA256_WITH_RSA: &[u64] = &[1, 2, 840, 113549, 1, 1, 11];
const OID_RSA_ENCRYPTION: &[u64] = &[1, 2, 840, 113549, 1, 1, 1];
const OID_EC_PUBLIC_KEY: &[u64] = &[1, 2, 840, 10045, 2, 1];
const OID_P256: &[u64] = &[1, 2, 840, 10045, 3, 1, 7];
const OID_ECDSA_WITH_SHA256: &[u64] = &[1, 2, 840, 10045, 4, 3, 2];
const OID_ED25519: &[u64] = &[1, 3, 101, 112];
const OID_COMMON_NAME: &[u64] = &[2, 5, 4, 3];
const OID_KEY_USAGE: &[u64] = &[2, 5, 29, 15];
const OID_EXT_KEY_USAGE: &[u64] = &[2, 5, 29, 37];
const OID_BASIC_CONSTRAINTS: &[u64] = &[2, 5, 29, 19];
const OID_SUBJECT_KEY_ID: &[u64] = &[2, 5, 29, 14];
const OID_AUTHORITY_KEY_ID: &[u64] = &[2, 5, 29, 35];
const OID_SUBJECT_ALT_NAME: &[u64] = &[2, 5, 29, 17];
const OID_SERVER_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 1];
const OID_CLIENT_AUTH: &[u64] = &[1, 3, 6, 1, 5, 5, 7, 3, 2];

/// DigestInfo prefix for SHA-256 (RFC 8017 §9.2 note 1).
const SHA256_DIGEST_INFO: &[u8] = &[
    0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05,
    0x00, 0x04, 0x20,
];

fn algorithm(arcs: &[u64]) -> Vec<u8> {
    cons(der::SEQUENCE, &[&oid(arcs), &tlv(der::NULL, &[])])
}

fn extension(arcs: &[u64], critical: bool, value: &[u8]) -> Vec<u8> {
    let crit = tlv(der::BOOLEAN, &[0xff]);
    let mut parts: Vec<&[u8]> = Vec::new();
    let id = oid(arcs);
    parts.push(&id);
    if critical {
        parts.push(&crit);
    }
    let v = tlv(der::OCTET_STRING, value);
    parts.push(&v);
    cons(der::SEQUENCE, &parts)
}

/// Go's `asn1.Marshal` of a string: PrintableString when it can be, else UTF8String.
fn directory_string(s: &str) -> Vec<u8> {
    let printable = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?*".contains(&b));
    tlv(if printable { 0x13 } else { 0x0c }, s.as_bytes())
}

/// A Name with only a common name; an empty CN gives an empty Name, as in Go.
fn name(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return tlv(der::SEQUENCE, &[]);
    }
    let atv = cons(
        der::SEQUENCE,
        &[&oid(OID_COMMON_NAME), &directory_string(cn)],
    );
    cons(der::SEQUENCE, &[&tlv(der::SET, &atv)])
}

/// UTCTime for 1950..2049, GeneralizedTime otherwise (RFC 5280 §4.1.2.5).
fn time(unix: i64) -> std::result::Result<Vec<u8>, String> {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    if !(0..=9999).contains(&y) {
        return Err(format!(
            "error creating certificate: validity year {y} is out of range"
        ));
    }
    let hms = format!("{:02}{:02}{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60);
    Ok(if (1950..2050).contains(&y) {
        tlv(0x17, format!("{:02}{m:02}{d:02}{hms}", y % 100).as_bytes())
    } else {
        tlv(0x18, format!("{y:04}{m:02}{d:02}{hms}").as_bytes())
    })
}

fn certificate_der(
    rng: &mut ChaCha20Rng,
    now: i64,
    t: &Template,
    key: &PrivateKey,
    issuer: Option<&Issuer>,
) -> std::result::Result<Vec<u8>, String> {
    // Sprig draws the serial uniformly below 2^128.
    let mut serial = [0u8; 16];
    rng.fill_bytes(&mut serial);
    let not_after = t
        .days
        .checked_mul(86_400)
        .and_then(|d| now.checked_add(d))
        .ok_or("error creating certificate: validity period overflows")?;
    let (key_algorithm, public) = public_key(key)?;
    let public = public.as_slice();
    let subject = name(&t.cn);
    let signer = issuer.map_or(key, |i| &i.key);
    let issuer_name = issuer.map_or(subject.clone(), |i| i.name.clone());

    let mut exts: Vec<Vec<u8>> = Vec::new();
    // Go's bit order: digitalSignature is bit 0 (the top bit of the first byte).
    let key_usage: &[u8] = if t.is_ca {
        &[0x02, 0xa4]
    } else {
        &[0x05, 0xa0]
    };
    exts.push(extension(
        OID_KEY_USAGE,
        true,
        &tlv(der::BIT_STRING, key_usage),
    ));
    exts.push(extension(
        OID_EXT_KEY_USAGE,
        false,
        &cons(
            der::SEQUENCE,
            &[&oid(OID_SERVER_AUTH), &oid(OID_CLIENT_AUTH)],
        ),
    ));
    let basic: Vec<u8> = if t.is_ca {
        cons(der::SEQUENCE, &[&tlv(der::BOOLEAN, &[0xff])])
    } else {
        tlv(der::SEQUENCE, &[])
    };
    exts.push(extension(OID_BASIC_CONSTRAINTS, true, &basic));
    // Go derives a CA's key identifier from the SHA-1 of its public key bits.
    if t.is_ca {
        exts.push(extension(
            OID_SUBJECT_KEY_ID,
            false,
            &tlv(der::OCTET_STRING, &sha1(public)),
        ));
    }
    if let Some(id) = issuer.and_then(|i| i.key_id.as_ref()) {
        if issuer_name != subject {
            exts.push(extension(
                OID_AUTHORITY_KEY_ID,
                false,
                &tlv(der::SEQUENCE, &tlv(0x80, id)),
            ));
        }
    }
    if !t.ips.is_empty() || !t.dns.is_empty() {
        let mut names = Vec::new();
        for dns in &t.dns {
            names.extend(tlv(0x82, dns.as_bytes()));
        }
        for ip in &t.ips {
            match ip {
                IpAddr::V4(v4) => names.extend(tlv(0x87, &v4.octets())),
                IpAddr::V6(v6) => names.extend(tlv(0x87, &v6.octets())),
            }
        }
        // RFC 5280: the SAN is critical when the subject is empty.
        exts.push(extension(
            OID_SUBJECT_ALT_NAME,
            t.cn.is_empty(),
            &tlv(der::SEQUENCE, &names),
        ));
    }

    let ext_refs: Vec<&[u8]> = exts.iter().map(Vec::as_slice).collect();
    let tbs = cons(
        der::SEQUENCE,
        &[
            &tlv(0xa0, &der::uint(&[2])),
            &der::uint(&serial),
            &signature_algorithm(signer),
            &issuer_name,
            &cons(der::SEQUENCE, &[&time(now)?, &time(not_after)?]),
            &subject,
            &cons(der::SEQUENCE, &[&key_algorithm, &der::bits(public)]),
            &tlv(0xa3, &cons(der::SEQUENCE, &ext_refs)),
        ],
    );
    let signature = sign(signer, &tbs)?;
    Ok(cons(
        der::SEQUENCE,
        &[&tbs, &signature_algorithm(signer), &der::bits(&signature)],
    ))
}

/// The SubjectPublicKeyInfo algorithm and key bits of a key, as Go writes them.
fn public_key(key: &PrivateKey) -> std::result::Result<(Vec<u8>, Vec<u8>), String> {
    match key {
        PrivateKey::Rsa(k) => {
            let doc = k
                .to_public_key()
                .to_pkcs1_der()
                .map_err(|e| format!("error creating certificate: {e}"))?;
            Ok((algorithm(OID_RSA_ENCRYPTION), doc.as_bytes().to_vec()))
        }
        PrivateKey::Ecdsa(k) => Ok((
            cons(der::SEQUENCE, &[&oid(OID_EC_PUBLIC_KEY), &oid(OID_P256)]),
            keys::ec_public_point(k),
        )),
        PrivateKey::Ed25519(seed) => Ok((
            cons(der::SEQUENCE, &[&oid(OID_ED25519)]),
            ed25519_dalek::SigningKey::from_bytes(seed)
                .verifying_key()
                .to_bytes()
                .to_vec(),
        )),
        PrivateKey::Other(kind) => Err(format!(
            "error retrieving public key from signee key: unsupported {kind}"
        )),
    }
}

/// Go's choice of signature algorithm for a signing key (SHA-256 for RSA and P-256).
fn signature_algorithm(key: &PrivateKey) -> Vec<u8> {
    match key {
        PrivateKey::Ecdsa(_) => cons(der::SEQUENCE, &[&oid(OID_ECDSA_WITH_SHA256)]),
        PrivateKey::Ed25519(_) => cons(der::SEQUENCE, &[&oid(OID_ED25519)]),
        PrivateKey::Rsa(_) | PrivateKey::Other(_) => algorithm(OID_SHA256_WITH_RSA),
    }
}

fn sign(key: &PrivateKey, tbs: &[u8]) -> std::result::Result<Vec<u8>, String> {
    match key {
        PrivateKey::Rsa(k) => {
            let mut digest_info = SHA256_DIGEST_INFO.to_vec();
            digest_info.extend_from_slice(&sha2::Sha256::digest(tbs));
            k.sign(Pkcs1v15Sign::new_unprefixed(), &digest_info)
                .map_err(|e| format!("error creating certificate: {e}"))
        }
        PrivateKey::Ecdsa(k) => {
            use p256::ecdsa::signature::Signer as _;
            let sig: p256::ecdsa::Signature = p256::ecdsa::SigningKey::from(k).sign(tbs);
            Ok(sig.to_der().as_bytes().to_vec())
        }
        PrivateKey::Ed25519(seed) => {
            use ed25519_dalek::Signer as _;
            Ok(ed25519_dalek::SigningKey::from_bytes(seed)
                .sign(tbs)
                .to_bytes()
                .to_vec())
        }
        PrivateKey::Other(kind) => Err(format!(
            "error creating certificate: cannot sign with {kind}"
        )),
    }
}

/// The parts of a certificate the signing functions need.
struct ParsedCert {
    subject: Vec<u8>,
    subject_key_id: Option<Vec<u8>>,
}

fn parse_certificate(bytes: &[u8]) -> std::result::Result<ParsedCert, String> {
    let cert = Reader::new(bytes).expect(der::SEQUENCE, "certificate")?;
    let mut parts = Reader::new(cert.content);
    let tbs = parts.expect(der::SEQUENCE, "tbs certificate")?;
    parts.expect(der::SEQUENCE, "signature algorithm")?;
    parts.expect(der::BIT_STRING, "signature")?;
    let mut r = Reader::new(tbs.content);
    let mut el = r.next()?;
    if el.tag == 0xa0 {
        el = r.next()?;
    }
    if el.tag != der::INTEGER {
        return Err("malformed serial number".into());
    }
    r.expect(der::SEQUENCE, "signature algorithm")?;
    r.expect(der::SEQUENCE, "issuer")?;
    r.expect(der::SEQUENCE, "validity")?;
    let subject = r.expect(der::SEQUENCE, "subject")?.raw.to_vec();
    r.expect(der::SEQUENCE, "public key")?;
    let mut subject_key_id = None;
    while !r.is_empty() {
        let el = r.next()?;
        if el.tag != 0xa3 {
            continue;
        }
        let list = Reader::new(el.content).expect(der::SEQUENCE, "extensions")?;
        let mut exts = Reader::new(list.content);
        while !exts.is_empty() {
            let ext = exts.expect(der::SEQUENCE, "extension")?;
            let mut f = Reader::new(ext.content);
            let id = f.expect(der::OID, "extension")?;
            let mut value = f.next()?;
            if value.tag == der::BOOLEAN {
                value = f.next()?;
            }
            if id.raw == oid(OID_SUBJECT_KEY_ID).as_slice() {
                let inner = Reader::new(value.content).expect(der::OCTET_STRING, "key id")?;
                subject_key_id = Some(inner.content.to_vec());
            }
        }
    }
    Ok(ParsedCert {
        subject,
        subject_key_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core06::SeedableRng as _;
    use std::process::Command;

    fn test_key(seed: u64) -> rsa::RsaPrivateKey {
        keys::generate_rsa(&mut ChaCha20Rng::seed_from_u64(seed), 1024).unwrap()
    }

    fn s(v: &str) -> Value {
        Value::String(v.to_string())
    }

    fn field(v: &Value, k: &str) -> String {
        match v {
            Value::Map(m) => match m.get(k) {
                Some(Value::String(s)) => s.clone(),
                _ => panic!("no {k}"),
            },
            _ => panic!("not a map"),
        }
    }

    fn openssl(args: &[&str], dir: &std::path::Path) -> String {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("this test needs the `openssl` command on PATH to check certificates");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "openssl {args:?} failed: {text}");
        text
    }

    #[test]
    fn dates_are_encoded_as_rfc5280_says() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(time(1_700_000_000).unwrap(), tlv(0x17, b"231114221320Z"));
        assert_eq!(time(2_600_000_000).unwrap(), tlv(0x18, b"20520522141320Z"));
        assert!(time(i64::MAX / 2).is_err());
    }

    #[test]
    fn ca_and_signed_certificates_parse_and_verify_with_openssl() {
        let ca_key = keys::rsa_pem(&test_key(1)).unwrap();
        let leaf_key = keys::rsa_pem(&test_key(2)).unwrap();
        let mut env = FuncEnv {
            rng_state: 9,
            now_unix: 1_700_000_000,
            lookups: 0,
            run: None,
        };
        let ca = gen_ca_with_key(&mut env, &[s("my-ca"), Value::Int(365), s(&ca_key)]).unwrap();
        assert_eq!(field(&ca, "Key"), ca_key);
        let leaf = gen_signed_cert_with_key(
            &mut env,
            &[
                s("leaf.example.com"),
                Value::List(vec![s("10.0.0.1"), s("::1")]),
                Value::List(vec![s("leaf.example.com"), s("*.example.com")]),
                Value::Int(30),
                ca.clone(),
                s(&leaf_key),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), field(&ca, "Cert")).unwrap();
        std::fs::write(dir.path().join("leaf.pem"), field(&leaf, "Cert")).unwrap();
        let text = openssl(&["x509", "-in", "ca.pem", "-text", "-noout"], dir.path());
        assert!(text.contains("Subject: CN = my-ca"), "{text}");
        assert!(text.contains("CA:TRUE"), "{text}");
        assert!(text.contains("Certificate Sign"), "{text}");
        assert!(
            text.contains("Not Before: Nov 14 22:13:20 2023 GMT"),
            "{text}"
        );
        assert!(
            text.contains("Not After : Nov 13 22:13:20 2024 GMT"),
            "{text}"
        );
        let text = openssl(&["x509", "-in", "leaf.pem", "-text", "-noout"], dir.path());
        assert!(text.contains("Issuer: CN = my-ca"), "{text}");
        assert!(
            text.contains("DNS:leaf.example.com, DNS:*.example.com, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1"),
            "{text}"
        );
        assert!(text.contains("TLS Web Server Authentication, TLS Web Client Authentication"));
        assert!(text.contains("X509v3 Authority Key Identifier"), "{text}");
        let text = openssl(
            &[
                "verify",
                "-attime",
                "1700000100",
                "-CAfile",
                "ca.pem",
                "leaf.pem",
            ],
            dir.path(),
        );
        assert!(text.contains("leaf.pem: OK"), "{text}");
    }

    #[test]
    fn same_seed_gives_same_bytes_and_custom_certs_round_trip() {
        let key = keys::rsa_pem(&test_key(3)).unwrap();
        let run = |seed| {
            let mut env = FuncEnv {
                rng_state: seed,
                now_unix: 1_700_000_000,
                lookups: 0,
                run: None,
            };
            gen_self_signed_cert_with_key(
                &mut env,
                &[s("x"), Value::Nil, Value::Nil, Value::Int(1), s(&key)],
            )
            .unwrap()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(field(&run(5), "Cert"), field(&run(6), "Cert"));
        let cert = run(5);
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut env = FuncEnv {
            rng_state: 0,
            now_unix: 0,
            lookups: 0,
            run: None,
        };
        let rebuilt = build_custom_cert(
            &mut env,
            &[
                s(&b64.encode(field(&cert, "Cert"))),
                s(&b64.encode(field(&cert, "Key"))),
            ],
        )
        .unwrap();
        assert_eq!(rebuilt, cert);
        let bad = build_custom_cert(&mut env, &[s("%%"), s("")]);
        assert_eq!(
            bad.err().map(|e| e.0).as_deref(),
            Some("unable to decode base64 certificate")
        );
    }

    #[test]
    fn helm_style_template_reaches_cert_and_key_fields() {
        use super::super::super::super::{ExecOptions, Set};
        let funcs = super::super::super::helm_functions()
            .into_iter()
            .map(|(n, f)| (n.to_string(), f))
            .collect();
        let mut set = Set::new("t", funcs);
        let text = r#"{{- $ca := genCA "root" 10 -}}
{{- $cert := genSignedCert "svc.ns.svc" (list "127.0.0.1") (list "svc" "svc.ns") 10 $ca -}}
{{- $self := genSelfSignedCert "self" nil nil 10 -}}
ca: {{ $ca.Cert | b64enc }}
crt: {{ $cert.Cert | b64enc }}
key: {{ $cert.Key | b64enc }}
self: {{ $self.Cert | b64enc }}
"#;
        set.add("t", text).unwrap();
        let render = |seed| {
            let mut env = FuncEnv {
                rng_state: seed,
                now_unix: 1_700_000_000,
                lookups: 0,
                run: None,
            };
            set.execute("t", &Value::Nil, &ExecOptions::default(), &mut env)
                .unwrap()
        };
        let out = render(11);
        assert_eq!(out, render(11), "same seed, same bytes");
        let b64 = base64::engine::general_purpose::STANDARD;
        let field = |name: &str| -> String {
            let line = out
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}: ")))
                .unwrap_or_else(|| panic!("no {name} in {out}"));
            String::from_utf8(b64.decode(line).unwrap()).unwrap()
        };
        assert!(field("key").starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), field("ca")).unwrap();
        std::fs::write(dir.path().join("crt.pem"), field("crt")).unwrap();
        std::fs::write(dir.path().join("self.pem"), field("self")).unwrap();
        std::fs::write(dir.path().join("key.pem"), field("key")).unwrap();
        let text = openssl(&["x509", "-in", "crt.pem", "-text", "-noout"], dir.path());
        assert!(text.contains("Public-Key: (2048 bit)"), "{text}");
        assert!(
            text.contains("DNS:svc, DNS:svc.ns, IP Address:127.0.0.1"),
            "{text}"
        );
        let text = openssl(
            &[
                "verify",
                "-attime",
                "1700000100",
                "-CAfile",
                "ca.pem",
                "crt.pem",
            ],
            dir.path(),
        );
        assert!(text.contains("crt.pem: OK"), "{text}");
        // The key in the map is the certificate's key.
        let from_cert = openssl(
            &["x509", "-in", "crt.pem", "-noout", "-modulus"],
            dir.path(),
        );
        let from_key = openssl(&["rsa", "-in", "key.pem", "-noout", "-modulus"], dir.path());
        assert_eq!(from_cert, from_key);
        let text = openssl(&["x509", "-in", "self.pem", "-text", "-noout"], dir.path());
        assert!(
            text.contains("Issuer: CN = self") && text.contains("CA:FALSE"),
            "{text}"
        );
    }

    #[test]
    fn ecdsa_and_ed25519_keys_sign_and_are_signed() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let ec_key = keys::ecdsa_pem(&mut rng);
        let ed_key = keys::ed25519_pem(&mut rng);
        let mut env = FuncEnv {
            rng_state: 3,
            now_unix: 1_700_000_000,
            lookups: 0,
            run: None,
        };
        let ca = gen_ca_with_key(&mut env, &[s("ec-ca"), Value::Int(5), s(&ec_key)]).unwrap();
        assert_eq!(field(&ca, "Key"), ec_key);
        let leaf = gen_signed_cert_with_key(
            &mut env,
            &[
                s("ed-leaf"),
                Value::Nil,
                Value::List(vec![s("ed.example")]),
                Value::Int(5),
                ca.clone(),
                s(&ed_key),
            ],
        )
        .unwrap();
        assert_eq!(field(&leaf, "Key"), ed_key);
        let ed_ca = gen_ca_with_key(&mut env, &[s("ed-ca"), Value::Int(5), s(&ed_key)]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), field(&ca, "Cert")).unwrap();
        std::fs::write(dir.path().join("leaf.pem"), field(&leaf, "Cert")).unwrap();
        std::fs::write(dir.path().join("edca.pem"), field(&ed_ca, "Cert")).unwrap();
        let text = openssl(&["x509", "-in", "ca.pem", "-text", "-noout"], dir.path());
        assert!(
            text.contains("ecdsa-with-SHA256") && text.contains("NIST CURVE: P-256"),
            "{text}"
        );
        let text = openssl(&["x509", "-in", "leaf.pem", "-text", "-noout"], dir.path());
        assert!(text.contains("Public Key Algorithm: ED25519"), "{text}");
        let at = ["-attime", "1700000100"];
        let text = openssl(
            &["verify", at[0], at[1], "-CAfile", "ca.pem", "leaf.pem"],
            dir.path(),
        );
        assert!(text.contains("leaf.pem: OK"), "{text}");
        let text = openssl(
            &["verify", at[0], at[1], "-CAfile", "edca.pem", "edca.pem"],
            dir.path(),
        );
        assert!(text.contains("edca.pem: OK"), "{text}");
    }

    #[test]
    fn bad_arguments_are_errors_not_panics() {
        let mut env = FuncEnv {
            rng_state: 0,
            now_unix: 0,
            lookups: 0,
            run: None,
        };
        let r = gen_self_signed_cert_with_key(
            &mut env,
            &[
                s("x"),
                Value::List(vec![s("nope")]),
                Value::Nil,
                Value::Int(1),
                s(""),
            ],
        );
        assert!(r.is_err());
        let r = gen_signed_cert(
            &mut env,
            &[s("x"), Value::Nil, Value::Nil, Value::Int(1), Value::Int(3)],
        );
        assert!(r
            .err()
            .is_some_and(|e| e.0.contains("expected sprig.certificate")));
    }
}
