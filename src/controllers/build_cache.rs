//! Kustomize builds kept across runs (`<download cache>/builds/<key>`), beside the rendered
//! releases (`engine::RenderCache`), so that a large build whose files did not change (the
//! Kustomization applying every app's Kustomization, built again on each side of a diff and in
//! each CI job) is read back instead of made again.
//!
//! Paths are kept relative to the build's root (`Options::fs_root`), so the base of a diff (a
//! revision mounted at a new path in each process) and the working tree share entries; a build
//! whose objects hold the root's path is not kept.
//!
//! A build's inputs are not all known before it runs (which files it reads depends on what the
//! files say), so an entry is keyed by what is known before (this program's build, the directory,
//! the build's options and the kustomization standing in for the file: [`BuildCache::key`]) and
//! holds, with the objects, every question the build asked of the file system and the answer it
//! got (`kustomize::observed`). An entry is used only when every question still gets the same
//! answer, file contents compared by SHA-256: then the same build would ask the same questions
//! and make the same objects. An entry that does not read, or whose answers changed, is a miss.
//! A key has two slots (the two sides of a diff that changes what a build reads keep one each);
//! a build made replaces the one used least lately, a hit marking its entry used.
//!
//! Kept: successful builds of at least [`BuildCache::MIN_OBJECTS`] objects with no key left out
//! of an env file (smaller builds cost less to make than to check), without kustomize's own
//! deprecation notes (Flux shows none). An entry holds what its build charged the run's budget,
//! charged again when it is read back, and the patch texts it read: those are taken through the
//! run's table of parsed patch texts, which charges a text once per run whichever build reads it
//! first, so a run's verdicts do not depend on what the cache holds.
//!
//! Not for: rendered releases (`engine::RenderCache`), or listing and pruning (`fetch::cache`).

use std::path::{Path, PathBuf};

use offlux_yaml::codec::{self, Decoder};

use crate::budget::{Resource, RunBudget};
use crate::kustomize;
use crate::kustomize::observed::{Answer, Question};
use crate::kustomize::FileKind;

/// Kustomize builds kept across runs (see the module's docs).
#[derive(Clone, Debug)]
pub struct BuildCache {
    pub dir: PathBuf,
    /// What tells this program's builds apart (version, commit, the binary's size and time).
    pub build: String,
}

/// What an entry's first line says it is: another layout is another program's, a miss.
const MAGIC: &[u8] = b"offlux kustomize build 1\n";

/// A build read back, and what it charged the run's budget.
pub(crate) struct CachedBuild {
    pub objects: Vec<crate::yaml::Node>,
    pub origins: Vec<Option<PathBuf>>,
    /// The patch texts the build read: taken through the run's table when the build is read
    /// back, which charges each once per run as building would.
    pub patch_texts: Vec<String>,
    /// What the build charged the run's budget, its patch texts' parses left out.
    pub charged: Vec<(Resource, u64)>,
    /// What the run's budget had to have room for (the most of what it charged and checked).
    pub needed: Vec<(Resource, u64)>,
}

impl BuildCache {
    /// Builds making fewer objects are not kept.
    pub const MIN_OBJECTS: usize = 32;
    /// Entries larger than this are neither written nor read.
    const MAX_ENTRY_BYTES: u64 = 256 << 20;

    /// The key of the build of `dir` under `options`: `None` where something it depends on cannot
    /// be written down (a path that is not Unicode), and for builds that take values from the
    /// process environment.
    pub(crate) fn key(&self, dir: &Path, options: &kustomize::Options) -> Option<String> {
        use sha2::Digest as _;
        if options.process_env.is_some() {
            return None;
        }
        let root = Rooted(options.fs_root.as_deref()?);
        let mut recipe = Vec::new();
        codec::encode_str(&self.build, &mut recipe);
        root.encode(dir, &mut recipe)?;
        codec::encode_str(
            &format!(
                "{:?} {:?} {} {:?}",
                options.load_restrictor,
                options.reorder,
                options.add_managed_by_label,
                options.managed_by
            ),
            &mut recipe,
        );
        root.encode_optional(options.display_root.as_deref(), &mut recipe)?;
        match &options.kustomization_override {
            None => recipe.push(0),
            Some((path, node)) => {
                recipe.push(1);
                root.encode(path, &mut recipe)?;
                codec::encode_node(node, &mut recipe);
            }
        }
        Some(hex::encode(sha2::Sha256::digest(&recipe)))
    }

