//! `offlux-bucket` against a real S3-compatible server: moto in server mode on loopback, with
//! IAM authentication enforced once the buckets, objects and a user are made, so every signature
//! is checked by botocore's own signer. `moto_server` is taken from `OFFLUX_MOTO_SERVER` or PATH;
//! without it the test returns, unless `OFFLUX_REQUIRE_TEST_DATA` is set (CI), where it fails.

#![allow(
    clippy::disallowed_methods,
    reason = "the test is told by the environment where moto_server is and whether it must run"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test states what it expects by unwrapping, helpers included"
)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use offlux_bucket::{
    bucket_exists, bucket_region, get_object, list_objects, BucketError, Credentials, Endpoint,
};
use offlux_net::{Client, ClientOptions, NetError};

const INSTALL: &str = "python3 -m venv /tmp/motovenv && /tmp/motovenv/bin/pip install \
                       'moto[server]>=5.2.6', then put /tmp/motovenv/bin on PATH or set \
                       OFFLUX_MOTO_SERVER=/tmp/motovenv/bin/moto_server";

/// The objects of bucket `flux`, in the order S3 lists them (by UTF-8 bytes).
const OBJECTS: &[(&str, &str)] = &[
    ("README.md", "# fleet\n"),
    ("apps/a b+c&d=e%f.yaml", "kind: ConfigMap\n"),
    ("apps/base/kustomization.yaml", "resources: []\n"),
    ("apps/\u{fc}n\u{ef}c\u{f8}d\u{e9}.yaml", "x: 1\n"),
    (
        "clusters/prod/flux-system/gotk-sync.yaml",
        "kind: Kustomization\n",
    ),
];

fn moto_server() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("OFFLUX_MOTO_SERVER").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "OFFLUX_MOTO_SERVER names `{}`, which is not a file ({INSTALL})",
            path.display()
        );
        return Some(path);
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("moto_server"))
            .find(|p| p.is_file())
    });
    assert!(
        found.is_some() || !required(),
        "the moto test needs `moto_server` and OFFLUX_REQUIRE_TEST_DATA is set ({INSTALL})"
    );
    found
}

/// Whether CI asks for every check (`OFFLUX_REQUIRE_TEST_DATA`).
fn required() -> bool {
    std::env::var_os("OFFLUX_REQUIRE_TEST_DATA").is_some_and(|v| !v.is_empty() && v != "0")
}

