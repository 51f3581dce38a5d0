//! What a build learnt of the file system, each question with the answer it got: for a caller
//! that keeps a build (a cache) and must tell later whether building again would give the same.
//!
//! The loader is a build's one way to files, and a build is a function of the answers it gets
//! there and of its [`Options`]: if every question a build asked still gets the answer it got,
//! the same build asks the same questions and makes the same objects. So a caller keeps the
//! questions and answers with the build ([`Options::observations`]) and, before using the build
//! again, asks each question anew ([`still_hold`]). The answers are asked and compared by the
//! same function ([`answer`]) both times; a file's content is compared by its SHA-256.
//!
//! Not for: deciding what to keep or where (the caller's cache does).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use offlux_fs as fsio;
use offlux_sync::MutexExt as _;
use offlux_yaml::Document;
use sha2::{Digest as _, Sha256};

use super::{FileKind, Options};

/// A question a build asked of the file system.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Question {
    /// What is at the path (every existence, file and directory test).
    Kind(PathBuf),
    /// Where the path really is, symlinks resolved.
    Real(PathBuf),
    /// The bytes of the path, read through `fsio::read` confined to the directory (if any) and
    /// the size.
    Content {
        path: PathBuf,
        root: Option<PathBuf>,
        max_bytes: u64,
    },
    /// The documents discovery parsed at the path, if it did.
    Parsed(PathBuf),
}

/// The answer a [`Question`] got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Kind(Option<FileKind>),
    Real(Option<PathBuf>),
    /// The SHA-256 of the bytes, or why they were not read.
    Content(Result<[u8; 32], String>),
    /// The SHA-256 of the documents' trees ([`documents_digest`]), or none parsed.
    Parsed(Option<[u8; 32]>),
}

/// The questions one build asked, with their answers. Noting is cheap (most builds are not
/// kept): a question asked again is noted again, and the documents' digest is worked out only
/// when the answers are taken.
#[derive(Debug, Default)]
pub struct Observations {
    asked: Mutex<Vec<(Question, Noted)>>,
    /// The patch texts the build parsed or took from the run's table ([`crate::PatchTexts`]),
    /// with the YAML nodes its own parse of each charged (none for one another build parsed).
    patch_texts: Mutex<Vec<(String, u64)>>,
}

/// An answer as noted: a parse is kept as the documents themselves until the answers are taken.
#[derive(Debug)]
pub(crate) enum Noted {
    Answer(Answer),
    Parsed(Option<Arc<[Document]>>),
}

impl Observations {
    pub(crate) fn note(&self, question: Question, noted: Noted) {
        self.asked.locked().push((question, noted));
    }

    pub(crate) fn note_patch_text(&self, text: &str, charged: u64) {
        self.patch_texts.locked().push((text.to_owned(), charged));
    }

    /// The patch texts the build read, each once, and the YAML nodes the build's own parses of
    /// them charged: a caller reading the build back takes the texts through the run's table
    /// instead, which charges them as a build would (once per run).
    pub fn patch_texts(&self) -> (Vec<String>, u64) {
        let noted = std::mem::take(&mut *self.patch_texts.locked());
        let charged = noted.iter().map(|(_, charged)| charged).sum();
        let texts: std::collections::BTreeSet<String> =
            noted.into_iter().map(|(text, _)| text).collect();
        (texts.into_iter().collect(), charged)
    }

    /// What was asked, each question once (its first answer: a build asks a question again
    /// only of the same facts), in the questions' order.
    pub fn taken(&self) -> Vec<(Question, Answer)> {
        let asked = std::mem::take(&mut *self.asked.locked());
        let mut first: BTreeMap<Question, Answer> = BTreeMap::new();
        for (question, noted) in asked {
            if first.contains_key(&question) {
                continue;
            }
            let answer = match noted {
                Noted::Answer(answer) => answer,
                Noted::Parsed(documents) => {
                    Answer::Parsed(documents.map(|documents| documents_digest(&documents)))
                }
            };
            first.insert(question, answer);
        }
        first.into_iter().collect()
    }
}

/// The answer `question` gets now under `options` (their file-system facts and parsed files).
pub fn answer(question: &Question, options: &Options) -> Answer {
    match question {
        Question::Kind(path) => Answer::Kind(options.fs_facts.kind(path)),
        Question::Real(path) => Answer::Real(options.fs_facts.resolve(path)),
        Question::Content {
            path,
            root,
            max_bytes,
        } => {
            let confine = fsio::Confine {
                root: root.as_deref(),
                max_bytes: *max_bytes,
            };
            Answer::Content(content_answer(&fsio::read(
                &options.fs_facts,
                path,
                confine,
            )))
        }
        Question::Parsed(path) => Answer::Parsed(
            (options.parsed_files.as_ref())
                .and_then(|parsed| parsed.get(path))
                .map(|documents| documents_digest(documents)),
        ),
    }
}

/// Whether every question still gets the answer it got.
pub fn still_hold(observed: &[(Question, Answer)], options: &Options) -> bool {
    observed
        .iter()
        .all(|(question, answer_then)| answer(question, options) == *answer_then)
}

/// What a read gave, as an [`Answer::Content`] holds it.
pub(crate) fn content_answer(read: &Result<Vec<u8>, fsio::ReadError>) -> Result<[u8; 32], String> {
    match read {
        Ok(bytes) => Ok(Sha256::digest(bytes).into()),
        Err(error) => Err(error.kind.to_string()),
    }
}

/// The SHA-256 of documents' trees, everything a build could read of them kept (text, styles,
/// tags, positions).
pub fn documents_digest(documents: &[Document]) -> [u8; 32] {
    let mut bytes = Vec::new();
    offlux_yaml::codec::encode_len(documents.len(), &mut bytes);
    for document in documents {
        offlux_yaml::codec::encode_node(&document.root, &mut bytes);
    }
    Sha256::digest(&bytes).into()
}

/// The loader's questions, noted where the options ask for it.
pub(crate) fn noted(
    options: &Options,
    question: impl FnOnce() -> Question,
    noted: impl FnOnce() -> Noted,
) {
    if let Some(observations) = &options.observations {
        observations.note(question(), noted());
    }
}

/// [`noted`] for the path's kind, answered from the facts already asked.
pub(crate) fn kind_of(options: &Options, path: &Path) -> Option<FileKind> {
    let kind = options.fs_facts.kind(path);
    noted(
        options,
        || Question::Kind(path.to_path_buf()),
        || Noted::Answer(Answer::Kind(kind)),
    );
    kind
}
