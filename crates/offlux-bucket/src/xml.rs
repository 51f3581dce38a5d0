//! The XML documents S3 answers with that a read needs: a ListObjectsV2 page
//! (`ListBucketResult`), an error (`Error`) and a bucket's `LocationConstraint`. Read as a stream,
//! element text only, with nothing resolved beyond XML's five entities and character references
//! (a document type declaration is refused), nesting bounded, and a listing read no further than
//! its caller's object limit: a hostile server gets an error, never a panic or an unbounded
//! allocation beyond the body it sent. Not for: writing XML, the parts of these documents a read
//! does not use (owners, storage classes, common prefixes).

use quick_xml::events::Event;
use quick_xml::Reader;

/// Deeper than any S3 document nests.
const MAX_DEPTH: usize = 16;

/// One page of a ListObjectsV2 listing.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ListPage {
    pub(crate) objects: Vec<Listed>,
    pub(crate) is_truncated: bool,
    pub(crate) next_continuation_token: Option<String>,
}

/// One `Contents` entry, its key decoded when the page says `EncodingType` `url`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Listed {
    pub(crate) key: String,
    /// As sent, quotes included.
    pub(crate) etag: String,
    pub(crate) size: u64,
}

/// An S3 error document's fields a caller reports or acts on.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorDoc {
    pub(crate) code: String,
    pub(crate) message: String,
    pub(crate) region: String,
}

/// A `ListBucketResult` with at most `limit + 1` objects read (one past the limit tells the
/// caller it was exceeded; the rest of the document is not read).
pub(crate) fn list_page(body: &[u8], limit: usize) -> Result<ListPage, String> {
    let mut page = ListPage::default();
    let mut current = Listed::default();
    let mut has_key = false;
    let mut url_encoded = false;
    walk(body, "ListBucketResult", |path, text| {
        let Some(text) = text else {
            if path == ["ListBucketResult", "Contents"] {
                current = Listed::default();
                has_key = false;
            }
            return Ok(true);
        };
        match path {
            ["ListBucketResult", "IsTruncated"] => page.is_truncated = parse_bool(text)?,
            ["ListBucketResult", "NextContinuationToken"] => {
                page.next_continuation_token = Some(text.to_string());
            }
            ["ListBucketResult", "EncodingType"] => url_encoded = text == "url",
            ["ListBucketResult", "Contents", "Key"] => {
                current.key = text.to_string();
                has_key = true;
            }
            ["ListBucketResult", "Contents", "ETag"] => current.etag = text.to_string(),
            ["ListBucketResult", "Contents", "Size"] => {
                current.size = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("object size `{text}` is not a number"))?;
            }
            ["ListBucketResult", "Contents"] => {
                if !has_key {
                    return Err("an object without a <Key>".to_string());
                }
                page.objects.push(std::mem::take(&mut current));
                return Ok(page.objects.len() <= limit);
            }
            _ => {}
        }
        Ok(true)
    })?;
    // `EncodingType` may come after the keys: decode them once the page is read.
    if url_encoded {
        for object in &mut page.objects {
            object.key = query_unescape(&object.key)
                .ok_or_else(|| format!("object key `{}` is not URL-encoded UTF-8", object.key))?;
        }
    }
    Ok(page)
}

/// An `Error` document.
pub(crate) fn error_doc(body: &[u8]) -> Result<ErrorDoc, String> {
    let mut doc = ErrorDoc::default();
    walk(body, "Error", |path, text| {
        match (path, text) {
            (["Error", "Code"], Some(text)) => doc.code = text.trim().to_string(),
            (["Error", "Message"], Some(text)) => doc.message = text.trim().to_string(),
            (["Error", "Region"], Some(text)) => doc.region = text.trim().to_string(),
            _ => {}
        }
        Ok(true)
    })?;
    Ok(doc)
}

/// The text of a `LocationConstraint` document (empty for `us-east-1`).
pub(crate) fn location(body: &[u8]) -> Result<String, String> {
    let mut region = String::new();
    walk(body, "LocationConstraint", |path, text| {
        if let (["LocationConstraint"], Some(text)) = (path, text) {
            region = text.trim().to_string();
        }
        Ok(true)
    })?;
    Ok(region)
}