/// A line on the terminal, past the test harness's capture.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// A running `moto_server`, stopped when dropped.
struct Moto {
    child: Child,
    log: PathBuf,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

impl Moto {
    fn start(server: &Path) -> Moto {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = std::env::temp_dir().join(format!("offlux-bucket-moto-{port}.log"));
        let child = Command::new(server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            // Two keys a page, so a listing of a few objects takes several pages.
            .env("MOTO_S3_DEFAULT_MAX_KEYS", "2")
            // No authentication until `enforce_auth`.
            .env("INITIAL_NO_AUTH_ACTION_COUNT", "inf")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut moto = Moto { child, log, port };
        let deadline = Instant::now() + Duration::from_secs(60);
        while raw(&moto, "GET", "/moto-api/", &[], b"").is_none() {
            if let Some(status) = moto.child.try_wait().unwrap() {
                panic!(
                    "moto_server exited with {status}: {}",
                    std::fs::read_to_string(&moto.log).unwrap_or_default()
                );
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer in 60 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        moto
    }

    fn endpoint(&self, credentials: Option<Credentials>) -> Endpoint {
        Endpoint {
            endpoint: format!("127.0.0.1:{}", self.port),
            insecure: true,
            region: None,
            credentials,
        }
    }
}

/// A request outside the crate under test (making buckets, objects and users): status and body,
/// `None` when nothing answered.
fn raw(
    moto: &Moto,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Option<(u16, String)> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    let url = format!("http://127.0.0.1:{}{path}", moto.port);
    let mut request = ureq::http::Request::builder().method(method).uri(&url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = agent.run(request.body(body.to_vec()).unwrap()).ok()?;
    let status = response.status().as_u16();
    Some((status, response.into_body().read_to_string().unwrap()))
}

/// An `Authorization` moto routes by (service and region) while it checks no signature.
fn routing(service: &str, region: &str) -> String {
    format!(
        "AWS4-HMAC-SHA256 Credential=setup/20240101/{region}/{service}/aws4_request, \
         SignedHeaders=host, Signature=0"
    )
}

fn encode(text: &str, keep_slash: bool) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && b == b'/') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn s3(moto: &Moto, method: &str, path: &str, region: &str, body: &[u8]) {
    s3_with(moto, method, path, region, &[], body);
}

fn s3_with(
    moto: &Moto,
    method: &str,
    path: &str,
    region: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) {
    let auth = routing("s3", region);
    let mut all = vec![
        ("authorization", auth.as_str()),
        ("content-type", "application/octet-stream"),
    ];
    all.extend_from_slice(headers);
    let (status, text) = raw(moto, method, path, &all, body).unwrap();
    assert_eq!(status, 200, "{method} {path}: {text}");
}

fn iam(moto: &Moto, params: &[(&str, &str)]) -> String {
    let auth = routing("iam", "us-east-1");
    let mut form = String::from("Version=2010-05-08");
    for (name, value) in params {
        form.push_str(&format!("&{name}={}", encode(value, false)));
    }
    let (status, text) = raw(
        moto,
        "POST",
        "/",
        &[
            ("authorization", &auth),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        form.as_bytes(),
    )
    .unwrap();
    assert_eq!(status, 200, "IAM {params:?}: {text}");
    text
}

fn element<'t>(xml: &'t str, name: &str) -> &'t str {
    let start = xml.find(&format!("<{name}>")).unwrap() + name.len() + 2;
    let end = xml[start..].find(&format!("</{name}>")).unwrap();
    &xml[start..start + end]
}

fn server_code(result: Result<impl std::fmt::Debug, BucketError>) -> (String, u16, String) {
    match result {
        Err(error @ BucketError::Server { status, .. }) => {
            (error.code().unwrap().to_string(), status, error.to_string())
        }
        other => panic!("expected a server error, got {other:?}"),
    }
}

#[test]
fn moto() {
    let Some(server) = moto_server() else {
        return;
    };
    let moto = Moto::start(&server);

    // Setup, unauthenticated: buckets, objects, a user whose policy denies one bucket.
    s3(&moto, "PUT", "/flux", "us-east-1", b"");
    for (key, content) in OBJECTS {
        // One object anonymous requests may read, as on S3.
        let acl: &[(&str, &str)] = if *key == "README.md" {
            &[("x-amz-acl", "public-read")]
        } else {
            &[]
        };
        s3_with(
            &moto,
            "PUT",
            &format!("/flux/{}", encode(key, true)),
            "us-east-1",
            acl,
            content.as_bytes(),
        );
    }
    s3(
        &moto,
        "PUT",
        "/eu-bucket",
        "eu-west-1",
        b"<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint>\
          </CreateBucketConfiguration>",
    );
    s3(&moto, "PUT", "/secret-bucket", "us-east-1", b"");
    s3(&moto, "PUT", "/secret-bucket/key", "us-east-1", b"secret");
    iam(&moto, &[("Action", "CreateUser"), ("UserName", "reader")]);
    let keys = iam(
        &moto,
        &[("Action", "CreateAccessKey"), ("UserName", "reader")],
    );
    let credentials = Credentials {
        access_key: element(&keys, "AccessKeyId").to_string(),
        secret_key: element(&keys, "SecretAccessKey").to_string(),
    };
    let policy = r#"{"Version":"2012-10-17","Statement":[
        {"Effect":"Allow","Action":"s3:*","Resource":"*"},
        {"Effect":"Deny","Action":"s3:*","Resource":["arn:aws:s3:::secret-bucket","arn:aws:s3:::secret-bucket/*"]}]}"#;
    iam(
        &moto,
        &[
            ("Action", "PutUserPolicy"),
            ("UserName", "reader"),
            ("PolicyName", "read"),
            ("PolicyDocument", policy),
        ],
    );
    // moto pages as configured, so the listings below follow continuation tokens.
    let (_, first_page) = raw(&moto, "GET", "/flux/?list-type=2", &[], b"").unwrap();
    assert!(
        first_page.contains("<IsTruncated>true</IsTruncated>"),
        "{first_page}"
    );

