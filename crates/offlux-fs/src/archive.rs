//! Gzip-compressed tar archives read in memory with bounds on every kind of work they can ask
//! for: one reader for every archive offlux opens (a chart's `.tgz`, from a file, an HTTP Helm
//! repository or an OCI layer, in `helm::load`; an ArtifactGenerator's `Extract` in `artifact`).
//!
//! Go's `gzip.Reader`, which Helm's `loader.LoadArchive` and fluxcd/pkg's `tar.Untar` both use,
//! reads a multistream file (members one after another) as one stream; so does this reader, but a
//! member costs work even when it holds nothing, so members are counted and capped as entries
//! are. The decompressed stream (tar headers and padding included) is capped, so are the entries
//! and the bytes of file data handed out. Nothing is written anywhere.
//!
//! Not for: what an entry's path means (each caller has its upstream's rules), nor the git object
//! store's zlib streams (`gitrev`).

use std::io::{BufRead, Read};

/// Gzip members one archive may hold. A member costs a decoder's set-up even when empty (three
/// million of them took 21 s); a multistream file made by `bgzip` holds one per 64 KiB, so this
/// many cover a 1 GiB archive.
pub const MAX_MEMBERS: usize = 16_384;

/// What one archive may cost. Each is checked as the stream is read, so a bomb stops at the
/// limit, never after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Gzip members (a multistream file's parts).
    pub members: usize,
    /// Tar entries of any kind (files, directories, links...).
    pub entries: usize,
    /// Bytes of file data handed to the caller.
    pub data_bytes: u64,
}

impl Limits {
    /// The decompressed stream a tar of `entries` entries and `data_bytes` bytes needs at most:
    /// each entry's header (with room for a long name or a PAX record) and padding come on top.
    fn stream_bytes(&self) -> u64 {
        let overhead = (self.entries.saturating_add(16) as u64).saturating_mul(3 * 512);
        self.data_bytes.saturating_add(overhead)
    }
}

/// What a tar entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// A link, device, FIFO or anything else that carries no data of its own.
    Other,
}

/// One entry as the caller sees it: its raw path (lossily UTF-8), what it is, and for a file its
/// data.
#[derive(Debug)]
pub struct Member {
    pub path: String,
    pub kind: Kind,
    /// A file's bytes; empty for anything else.
    pub data: Vec<u8>,
}

/// Why an archive could not be read, or a limit it passed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("file does not appear to be a gzipped archive")]
    NotGzip,
    /// The gzip or tar stream is broken (the decoder's message).
    #[error("{0}")]
    Read(String),
    #[error("the gzip stream has more than {0} members (the member limit)")]
    TooManyMembers(usize),
    #[error("the archive holds more than {0} entries (the entry limit)")]
    TooManyEntries(usize),
    #[error("the archive unpacks to more than {0} bytes (the size limit)")]
    TooLarge(u64),
    /// File data passed the limit at entry `path`.
    #[error("{path}: the archive's files hold more than {max} bytes (the size limit)")]
    FileTooLarge { path: String, max: u64 },
}

/// Either the archive's own failure or the caller's, from its visitor.
#[derive(Debug)]
pub enum Failure<E> {
    Archive(Error),
    Visitor(E),
}

impl<E> From<Error> for Failure<E> {
    fn from(error: Error) -> Self {
        Failure::Archive(error)
    }
}