/// Reads `body`, whose root element must be `root`, calling `visit` with the path of local
/// element names at each element's start (text `None`) and end (its text, meaningful for leaf
/// elements). `visit` returns `false` to stop reading.
fn walk(
    body: &[u8],
    root: &str,
    mut visit: impl FnMut(&[&str], Option<&str>) -> Result<bool, String>,
) -> Result<(), String> {
    let mut reader = Reader::from_reader(body);
    reader.config_mut().expand_empty_elements = true;
    let mut names: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut seen_root = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("malformed XML at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Start(start) => {
                let name = String::from_utf8_lossy(start.local_name().as_ref()).into_owned();
                if names.is_empty() {
                    if seen_root {
                        return Err("more than one root element".to_string());
                    }
                    if name != root {
                        return Err(format!("expected <{root}>, found <{name}>"));
                    }
                    seen_root = true;
                }
                if names.len() >= MAX_DEPTH {
                    return Err(format!("elements nested deeper than {MAX_DEPTH}"));
                }
                names.push(name);
                text.clear();
                let path: Vec<&str> = names.iter().map(String::as_str).collect();
                if !visit(&path, None)? {
                    return Ok(());
                }
            }
            Event::End(_) => {
                let path: Vec<&str> = names.iter().map(String::as_str).collect();
                if !visit(&path, Some(&text))? {
                    return Ok(());
                }
                names.pop();
                text.clear();
            }
            Event::Text(chunk) if !names.is_empty() => {
                let chunk = chunk
                    .xml10_content()
                    .map_err(|e| format!("malformed XML text: {e}"))?;
                text.push_str(&chunk);
            }
            Event::CData(chunk) if !names.is_empty() => {
                let chunk = chunk
                    .decode()
                    .map_err(|e| format!("malformed XML text: {e}"))?;
                text.push_str(&chunk);
            }
            Event::GeneralRef(reference) => {
                let resolved = match reference
                    .resolve_char_ref()
                    .map_err(|e| format!("malformed XML character reference: {e}"))?
                {
                    Some(c) => c.to_string(),
                    None => {
                        let name = reference
                            .decode()
                            .map_err(|e| format!("malformed XML entity: {e}"))?;
                        quick_xml::escape::resolve_xml_entity(&name)
                            .ok_or_else(|| format!("unknown XML entity `&{name};`"))?
                            .to_string()
                    }
                };
                if !names.is_empty() {
                    text.push_str(&resolved);
                }
            }
            Event::DocType(_) => {
                return Err("a document type declaration is not accepted".to_string());
            }
            Event::Eof => {
                if !seen_root {
                    return Err(format!("no <{root}> element"));
                }
                if let Some(open) = names.last() {
                    return Err(format!("<{open}> is not closed"));
                }
                return Ok(());
            }
            // Declarations, comments, processing instructions, whitespace outside the root.
            _ => {}
        }
    }
}

fn parse_bool(text: &str) -> Result<bool, String> {
    // Go's `encoding/xml` (minio-go's reader) takes what `strconv.ParseBool` takes.
    match text.trim() {
        "true" | "TRUE" | "True" | "t" | "T" | "1" => Ok(true),
        "false" | "FALSE" | "False" | "f" | "F" | "0" => Ok(false),
        other => Err(format!("<IsTruncated> `{other}` is not a boolean")),
    }
}