    let client = Client::new(&ClientOptions {
        allow_private_network: true,
        ..ClientOptions::default()
    });
    let want: Vec<&str> = OBJECTS.iter().map(|(key, _)| *key).collect();

    // Anonymous, while moto checks nothing.
    let anonymous = moto.endpoint(None);
    let listed = list_objects(&client, &anonymous, "flux", "", 100).unwrap();
    assert_eq!(
        listed.iter().map(|o| o.key.as_str()).collect::<Vec<_>>(),
        want
    );
    let object = get_object(&client, &anonymous, "flux", "README.md")
        .unwrap()
        .unwrap();
    assert_eq!(object.data, b"# fleet\n");
    // A private object: moto answers 403 without a body, named as minio-go names it.
    let (code, status, _) = server_code(get_object(&client, &anonymous, "flux", OBJECTS[2].0));
    assert_eq!((code.as_str(), status), ("AccessDenied", 403));

    // From here every request must carry a valid signature of a known key.
    let (status, text) = raw(&moto, "POST", "/moto-api/reset-auth", &[], b"0").unwrap();
    assert_eq!(status, 200, "{text}");
    let signed = moto.endpoint(Some(credentials.clone()));

    // moto 5.2.1 checks a signature against the request as its web framework re-spells it (`+`,
    // `&`, `=` and a query's `/` left bare, non-ASCII decoded), where S3 and every AWS SDK sign
    // what is sent, encoded; 5.2.6 checks what is sent.
    get_object(&client, &signed, "flux", "README.md").unwrap();
    if let Err(error) = get_object(&client, &signed, "flux", OBJECTS[1].0) {
        let why = format!(
            "this moto_server checks signatures against re-encoded paths ({error}): \
             {INSTALL}"
        );
        assert!(!required(), "{why}");
        say(&format!("moto: signed requests not checked: {why}"));
        return;
    }

    assert_eq!(
        bucket_region(&client, &signed, "flux").unwrap(),
        "us-east-1"
    );
    assert_eq!(
        bucket_region(&client, &signed, "eu-bucket").unwrap(),
        "eu-west-1"
    );
    // minio-go reads AccessDenied on `?location` as the default region, not as a failure.
    assert_eq!(
        bucket_region(&client, &signed, "secret-bucket").unwrap(),
        "us-east-1"
    );
    let (code, status, _) = server_code(bucket_region(&client, &signed, "missing-bucket"));
    assert_eq!((code.as_str(), status), ("NoSuchBucket", 404));
    let in_eu = Endpoint {
        region: Some("eu-west-1".to_string()),
        ..signed.clone()
    };
    assert!(bucket_exists(&client, &in_eu, "eu-bucket").unwrap());

    assert!(bucket_exists(&client, &signed, "flux").unwrap());
    assert!(!bucket_exists(&client, &signed, "missing-bucket").unwrap());

    // Every page, in the server's order, ETags unquoted and equal to the objects'.
    let listed = list_objects(&client, &signed, "flux", "", 100).unwrap();
    assert_eq!(
        listed.iter().map(|o| o.key.as_str()).collect::<Vec<_>>(),
        want
    );
    for (info, (key, content)) in listed.iter().zip(OBJECTS) {
        assert_eq!(info.size, content.len() as u64, "{key}");
        assert!(
            info.etag.len() == 32 && info.etag.bytes().all(|b| b.is_ascii_hexdigit()),
            "{key}: {}",
            info.etag
        );
        let object = get_object(&client, &signed, "flux", key).unwrap().unwrap();
        assert_eq!(object.data, content.as_bytes(), "{key}");
        assert_eq!(object.etag, info.etag, "{key}");
    }