/// Reads the `.tar.gz` in `bytes` and hands each entry, in archive order, to `visit`, which may
/// stop the read with its own error. PAX and GNU long-name records are the tar reader's, never
/// the caller's. `reserve` is told each file's path and size (its header's, checked against the
/// limits) before its data is inflated, and may stop the read too: a caller that charges a
/// run-wide budget charges the bytes as the archive is read, so a load waiting for room, or
/// stopped by it, holds nothing it has not been charged for.
pub fn read_tar_gz<E>(
    bytes: &[u8],
    limits: &Limits,
    mut reserve: impl FnMut(&str, u64) -> Result<(), E>,
    mut visit: impl FnMut(Member) -> Result<(), E>,
) -> Result<(), Failure<E>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(Error::NotGzip.into());
    }
    let mut tar = tar::Archive::new(Gunzip {
        member: flate2::bufread::GzDecoder::new(bytes),
        members: 1,
        limits: *limits,
        read: 0,
        over: None,
    });
    let failure = match tar.entries() {
        Ok(entries) => visit_entries(entries, limits, &mut reserve, &mut visit)?,
        Err(e) => Some(Error::Read(e.to_string())),
    };
    // A limit of the gzip layer reaches tar as a read error: name the limit itself.
    match (tar.into_inner().over, failure) {
        (Some(limit), _) => Err(limit.into()),
        (None, Some(error)) => Err(error.into()),
        (None, None) => Ok(()),
    }
}

/// The entries loop of [`read_tar_gz`]: `Ok(Some(error))` when the stream broke (the caller
/// then asks the gzip layer whether a limit broke it).
fn visit_entries<E>(
    entries: tar::Entries<'_, Gunzip<'_>>,
    limits: &Limits,
    reserve: &mut impl FnMut(&str, u64) -> Result<(), E>,
    visit: &mut impl FnMut(Member) -> Result<(), E>,
) -> Result<Option<Error>, Failure<E>> {
    let mut seen = 0usize;
    let mut data_bytes = 0u64;
    for entry in entries {
        let mut entry = match entry {
            Ok(entry) => entry,
            Err(e) => return Ok(Some(Error::Read(e.to_string()))),
        };
        seen += 1;
        if seen > limits.entries {
            return Err(Error::TooManyEntries(limits.entries).into());
        }
        let header = entry.header().entry_type();
        if header.is_pax_global_extensions()
            || header.is_pax_local_extensions()
            || header.is_gnu_longname()
            || header.is_gnu_longlink()
        {
            continue;
        }
        let kind = if header.is_dir() {
            Kind::Dir
        } else if header.is_file() || header.is_contiguous() {
            Kind::File
        } else {
            Kind::Other
        };
        let path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let mut data = Vec::new();
        if kind == Kind::File {
            let room = limits.data_bytes.saturating_sub(data_bytes);
            let too_large = || Error::FileTooLarge {
                path: path.clone(),
                max: limits.data_bytes,
            };
            let size = entry.header().size().unwrap_or(0);
            if size > room {
                return Err(too_large().into());
            }
            reserve(&path, size).map_err(Failure::Visitor)?;
            // The header's size, checked against the room above: one allocation, no doubling.
            data.reserve_exact(usize::try_from(size).unwrap_or(0));
            if let Err(e) = (&mut entry)
                .take(room.saturating_add(1))
                .read_to_end(&mut data)
            {
                return Ok(Some(Error::Read(e.to_string())));
            }
            data_bytes = data_bytes.saturating_add(data.len() as u64);
            if data_bytes > limits.data_bytes {
                return Err(too_large().into());
            }
        }
        visit(Member { path, kind, data }).map_err(Failure::Visitor)?;
    }
    Ok(None)
}

/// The members of a multistream gzip file read one after another as one stream, with the
/// member count and the decompressed bytes capped.
struct Gunzip<'a> {
    member: flate2::bufread::GzDecoder<&'a [u8]>,
    members: usize,
    limits: Limits,
    read: u64,
    /// The limit that stopped the stream, kept so the caller can name it.
    over: Option<Error>,
}

impl Read for Gunzip<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(error) = &self.over {
            return Err(std::io::Error::other(error.to_string()));
        }
        loop {
            let n = self.member.read(buf)?;
            if n > 0 || buf.is_empty() {
                self.read = self.read.saturating_add(n as u64);
                if self.read > self.limits.stream_bytes() {
                    return Err(self.stop(Error::TooLarge(self.limits.data_bytes)));
                }
                return Ok(n);
            }
            // This member is done: the next one starts where it ended, if anything is left.
            let mut rest: &[u8] = self.member.get_ref();
            if rest.fill_buf()?.is_empty() {
                return Ok(0);
            }
            self.members += 1;
            if self.members > self.limits.members {
                return Err(self.stop(Error::TooManyMembers(self.limits.members)));
            }
            self.member = flate2::bufread::GzDecoder::new(rest);
        }
    }
}