    /// The entry at `key`, if it reads and every question it holds still gets its answer under
    /// `options`.
    pub(crate) fn get(&self, key: &str, options: &kustomize::Options) -> Option<CachedBuild> {
        let confine = crate::fsio::Confine {
            root: Some(&self.dir),
            max_bytes: Self::MAX_ENTRY_BYTES,
        };
        let root = Rooted(options.fs_root.as_deref()?);
        slots(key).into_iter().find_map(|name| {
            let path = self.dir.join(name);
            let bytes = crate::fsio::read(&crate::fsio::FsFacts::default(), &path, confine).ok()?;
            let entry = decode_entry(&bytes, root)?;
            let holds = kustomize::observed::still_hold(&entry.observed, options);
            // The other slot's build is the one a new build replaces.
            holds.then(|| {
                let _ = crate::fsio::mark_used(&path);
                entry.build
            })
        })
    }

    /// Keeps `build` at `key` with the questions it asked and what it charged (`tally`); a build
    /// too small, with an env key left out, or whose questions cannot be written down, is not
    /// kept, nor one that cannot be written.
    pub(crate) fn put(
        &self,
        key: &str,
        observations: &kustomize::observed::Observations,
        build: &kustomize::Build,
        tally: Option<&RunBudget>,
        options: &kustomize::Options,
    ) {
        if build.objects.len() < Self::MIN_OBJECTS || !build.env_keys_left_out.is_empty() {
            return;
        }
        let recorded = Recorded {
            observed: observations.taken(),
            patch_texts: observations.patch_texts(),
        };
        let Some(bytes) = (options.fs_root.as_deref())
            .and_then(|root| encode_entry(&recorded, build, tally, Rooted(root)))
        else {
            return;
        };
        if bytes.len() as u64 > Self::MAX_ENTRY_BYTES {
            return;
        }
        // The slot empty, else the one used least lately.
        let last_used = |name: &String| {
            crate::fsio::file_size_and_time(&self.dir.join(name))
                .ok()
                .map(|(_, time)| time)
        };
        let slot = slots(key).into_iter().min_by_key(last_used);
        if let Some(slot) = slot {
            let _ = crate::fsio::write_atomically(&self.dir.join(slot), &bytes);
        }
    }
}

/// The names the builds of one key may be kept under: two, so that the two sides of a diff whose
/// change a build reads keep one build each (and a branch's build does not push out its base's)
/// rather than replacing each other's on every run. Both are 64 hex digits, as `offlux cache`
/// lists and prunes them.
fn slots(key: &str) -> [String; 2] {
    use sha2::Digest as _;
    let other = sha2::Sha256::digest(format!("second slot\0{key}").as_bytes());
    [key.to_owned(), hex::encode(other)]
}

struct Entry {
    observed: Vec<(Question, Answer)>,
    build: CachedBuild,
}

/// What a build noted: its questions and answers, and its patch texts with the YAML nodes their
/// parses charged.
struct Recorded {
    observed: Vec<(Question, Answer)>,
    patch_texts: (Vec<String>, u64),
}