    let apps = list_objects(&client, &signed, "flux", "apps/", 100).unwrap();
    assert_eq!(
        apps.iter().map(|o| o.key.as_str()).collect::<Vec<_>>(),
        &want[1..4]
    );
    assert!(list_objects(&client, &signed, "flux", "nothing/", 100)
        .unwrap()
        .is_empty());

    // Exactly the limit is fine; one more object is an error.
    assert_eq!(
        list_objects(&client, &signed, "flux", "", 5).unwrap().len(),
        5
    );
    for limit in [0, 1, 2, 3, 4] {
        assert!(
            matches!(
                list_objects(&client, &signed, "flux", "", limit),
                Err(BucketError::TooManyObjects { limit: l, .. }) if l == limit
            ),
            "{limit}"
        );
    }

    assert!(get_object(&client, &signed, "flux", "apps/missing.yaml")
        .unwrap()
        .is_none());
    let (code, status, _) = server_code(get_object(&client, &signed, "missing-bucket", "k"));
    assert_eq!((code.as_str(), status), ("NoSuchBucket", 404));
    let (code, status, _) = server_code(list_objects(&client, &signed, "missing-bucket", "", 10));
    assert_eq!((code.as_str(), status), ("NoSuchBucket", 404));

    // Refusals name their code and the URL.
    let (code, status, message) =
        server_code(list_objects(&client, &signed, "secret-bucket", "", 10));
    assert_eq!((code.as_str(), status), ("AccessDenied", 403));
    assert!(
        message.contains(&format!("http://127.0.0.1:{}/secret-bucket/?", moto.port)),
        "{message}"
    );
    let (code, status, _) = server_code(get_object(&client, &signed, "secret-bucket", "key"));
    assert_eq!((code.as_str(), status), ("AccessDenied", 403));

    let wrong_secret = moto.endpoint(Some(Credentials {
        secret_key: "not-the-secret".to_string(),
        ..credentials.clone()
    }));
    let (code, status, message) = server_code(bucket_exists(&client, &wrong_secret, "flux"));
    assert_eq!((code.as_str(), status), ("SignatureDoesNotMatch", 403));
    assert!(message.contains("/flux/?"), "{message}");
    let (code, _, _) = server_code(get_object(&client, &wrong_secret, "flux", "README.md"));
    assert_eq!(code, "SignatureDoesNotMatch");

    let unknown_key = moto.endpoint(Some(Credentials {
        access_key: "AKIAIOSFODNN7EXAMPLE".to_string(),
        secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_string(),
    }));
    let (code, status, _) = server_code(list_objects(&client, &unknown_key, "flux", "", 10));
    assert_eq!((code.as_str(), status), ("InvalidAccessKeyId", 403));

    // A body past the client's cap is an error, and not one of reach.
    let small = Client::new(&ClientOptions {
        allow_private_network: true,
        max_bytes: 4,
        ..ClientOptions::default()
    });
    let error = get_object(&small, &signed, "flux", "README.md").unwrap_err();
    assert!(
        matches!(error, BucketError::Net(NetError::TooLarge { .. })),
        "{error}"
    );
    assert!(!error.is_unreachable());

    // The egress policy: loopback is refused unless private networks are allowed.
    let guarded = Client::new(&ClientOptions::default());
    let error = list_objects(&guarded, &signed, "flux", "", 10).unwrap_err();
    assert!(error.is_unreachable(), "{error}");
    assert!(error.to_string().contains("refused"), "{error}");

    // Nothing listening: unreachable too.
    let closed = Endpoint {
        endpoint: "127.0.0.1:1".to_string(),
        ..signed.clone()
    };
    let error = bucket_exists(&client, &closed, "flux").unwrap_err();
    assert!(error.is_unreachable(), "{error}");
}
