//! gix-transport's blocking `Http` on `offlux_net::Client`: each request goes through the guarded
//! client and its answer is read whole (capped), then handed to gix as in-memory readers. A POST
//! body is gathered as gix writes it and sent on the first read of the answer (fetch requests
//! are small: wants, haves, `deepen 1`, `done`). A `401` surfaces as `PermissionDenied` when the
//! headers are read, which is what gix's handshake looks for; any other status that is not a
//! success is an error naming it.

use std::any::Any;
use std::io::{self, BufRead, Cursor, Read, Write};
use std::sync::{Arc, Mutex};

use gix::protocol::transport::client::blocking_io::http::{
    self as ghttp, GetResponse, Http, PostBodyDataKind, PostResponse,
};
use offlux_net::{Client, NetError, Reply};

/// The transport: the guarded client and the headers every request carries (authorization).
pub(crate) struct GuardedHttp {
    client: Arc<Client>,
    headers: Vec<(String, String)>,
}

impl GuardedHttp {
    pub(crate) fn new(client: Arc<Client>, authorization: Option<String>) -> GuardedHttp {
        GuardedHttp {
            client,
            headers: authorization
                .map(|a| vec![("Authorization".to_owned(), a)])
                .unwrap_or_default(),
        }
    }

    fn headers(&self, given: impl IntoIterator<Item = impl AsRef<str>>) -> Vec<(String, String)> {
        given
            .into_iter()
            .filter_map(|line| {
                let (name, value) = line.as_ref().split_once(':')?;
                Some((name.trim().to_owned(), value.trim().to_owned()))
            })
            .chain(self.headers.iter().cloned())
            .collect()
    }
}

/// An answer as gix reads it: header lines and body, or the error reading them raises.
type Answer = Result<(Vec<u8>, Vec<u8>), io::Error>;

fn answer(url: &str, reply: Result<Reply, NetError>) -> Answer {
    let reply = reply.map_err(io::Error::other)?;
    if reply.status == 401 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{url}: HTTP status 401 (unauthorized)"),
        ));
    }
    if !(200..300).contains(&reply.status) {
        let reason = match reply.status {
            403 => " (forbidden)",
            404 => " (not found)",
            _ => "",
        };
        return Err(io::Error::other(format!(
            "{url}: HTTP status {}{reason}",
            reply.status
        )));
    }
    let mut headers = Vec::new();
    for (name, value) in &reply.headers {
        headers.extend_from_slice(name.as_bytes());
        headers.extend_from_slice(b": ");
        headers.extend_from_slice(value.as_bytes());
        headers.push(b'\n');
    }
    Ok((headers, reply.body))
}

/// A POST waiting for its body, then its answer.
pub(crate) struct Post {
    client: Arc<Client>,
    url: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    answer: Option<Answer>,
}

impl Post {
    /// The answer's part (`headers` or body), sending the request the first time.
    fn take(&mut self, headers: bool) -> io::Result<Vec<u8>> {
        if self.answer.is_none() {
            let headers: Vec<(&str, String)> = self
                .headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.clone()))
                .collect();
            let reply = self.client.post(&self.url, &headers, &self.body);
            self.answer = Some(answer(&self.url, reply));
        }
        match &mut self.answer {
            Some(Ok((h, b))) => Ok(std::mem::take(if headers { h } else { b })),
            Some(Err(e)) => Err(io::Error::new(e.kind(), e.to_string())),
            None => Err(io::Error::other("no answer")),
        }
    }
}

fn locked(post: &Mutex<Post>) -> std::sync::MutexGuard<'_, Post> {
    post.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) struct PostBody(Arc<Mutex<Post>>);

impl Write for PostBody {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        locked(&self.0).body.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Headers or a body: ready bytes, an error to raise, or a POST's part still to come.
pub(crate) enum Part {
    Ready(Cursor<Vec<u8>>),
    Failed(Option<io::Error>),
    Pending {
        post: Arc<Mutex<Post>>,
        headers: bool,
    },
}

impl Part {
    fn of(answer: &Answer, headers: bool) -> Part {
        match answer {
            Ok((h, b)) => Part::Ready(Cursor::new(if headers { h.clone() } else { b.clone() })),
            Err(e) => Part::Failed(Some(io::Error::new(e.kind(), e.to_string()))),
        }
    }
}

impl Read for Part {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Part {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Part::Pending { post, headers } = self {
            let taken = locked(post).take(*headers);
            *self = match taken {
                Ok(bytes) => Part::Ready(Cursor::new(bytes)),
                Err(e) => Part::Failed(Some(e)),
            };
        }
        match self {
            Part::Ready(cursor) => cursor.fill_buf(),
            Part::Failed(error) => Err(error
                .take()
                .unwrap_or_else(|| io::Error::other("the request failed"))),
            Part::Pending { .. } => Err(io::Error::other("no answer")),
        }
    }

    fn consume(&mut self, amount: usize) {
        if let Part::Ready(cursor) = self {
            cursor.consume(amount);
        }
    }
}

impl Http for GuardedHttp {
    type Headers = Part;
    type ResponseBody = Part;
    type PostBody = PostBody;

    fn get(
        &mut self,
        url: &str,
        _base_url: &str,
        headers: impl IntoIterator<Item = impl AsRef<str>>,
    ) -> Result<GetResponse<Part, Part>, ghttp::Error> {
        let headers = self.headers(headers);
        let borrowed: Vec<(&str, String)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        let answer = answer(url, self.client.get(url, &borrowed));
        Ok(GetResponse {
            headers: Part::of(&answer, true),
            body: Part::of(&answer, false),
        })
    }

    fn post(
        &mut self,
        url: &str,
        _base_url: &str,
        headers: impl IntoIterator<Item = impl AsRef<str>>,
        _body: PostBodyDataKind,
    ) -> Result<PostResponse<Part, Part, PostBody>, ghttp::Error> {
        let post = Arc::new(Mutex::new(Post {
            client: self.client.clone(),
            url: url.to_owned(),
            headers: self.headers(headers),
            body: Vec::new(),
            answer: None,
        }));
        Ok(PostResponse {
            post_body: PostBody(post.clone()),
            headers: Part::Pending {
                post: post.clone(),
                headers: true,
            },
            body: Part::Pending {
                post,
                headers: false,
            },
        })
    }

    /// gix's options (from git configuration: proxies, extra headers, user agent) are not taken:
    /// repositories are opened isolated, and the client's settings are offlux's own.
    fn configure(
        &mut self,
        _config: &dyn Any,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync + 'static>> {
        Ok(())
    }
}