/// `None` where the entry would not be the same build under another root: a path that is not
/// Unicode, or the root's own path in the objects.
fn encode_entry(
    recorded: &Recorded,
    build: &kustomize::Build,
    tally: Option<&RunBudget>,
    root: Rooted<'_>,
) -> Option<Vec<u8>> {
    let mut out = MAGIC.to_vec();
    let (patch_texts, patches_charged) = &recorded.patch_texts;
    // The patch texts' parses are charged again when the texts are taken through the run's table.
    let used = |tally: &RunBudget, r: Resource| match r {
        Resource::AliasNodes => tally.used(r).saturating_sub(*patches_charged),
        _ => tally.used(r),
    };
    let budget: Vec<(Resource, u64, u64)> = match tally {
        Some(tally) => (Resource::ALL.into_iter())
            .map(|r| (r, used(tally, r), tally.checked(r)))
            .filter(|&(_, used, checked)| used > 0 || checked > 0)
            .collect(),
        None => Vec::new(),
    };
    codec::encode_len(budget.len(), &mut out);
    for (resource, used, checked) in budget {
        codec::encode_str(resource.flag(), &mut out);
        codec::encode_u64(used, &mut out);
        codec::encode_u64(checked, &mut out);
    }
    codec::encode_len(recorded.observed.len(), &mut out);
    for (question, answer) in &recorded.observed {
        encode_observation(question, answer, root, &mut out)?;
    }
    codec::encode_len(patch_texts.len(), &mut out);
    for text in patch_texts {
        codec::encode_str(text, &mut out);
    }
    codec::encode_len(build.objects.len(), &mut out);
    let objects_start = out.len();
    for object in &build.objects {
        codec::encode_node(object, &mut out);
    }
    let root_text = root.0.to_str()?.as_bytes();
    if memchr::memmem::find(&out[objects_start..], root_text).is_some() {
        return None;
    }
    codec::encode_len(build.origins.len(), &mut out);
    for origin in &build.origins {
        root.encode_optional(origin.as_deref(), &mut out)?;
    }
    Some(out)
}