/// `text` with `%XY` decoded and `+` read as a space, as Go's `url.QueryUnescape` (minio-go's
/// decoder of listed keys) reads it; `None` for a bad escape or bytes that are not UTF-8.
fn query_unescape(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name>
  <Prefix>apps/</Prefix>
  <KeyCount>2</KeyCount>
  <MaxKeys>2</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <Contents>
    <Key>apps/a.yaml</Key>
    <LastModified>2024-01-01T00:00:00.000Z</LastModified>
    <ETag>&quot;0cc175b9c0f1b6a831c399e269772661&quot;</ETag>
    <Size>1</Size>
    <Owner><ID>x</ID><DisplayName>y</DisplayName></Owner>
    <StorageClass>STANDARD</StorageClass>
  </Contents>
  <Contents>
    <Key>apps/dir/b c.yaml</Key>
    <ETag>"92eb5ffee6ae2fec3ad71c777531578f-2"</ETag>
    <Size>12345678901</Size>
  </Contents>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
</ListBucketResult>"#;

    #[test]
    fn a_page() {
        let page = list_page(PAGE.as_bytes(), 10).unwrap();
        assert_eq!(
            page,
            ListPage {
                objects: vec![
                    Listed {
                        key: "apps/a.yaml".into(),
                        etag: "\"0cc175b9c0f1b6a831c399e269772661\"".into(),
                        size: 1,
                    },
                    Listed {
                        key: "apps/dir/b c.yaml".into(),
                        etag: "\"92eb5ffee6ae2fec3ad71c777531578f-2\"".into(),
                        size: 12_345_678_901,
                    },
                ],
                is_truncated: true,
                next_continuation_token: Some(
                    "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=".into()
                ),
            }
        );
    }

    #[test]
    fn the_last_page_and_an_empty_one() {
        let page = list_page(
            b"<ListBucketResult><IsTruncated>false</IsTruncated>\
              <Contents><Key>k</Key><Size>0</Size><ETag/></Contents></ListBucketResult>",
            10,
        )
        .unwrap();
        assert!(!page.is_truncated);
        assert_eq!(page.next_continuation_token, None);
        assert_eq!(page.objects[0].key, "k");
        assert_eq!(page.objects[0].etag, "");

        let page = list_page(b"<ListBucketResult/>", 10).unwrap();
        assert_eq!(page, ListPage::default());
    }

    #[test]
    fn url_encoded_keys_are_decoded() {
        let page = list_page(
            b"<ListBucketResult><Contents><Key>a%20b+c%2Bd/%C3%A9%0A</Key></Contents>\
              <EncodingType>url</EncodingType></ListBucketResult>",
            10,
        )
        .unwrap();
        assert_eq!(page.objects[0].key, "a b c+d/\u{e9}\n");

        // Without `EncodingType` the key is as written.
        let page = list_page(
            b"<ListBucketResult><Contents><Key>a%20b+c</Key></Contents></ListBucketResult>",
            10,
        )
        .unwrap();
        assert_eq!(page.objects[0].key, "a%20b+c");

        for bad in ["%", "%4", "%zz", "%C3"] {
            let body = format!(
                "<ListBucketResult><EncodingType>url</EncodingType>\
                 <Contents><Key>{bad}</Key></Contents></ListBucketResult>"
            );
            let error = list_page(body.as_bytes(), 10).unwrap_err();
            assert!(error.contains("not URL-encoded"), "{error}");
        }
    }

    #[test]
    fn entities_and_cdata_in_keys() {
        let page = list_page(
            b"<ListBucketResult><Contents><Key>&lt;a&amp;b&gt;&#x41;&#66;<![CDATA[<c>]]></Key>\
              </Contents></ListBucketResult>",
            10,
        )
        .unwrap();
        assert_eq!(page.objects[0].key, "<a&b>AB<c>");
    }

    #[test]
    fn reading_stops_one_past_the_limit() {
        let mut body = String::from("<ListBucketResult>");
        for i in 0..100 {
            body.push_str(&format!("<Contents><Key>k{i}</Key></Contents>"));
        }
        // Past the limit the document is not read, so this is never seen.
        body.push_str("<Contents><Key>&bogus;</Key>");
        let page = list_page(body.as_bytes(), 3).unwrap();
        assert_eq!(page.objects.len(), 4);
        assert_eq!(
            list_page(body.as_bytes(), 1000).unwrap_err(),
            "unknown XML entity `&bogus;`"
        );
    }

    #[test]
    fn malformed_documents_are_errors() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "no <ListBucketResult> element"),
            (b"not xml at all", "no <ListBucketResult> element"),
            (b"<Error><Code>AccessDenied</Code></Error>", "expected <ListBucketResult>, found <Error>"),
            (b"<ListBucketResult><Contents><Key>k</Key>", "not closed"),
            (b"<ListBucketResult><Contents><Key>k</Size></Contents></ListBucketResult>", "malformed XML"),
            (b"<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>", "without a <Key>"),
            (b"<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>", "not a number"),
            (b"<ListBucketResult><Contents><Key>k</Key><Size>99999999999999999999</Size></Contents></ListBucketResult>", "not a number"),
            (b"<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>", "not a boolean"),
            (b"<ListBucketResult></ListBucketResult><ListBucketResult></ListBucketResult>", "more than one root"),
            (b"<!DOCTYPE x [<!ENTITY e \"boom\">]><ListBucketResult><Contents><Key>&e;</Key></Contents></ListBucketResult>", "document type declaration"),
            (b"<ListBucketResult><Contents><Key>&e;</Key></Contents></ListBucketResult>", "unknown XML entity"),
            (b"<ListBucketResult><Contents><Key>&#0;</Key></Contents></ListBucketResult>", "character reference"),
            (b"<ListBucketResult><Contents><Key>\xff\xfe</Key></Contents></ListBucketResult>", "malformed XML"),
            (b"<ListBucketResult><Contents><Key>k</Key></Contents", "malformed XML"),
        ];
        for (body, expected) in cases {
            let error = list_page(body, 10)
                .map(|page| format!("{page:?}"))
                .expect_err(&String::from_utf8_lossy(body));
            assert!(
                error.contains(expected),
                "{}: {error}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let mut body = String::from("<ListBucketResult>");
        body.push_str(&"<a>".repeat(100_000));
        let error = list_page(body.as_bytes(), 10).unwrap_err();
        assert!(error.contains("nested deeper"), "{error}");
    }

    #[test]
    fn error_documents() {
        let doc = error_doc(
            br#"<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>AccessDenied</Code><Message>Access Denied</Message>
<RequestId>4442587FB7D0A2F9</RequestId><Region>eu-west-1</Region></Error>"#,
        )
        .unwrap();
        assert_eq!(
            doc,
            ErrorDoc {
                code: "AccessDenied".into(),
                message: "Access Denied".into(),
                region: "eu-west-1".into(),
            }
        );
        assert!(error_doc(b"<html><body>502 Bad Gateway</body></html>").is_err());
    }

    #[test]
    fn location_documents() {
        assert_eq!(
            location(br#"<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">eu-west-1</LocationConstraint>"#)
                .unwrap(),
            "eu-west-1"
        );
        assert_eq!(location(b"<LocationConstraint/>").unwrap(), "");
        assert!(location(b"<Other/>").is_err());
    }
}