impl Gunzip<'_> {
    fn stop(&mut self, error: Error) -> std::io::Error {
        let io = std::io::Error::other(error.to_string());
        self.over = Some(error);
        io
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap_or_else(|e| panic!("{e}"));
        encoder.finish().unwrap_or_else(|e| panic!("{e}"))
    }

    /// A tar of `names`, each a file holding its own name.
    fn tar(names: &[&str]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for name in names {
            let mut header = tar::Header::new_ustar();
            header.set_size(name.len() as u64);
            header.set_mode(0o644);
            builder
                .append_data(&mut header, name, name.as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
        }
        builder.into_inner().unwrap_or_else(|e| panic!("{e}"))
    }

    const LIMITS: Limits = Limits {
        members: 4,
        entries: 3,
        data_bytes: 1 << 20,
    };

    fn names(bytes: &[u8], limits: &Limits) -> Result<Vec<String>, Error> {
        let mut seen = Vec::new();
        let read = read_tar_gz(
            bytes,
            limits,
            |_, _| Ok(()),
            |m| {
                assert_eq!(m.data, m.path.as_bytes());
                seen.push(m.path);
                Ok::<(), ()>(())
            },
        );
        match read {
            Ok(()) => Ok(seen),
            Err(Failure::Archive(e)) => Err(e),
            Err(Failure::Visitor(())) => panic!("the visitor does not fail"),
        }
    }

    #[test]
    fn members_are_read_as_one_stream_as_go_reads_them() {
        // A tar split across two gzip members (as `cat a.gz b.gz` makes).
        let whole = tar(&["a", "b"]);
        let (first, second) = whole.split_at(700);
        let mut bytes = gzip(first);
        bytes.extend(gzip(second));
        assert_eq!(names(&bytes, &LIMITS), Ok(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn each_file_is_reserved_before_it_is_inflated_and_a_refusal_stops_the_read() {
        let bytes = gzip(&tar(&["a", "bc", "def"]));
        let mut reserved = Vec::new();
        let mut visited = Vec::new();
        let read = read_tar_gz(
            &bytes,
            &LIMITS,
            |path, size| {
                reserved.push((path.to_string(), size));
                if path == "def" {
                    return Err("no room");
                }
                Ok(())
            },
            |m| {
                visited.push(m.path);
                Ok(())
            },
        );
        assert!(matches!(read, Err(Failure::Visitor("no room"))));
        assert_eq!(
            reserved,
            vec![("a".into(), 1), ("bc".into(), 2), ("def".into(), 3)]
        );
        // `def` was refused before its data was read, so it was never handed out.
        assert_eq!(visited, vec!["a".to_string(), "bc".to_string()]);
    }

    #[test]
    fn members_entries_and_bytes_are_capped() {
        let mut many = gzip(&tar(&["a"]));
        for _ in 0..10 {
            many.extend(gzip(b""));
        }
        // The empty members after the tar's end are never reached...
        assert_eq!(names(&many, &LIMITS), Ok(vec!["a".into()]));
        // ...but empty members before it are counted.
        let mut empty_first: Vec<u8> = (0..10).flat_map(|_| gzip(b"")).collect();
        empty_first.extend(gzip(&tar(&["a"])));
        assert_eq!(names(&empty_first, &LIMITS), Err(Error::TooManyMembers(4)));
        assert_eq!(
            names(&gzip(&tar(&["a", "b", "c", "d"])), &LIMITS),
            Err(Error::TooManyEntries(3))
        );
        let small = Limits {
            data_bytes: 2,
            ..LIMITS
        };
        assert_eq!(
            names(&gzip(&tar(&["a", "bc"])), &small),
            Err(Error::FileTooLarge {
                path: "bc".into(),
                max: 2
            })
        );
        assert_eq!(names(b"PK\x03\x04", &LIMITS), Err(Error::NotGzip));
    }
}