fn decode_entry(bytes: &[u8], root: Rooted<'_>) -> Option<Entry> {
    let mut input = Decoder::new(bytes.strip_prefix(MAGIC)?);
    let mut charged = Vec::new();
    let mut needed = Vec::new();
    for _ in 0..input.len()? {
        let flag = input.str()?;
        let resource = Resource::ALL.into_iter().find(|r| r.flag() == flag)?;
        let (used, checked) = (input.u64()?, input.u64()?);
        charged.push((resource, used));
        needed.push((resource, used.max(checked)));
    }
    let observed = (0..input.len()?)
        .map(|_| decode_observation(&mut input, root))
        .collect::<Option<Vec<_>>>()?;
    let patch_texts = (0..input.len()?)
        .map(|_| input.str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()?;
    let objects = (0..input.len()?)
        .map(|_| input.node())
        .collect::<Option<Vec<_>>>()?;
    let origins = (0..input.len()?)
        .map(|_| root.decode_optional(&mut input))
        .collect::<Option<Vec<_>>>()?;
    if !input.is_empty() {
        return None;
    }
    Some(Entry {
        observed,
        build: CachedBuild {
            objects,
            origins,
            patch_texts,
            charged,
            needed,
        },
    })
}

const KIND: u8 = 0;
const REAL: u8 = 1;
const CONTENT: u8 = 2;
const PARSED: u8 = 3;

fn encode_observation(
    question: &Question,
    answer: &Answer,
    root: Rooted<'_>,
    out: &mut Vec<u8>,
) -> Option<()> {
    match (question, answer) {
        (Question::Kind(path), Answer::Kind(kind)) => {
            out.push(KIND);
            root.encode(path, out)?;
            out.push(match kind {
                None => 0,
                Some(FileKind::File) => 1,
                Some(FileKind::Directory) => 2,
                Some(FileKind::Other) => 3,
            });
        }
        (Question::Real(path), Answer::Real(real)) => {
            out.push(REAL);
            root.encode(path, out)?;
            root.encode_optional(real.as_deref(), out)?;
        }
        (
            Question::Content {
                path,
                root: confined_to,
                max_bytes,
            },
            Answer::Content(content),
        ) => {
            out.push(CONTENT);
            root.encode(path, out)?;
            root.encode_optional(confined_to.as_deref(), out)?;
            codec::encode_u64(*max_bytes, out);
            match content {
                Ok(digest) => {
                    out.push(0);
                    out.extend_from_slice(digest);
                }
                Err(why) => {
                    out.push(1);
                    codec::encode_str(why, out);
                }
            }
        }
        (Question::Parsed(path), Answer::Parsed(digest)) => {
            out.push(PARSED);
            root.encode(path, out)?;
            encode_optional_digest(digest.as_ref(), out);
        }
        // A question answered in another's terms is not one a build asks.
        _ => return None,
    }
    Some(())
}

fn decode_observation(input: &mut Decoder<'_>, root: Rooted<'_>) -> Option<(Question, Answer)> {
    let tag = input.u8()?;
    let path = root.decode(input)?;
    Some(match tag {
        KIND => {
            let kind = match input.u8()? {
                0 => None,
                1 => Some(FileKind::File),
                2 => Some(FileKind::Directory),
                3 => Some(FileKind::Other),
                _ => return None,
            };
            (Question::Kind(path), Answer::Kind(kind))
        }
        REAL => (
            Question::Real(path),
            Answer::Real(root.decode_optional(input)?),
        ),
        CONTENT => {
            let confined_to = root.decode_optional(input)?;
            let max_bytes = input.u64()?;
            let content = match input.u8()? {
                0 => Ok(decode_digest(input)?),
                1 => Err(input.str()?.to_owned()),
                _ => return None,
            };
            (
                Question::Content {
                    path,
                    root: confined_to,
                    max_bytes,
                },
                Answer::Content(content),
            )
        }
        PARSED => {
            let digest = match input.u8()? {
                0 => None,
                1 => Some(decode_digest(input)?),
                _ => return None,
            };
            (Question::Parsed(path), Answer::Parsed(digest))
        }
        _ => return None,
    })
}

/// Paths as an entry holds them: relative to the build's root where they lie under it, so that
/// the same files under another root (the other side of a diff, mounted elsewhere; another
/// checkout) are the same build.
#[derive(Clone, Copy)]
struct Rooted<'a>(&'a Path);

impl Rooted<'_> {
    fn encode(self, path: &Path, out: &mut Vec<u8>) -> Option<()> {
        match path.strip_prefix(self.0) {
            Ok(relative) => {
                out.push(1);
                codec::encode_str(relative.to_str()?, out);
            }
            Err(_) => {
                out.push(0);
                codec::encode_str(path.to_str()?, out);
            }
        }
        Some(())
    }

    fn decode(self, input: &mut Decoder<'_>) -> Option<PathBuf> {
        match input.u8()? {
            0 => Some(PathBuf::from(input.str()?)),
            1 => match input.str()? {
                "" => Some(self.0.to_path_buf()),
                relative => Some(self.0.join(relative)),
            },
            _ => None,
        }
    }

    fn encode_optional(self, path: Option<&Path>, out: &mut Vec<u8>) -> Option<()> {
        match path {
            None => out.push(0),
            Some(path) => {
                out.push(1);
                self.encode(path, out)?;
            }
        }
        Some(())
    }

    fn decode_optional(self, input: &mut Decoder<'_>) -> Option<Option<PathBuf>> {
        match input.u8()? {
            0 => Some(None),
            1 => Some(Some(self.decode(input)?)),
            _ => None,
        }
    }
}

fn encode_optional_digest(digest: Option<&[u8; 32]>, out: &mut Vec<u8>) {
    match digest {
        None => out.push(0),
        Some(digest) => {
            out.push(1);
            out.extend_from_slice(digest);
        }
    }
}

fn decode_digest(input: &mut Decoder<'_>) -> Option<[u8; 32]> {
    input.take(32)?.try_into().ok()
}
