//! Reading one YAML file into objects, with every problem reported against the file and line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::budget::{Resource, RunBudget};
use crate::diagnostic::{Diagnostic, Location};
use crate::fsio::ReadFailure;
use crate::model::{is_sops_document, FluxKind, FluxObject, Object, ResourceId};
use crate::yaml::{self, Document, Node, ParseOptions, Pos};

/// What one file held.
#[derive(Clone)]
pub(crate) struct LoadedFile {
    /// Every document that is a Kubernetes object (has `apiVersion` and `kind`).
    pub objects: Vec<Object>,
    /// For each of `objects`, its reading as a Flux object when it is one and reads cleanly;
    /// read here so that it happens on the thread that parsed the file.
    pub flux: Vec<Option<FluxObject>>,
    /// Which of `documents` is kustomize configuration (`kustomization.yaml`), kept for the
    /// patch-fragment and namespace readings.
    kustomization: Option<usize>,
    pub sops_documents: usize,
    pub diagnostics: Vec<Diagnostic>,
    /// False when the file could not be read or parsed.
    pub parsed: bool,
    /// The parsed documents, for readers after discovery.
    pub documents: Option<Arc<[Document]>>,
    /// How another discovery in the same command may take this reading as its own: by charging
    /// its run's budget the YAML nodes this file's aliases and merge keys expanded to, as parsing
    /// it would have (`Some(0)`: nothing to charge). `None`: it is read again (the parse failed
    /// where a run's budget may have stopped it).
    pub alias_nodes: Option<u64>,
}

impl LoadedFile {
    /// The file's kustomize configuration, when it is a `kustomization.yaml`.
    pub(super) fn kustomization(&self) -> Option<&Node> {
        let index = self.kustomization?;
        self.documents.as_ref()?.get(index).map(|d| &*d.root)
    }
}

pub use crate::kustomize::KUSTOMIZATION_FILE_NAMES;

pub fn is_kustomization_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| KUSTOMIZATION_FILE_NAMES.contains(&n))
}

/// How a file is read: its size limit and the YAML reader's options.
#[derive(Clone, Debug)]
pub(crate) struct LoadOptions {
    pub max_size: u64,
    pub parse: ParseOptions,
    pub cache: Option<Arc<ParseCache>>,
}

/// Files parsed once for several discoveries of the same trees (the two sides of a diff, the
/// clusters of one path): documents keyed by the file's whole text, so a hit is the same bytes
/// parsed with the same options. Only files that parsed are kept, each with the YAML nodes its
/// aliases and merge keys expanded to, which a run that takes it is charged ([`SharedParse`]).
///
/// The same files are also kept by path: a command reads its trees several times (the path, then
/// each cluster; a diff's changed files, then each side), and a file's text does not change within
/// one command, so a path met again is neither read nor parsed again.
/// One text's parse, filled by the first discovery that reads the text.
type ParseSlot = std::sync::Mutex<Option<SharedParse>>;

/// A file's parse kept by its blob id, with the length of its text: the bytes reading the blob
/// would have inflated.
type BlobParse = (SharedParse, u64);

/// A parse one run made that others take: its documents and the YAML nodes its aliases and merge
/// keys expanded to, which each run that takes it is charged as parsing it would have charged it.
#[derive(Clone)]
struct SharedParse {
    documents: Arc<[Document]>,
    alias_nodes: u64,
}

impl SharedParse {
    fn charge(&self, run: Option<&Arc<RunBudget>>) -> bool {
        charge_parse(run, self.alias_nodes)
    }
}

/// Charges `run` the `alias_nodes` a parse another run made expanded, as parsing the text itself
/// would have: false, charging nothing, when that does not fit in what is left of its budget
/// (the file is then read again and parsed under that budget, which stops it where parsing alone
/// would; read again, not taken from the command's first reading, so a file changed on disk
/// during the command is read as it is now).
pub(crate) fn charge_parse(run: Option<&Arc<RunBudget>>, alias_nodes: u64) -> bool {
    let Some(run) = run.filter(|_| alias_nodes > 0) else {
        return true;
    };
    let amounts = [(Resource::AliasNodes, alias_nodes)];
    run.can_take(&amounts) && run.charge_all(&amounts)
}

#[derive(Default)]
pub struct ParseCache {
    parsed: std::sync::Mutex<std::collections::HashMap<String, Arc<ParseSlot>>>,
    by_path: std::sync::Mutex<std::collections::HashMap<PathBuf, SharedParse>>,
    /// Parses by git blob id, when [`ParseCache::by_content`] made the cache: a file of a
    /// revision mounted in memory whose blob a file on disk already held is not read.
    by_blob: Option<std::sync::Mutex<std::collections::HashMap<Vec<u8>, BlobParse>>>,
    /// Each root's walk, by root and file size limit.
    walks: std::sync::Mutex<std::collections::HashMap<(PathBuf, u64), Arc<super::Walked>>>,
}

impl std::fmt::Debug for ParseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use offlux_sync::MutexExt;
        write!(f, "ParseCache({} files)", self.parsed.locked().len())
    }
}

impl ParseCache {
    /// A cache that also keeps each parse of a file on disk under the file's git blob id, for a
    /// command that reads revisions mounted in memory beside the working tree (`diff`): their
    /// files with the same bytes are then taken by blob id, not inflated, read and looked up.
    pub fn by_content() -> ParseCache {
        ParseCache {
            by_blob: Some(std::sync::Mutex::default()),
            ..ParseCache::default()
        }
    }

    fn of_blob(&self, id: &[u8]) -> Option<BlobParse> {
        use offlux_sync::MutexExt;
        self.by_blob.as_ref()?.locked().get(id).cloned()
    }

    fn keep_blob(&self, id: Vec<u8>, parsed: &SharedParse, len: u64) {
        use offlux_sync::MutexExt;
        if let Some(by_blob) = &self.by_blob {
            by_blob
                .locked()
                .entry(id)
                .or_insert_with(|| (parsed.clone(), len));
        }
    }

    /// The parse `parse` gives for `text` under `run`'s budget, made by whichever discovery asked
    /// first: one that asks while another parses the same text (the two sides of a diff read
    /// their common files at the same time) waits for that parse instead of making its own. The
    /// first parse is charged to its run as it goes, and counted; a parse taken from another run
    /// is not yet charged (see [`SharedParse::charge`]). A parse that fails is not kept.
    fn parse_once<E>(
        &self,
        text: String,
        run: &Arc<RunBudget>,
        parse: impl FnOnce(&str, Arc<RunBudget>) -> Result<Arc<[Document]>, E>,
    ) -> Result<(SharedParse, bool), E> {
        use offlux_sync::MutexExt;
        let slot = {
            let mut parsed = self.parsed.locked();
            match parsed.get(&text) {
                Some(slot) => slot.clone(),
                None => parsed.entry(text.clone()).or_default().clone(),
            }
        };
        let mut shared = slot.locked();
        if let Some(shared) = &*shared {
            return Ok((shared.clone(), false));
        }
        let tally = Arc::new(RunBudget::tally_of(run.clone()));
        match parse(&text, tally.clone()) {
            Ok(documents) => {
                let parsed = SharedParse {
                    documents,
                    alias_nodes: tally.used(Resource::AliasNodes),
                };
                *shared = Some(parsed.clone());
                Ok((parsed, true))
            }
            Err(error) => {
                // Nothing kept for a text that does not parse (one asking later parses it again).
                drop(shared);
                self.parsed.locked().remove(&text);
                Err(error)
            }
        }
    }

    fn at(&self, path: &Path) -> Option<SharedParse> {
        use offlux_sync::MutexExt;
        self.by_path.locked().get(path).cloned()
    }

    fn insert_at(&self, path: &Path, parsed: SharedParse) {
        use offlux_sync::MutexExt;
        self.by_path.locked().insert(path.to_path_buf(), parsed);
    }

    pub(super) fn walk_of(&self, root: &Path, max_size: u64) -> Option<Arc<super::Walked>> {
        use offlux_sync::MutexExt;
        self.walks
            .locked()
            .get(&(root.to_path_buf(), max_size))
            .cloned()
    }

    pub(super) fn keep_walk(&self, root: &Path, max_size: u64, walked: Arc<super::Walked>) {
        use offlux_sync::MutexExt;
        self.walks
            .locked()
            .insert((root.to_path_buf(), max_size), walked);
    }
}

pub(crate) fn load_file(
    absolute: &Path,
    relative: PathBuf,
    options: &LoadOptions,
    keep: Keep,
) -> LoadedFile {
    let mut loaded = LoadedFile::empty();
    let read = read_documents(absolute, &relative, options, &mut loaded);
    loaded.keep_read(read, absolute, &relative, keep);
    loaded
}

impl LoadedFile {
    fn empty() -> Self {
        LoadedFile {
            objects: Vec::new(),
            flux: Vec::new(),
            kustomization: None,
            sops_documents: 0,
            diagnostics: Vec::new(),
            parsed: false,
            documents: None,
            alias_nodes: Some(0),
        }
    }

    fn keep_read(&mut self, read: FileRead, absolute: &Path, relative: &Path, keep: Keep) {
        if let FileRead::Documents(documents) = read {
            self.parsed = true;
            self.documents = Some(documents);
            collect(self, absolute, relative, keep);
        }
    }
}

/// What `load_file` with `keep` gives, for a file it already read with another.
pub(crate) fn keep_again(loaded: &mut LoadedFile, absolute: &Path, relative: &Path, keep: Keep) {
    if loaded.documents.is_some() {
        // A file that parsed has no diagnostics but those `collect` makes.
        loaded.objects.clear();
        loaded.flux.clear();
        loaded.kustomization = None;
        loaded.sops_documents = 0;
        loaded.diagnostics.clear();
        collect(loaded, absolute, relative, keep);
    }
}

/// What reading a file gave.
enum FileRead {
    Documents(Arc<[Document]>),
    /// The reason is in the diagnostics.
    Failed,
}

/// The file's documents; `Failed`, with the reason in `loaded`'s diagnostics, when it cannot be
/// read, is too large, is not UTF-8 or is not YAML. Notes in `loaded` what its parse charged the
/// run's budget, for another discovery that takes it.
fn read_documents(
    absolute: &Path,
    relative: &Path,
    options: &LoadOptions,
    loaded: &mut LoadedFile,
) -> FileRead {
    let diagnostics = &mut loaded.diagnostics;
    let max_size = options.max_size;
    let at_file = || Location::file(relative.to_path_buf());
    let cannot_read = |error: std::io::Error| {
        Diagnostic::warning(format!("cannot read file: {error}")).at(at_file())
    };
    let run = options.parse.run.as_ref();
    let cache = options.cache.as_ref();
    // A mounted revision's file whose blob a file on disk held: that file's parse, its bytes
    // counted as read (the revision's budget of bytes inflated decides as if they were).
    let by_blob = || {
        let cache = cache.filter(|cache| cache.by_blob.is_some())?;
        let (shared, len) = cache.of_blob(&crate::fsio::content_id(absolute)?)?;
        if !crate::fsio::charge_as_read(absolute, len) {
            return None;
        }
        cache.insert_at(absolute, shared.clone());
        Some(shared)
    };
    if let Some(shared) = (cache.and_then(|cache| cache.at(absolute)))
        .or_else(by_blob)
        .filter(|shared| shared.charge(run))
    {
        loaded.alias_nodes = Some(shared.alias_nodes);
        return FileRead::Documents(shared.documents);
    }
    let bytes = match crate::fsio::read_unconfined(absolute, max_size) {
        Ok(bytes) => bytes,
        Err(ReadFailure::Io(error)) => {
            diagnostics.push(cannot_read(error));
            return FileRead::Failed;
        }
        Err(ReadFailure::TooLarge(size)) => {
            let size = size.map_or_else(String::new, |s| format!("{s} bytes, "));
            diagnostics.push(
                Diagnostic::warning(format!(
                    "file is {size}over the {max_size}-byte limit; not read"
                ))
                .at(at_file()),
            );
            return FileRead::Failed;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            diagnostics.push(
                Diagnostic::warning(format!(
                    "file is not valid UTF-8 (at byte {}); not read",
                    error.utf8_error().valid_up_to()
                ))
                .at(at_file()),
            );
            return FileRead::Failed;
        }
    };
    // A parse made under one run's budget is shared with the others, each charged what it cost.
    let parse = |text: &str, run: Option<Arc<RunBudget>>| {
        let options = ParseOptions {
            run,
            ..options.parse.clone()
        };
        yaml::parse_stream(text, &options).map(Arc::<[Document]>::from)
    };
    let shared = options.cache.as_ref().map(|cache| {
        // A parse without a budget is counted all the same, for the runs that take it.
        let counted = run.cloned().unwrap_or_else(|| {
            Arc::new(RunBudget::new(crate::budget::Limits {
                alias_nodes: u64::MAX,
                ..crate::budget::Limits::default()
            }))
        });
        cache.parse_once(text.clone(), &counted, |text, tally| {
            parse(text, Some(tally))
        })
    });
    let parsed = match shared {
        Some(Ok((shared, made_here))) => {
            if made_here || shared.charge(run) {
                if let Some(cache) = &options.cache {
                    cache.insert_at(absolute, shared.clone());
                    if cache.by_blob.is_some() {
                        let id = crate::fsio::content_id(absolute).unwrap_or_else(|| {
                            crate::gitrev::blob_id(text.as_bytes()).as_bytes().to_vec()
                        });
                        cache.keep_blob(id, &shared, text.len() as u64);
                    }
                }
                loaded.alias_nodes = Some(shared.alias_nodes);
                Ok(shared.documents)
            } else {
                // Over what is left of this run's budget: parsed under it, to stop where it does.
                loaded.alias_nodes = None;
                parse(&text, run.cloned())
            }
        }
        Some(Err(error)) => Err(error),
        None => parse(&text, run.cloned()),
    };
    // A parse this run's budget stopped is read again by the next run, under its own.
    if matches!(&parsed, Err(error) if error.kind == yaml::ErrorKind::Budget) {
        loaded.alias_nodes = None;
    }
    let diagnostics = &mut loaded.diagnostics;
    match parsed {
        Ok(documents) => FileRead::Documents(documents),
        Err(error) if error.kind == yaml::ErrorKind::Budget => {
            // Not a file offlux cannot read, but a run that went over its budget: it fails.
            diagnostics.push(
                Diagnostic::error(error.message)
                    .at(Location::at(relative.to_path_buf(), error.pos)),
            );
            FileRead::Failed
        }
        Err(error) => {
            diagnostics.push(
                Diagnostic::warning(format!("invalid YAML: {}", error.message))
                    .at(Location::at(relative.to_path_buf(), error.pos)),
            );
            FileRead::Failed
        }
    }
}

/// Sorts the parsed documents of `loaded` into its objects, kustomization and counts.
fn collect(loaded: &mut LoadedFile, absolute: &Path, relative: &Path, keep: Keep) {
    let Some(documents) = loaded.documents.clone() else {
        return;
    };
    let is_kustomization = is_kustomization_file(absolute);
    for (index, document) in documents.iter().enumerate() {
        if document.root.is_null() {
            continue;
        }
        if is_sops_document(&document.root) {
            loaded.sops_documents += 1;
        }
        if is_kustomization && loaded.kustomization.is_none() {
            loaded.kustomization = Some(index);
            continue;
        }
        load_document(
            &document.root,
            Some(&document.root),
            document.pos,
            relative,
            keep,
            loaded,
        );
    }
    loaded.flux = loaded
        .objects
        .iter()
        .map(|object| FluxObject::from_object(object).ok().flatten())
        .collect();
}

/// Which objects a file's reader keeps; every document is still checked for a valid identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    All,
    /// Flux objects, ConfigMaps and Secrets: what discovery collects from a resource file.
    FluxAndData,
}

impl Keep {
    fn keeps(self, id: &ResourceId) -> bool {
        match self {
            Keep::All => true,
            Keep::FluxAndData => {
                FluxKind::from_group_kind(&id.group, &id.kind).is_some()
                    || (id.group.is_empty() && matches!(id.kind.as_str(), "ConfigMap" | "Secret"))
            }
        }
    }
}

/// Keeps the document's object (or a List's items) when `keep` wants it. `shared` is the document's
/// own tree, which the object then shares instead of copying.
fn load_document(
    root: &Node,
    shared: Option<&Arc<Node>>,
    pos: Pos,
    relative: &Path,
    keep: Keep,
    loaded: &mut LoadedFile,
) {
    match Object::identify(root, relative, pos) {
        Ok(Some(id)) if id.kind == "List" && id.group.is_empty() => {
            let Some(items) = root.get("items").and_then(Node::as_sequence) else {
                return;
            };
            for item in &items.items {
                load_document(item, None, item.pos(), relative, keep, loaded);
            }
        }
        Ok(Some(id)) if keep.keeps(&id) => loaded.objects.push(Object {
            id,
            node: shared.map_or_else(|| Arc::new(root.clone()), Arc::clone),
            file: relative.to_path_buf(),
            pos,
        }),
        Ok(_) => {}
        Err(error) => loaded.diagnostics.push(error.to_diagnostic()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Limits;

    fn options(cache: &Arc<ParseCache>, run: Option<&Arc<RunBudget>>) -> LoadOptions {
        LoadOptions {
            max_size: 1 << 20,
            parse: ParseOptions {
                run: run.cloned(),
                ..ParseOptions::default()
            },
            cache: Some(cache.clone()),
        }
    }

    fn run_with(alias_nodes: u64) -> Arc<RunBudget> {
        Arc::new(RunBudget::new(Limits {
            alias_nodes,
            ..Limits::default()
        }))
    }

    fn load(dir: &Path, name: &str, options: &LoadOptions) -> LoadedFile {
        let mut loaded = LoadedFile::empty();
        let read = read_documents(&dir.join(name), Path::new(name), options, &mut loaded);
        if let FileRead::Documents(documents) = read {
            loaded.documents = Some(documents);
        }
        loaded
    }

    fn read(dir: &Path, name: &str, options: &LoadOptions) -> Arc<[Document]> {
        match load(dir, name, options).documents {
            Some(documents) => documents,
            None => panic!("{name} did not parse"),
        }
    }

    fn write_all(dir: &Path, files: &[(&str, &str)]) {
        for (name, text) in files {
            std::fs::write(dir.join(name), text).expect("write");
        }
    }

    const ALIASED: &str = "base: &b {x: 1, y: 2}\ncopy: *b\n";

    #[test]
    fn the_same_text_is_parsed_once_and_each_run_charged_for_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = "kind: ConfigMap\ndata:\n  a: b\n";
        write_all(
            dir.path(),
            &[
                ("one.yaml", plain),
                ("two.yaml", plain),
                ("three.yaml", ALIASED),
                ("four.yaml", ALIASED),
            ],
        );
        let cache = Arc::new(ParseCache::default());
        let (first_run, second_run) = (run_with(1000), run_with(1000));
        let (first, second) = (
            options(&cache, Some(&first_run)),
            options(&cache, Some(&second_run)),
        );
        let (one, two) = (
            read(dir.path(), "one.yaml", &first),
            read(dir.path(), "two.yaml", &second),
        );
        assert!(
            Arc::ptr_eq(&one, &two),
            "the second read is the first parse"
        );
        let three = read(dir.path(), "three.yaml", &first);
        let charged = first_run.used(Resource::AliasNodes);
        assert!(charged > 0, "the alias's nodes are charged");
        let four = read(dir.path(), "four.yaml", &second);
        assert!(
            Arc::ptr_eq(&three, &four),
            "an aliased text is parsed once too"
        );
        assert_eq!(
            second_run.used(Resource::AliasNodes),
            charged,
            "the run that took the parse is charged what parsing it would have"
        );
        // A run with no room left for it does not take the parse: it parses under its own budget,
        // which stops it at the alias, as parsing alone would.
        let small = run_with(charged - 1);
        let stopped = load(dir.path(), "four.yaml", &options(&cache, Some(&small)));
        assert!(stopped.documents.is_none());
        assert!(
            stopped
                .diagnostics
                .iter()
                .any(|d| d.message.contains("--max-alias-nodes")),
            "{:?}",
            stopped.diagnostics
        );
        assert_eq!(stopped.alias_nodes, None, "read again by the next run");
        // A run without a budget takes the parse, charged nothing; one it makes is counted for
        // the runs that take it.
        let uncounted = options(&cache, None);
        assert!(Arc::ptr_eq(
            &three,
            &read(dir.path(), "four.yaml", &uncounted)
        ));
        std::fs::write(
            dir.path().join("five.yaml"),
            "other: &o [1, 2]\nagain: *o\n",
        )
        .expect("write");
        let made = load(dir.path(), "five.yaml", &uncounted);
        assert!(made.alias_nodes.is_some_and(|nodes| nodes > 0));
        let later_run = run_with(1000);
        let taken = load(dir.path(), "five.yaml", &options(&cache, Some(&later_run)));
        assert_eq!(taken.alias_nodes, made.alias_nodes);
        assert_eq!(Some(later_run.used(Resource::AliasNodes)), made.alias_nodes);
    }

    /// A path read once in a command is not read again: a later discovery of the same tree sees
    /// the same documents, even if the file changed on disk meanwhile (one snapshot per command),
    /// and its run is charged for the aliases it holds.
    #[test]
    fn a_path_is_read_once_per_command() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_all(
            dir.path(),
            &[("a.yaml", "kind: ConfigMap\n"), ("b.yaml", ALIASED)],
        );
        let cache = Arc::new(ParseCache::default());
        let (first_run, second_run) = (run_with(1000), run_with(1000));
        let first = options(&cache, Some(&first_run));
        let plain = read(dir.path(), "a.yaml", &first);
        let aliased = read(dir.path(), "b.yaml", &first);
        write_all(
            dir.path(),
            &[("a.yaml", "kind: Secret\n"), ("b.yaml", "x: &b 2\ny: *b\n")],
        );
        let second = options(&cache, Some(&second_run));
        assert!(Arc::ptr_eq(&plain, &read(dir.path(), "a.yaml", &second)));
        assert!(Arc::ptr_eq(&aliased, &read(dir.path(), "b.yaml", &second)));
        assert_eq!(
            second_run.used(Resource::AliasNodes),
            first_run.used(Resource::AliasNodes)
        );
    }

    #[test]
    fn a_text_read_by_several_threads_at_once_is_parsed_once() {
        let cache = ParseCache::default();
        let run = run_with(1000);
        let parses = std::sync::atomic::AtomicUsize::new(0);
        let barrier = std::sync::Barrier::new(4);
        let results: Vec<Arc<[Document]>> = std::thread::scope(|scope| {
            let running: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        cache.parse_once("kind: ConfigMap\n".to_owned(), &run, |text, _| {
                            parses.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(50));
                            yaml::parse_stream(text, &ParseOptions::default()).map(Arc::from)
                        })
                    })
                })
                .collect();
            running
                .into_iter()
                .map(|thread| thread.join().expect("thread").expect("parses").0.documents)
                .collect()
        });
        assert_eq!(parses.into_inner(), 1);
        assert!(results.iter().all(|r| Arc::ptr_eq(r, &results[0])));
        // A parse that fails is not kept: the next reader parses again.
        let failed = cache.parse_once("a: [".to_owned(), &run, |_, _| Err(()));
        assert!(failed.is_err());
        let again: Result<_, ()> =
            cache.parse_once("a: [".to_owned(), &run, |_, _| Ok(Arc::from(Vec::new())));
        assert!(again.is_ok_and(|(parsed, _)| parsed.documents.is_empty()));
    }

    /// With a cache made for comparing revisions, a mounted revision's file whose blob a file on
    /// disk held is that file's parse: the revision's bytes are not read.
    #[test]
    fn a_mounted_file_a_disk_file_already_held_is_not_read() {
        use crate::fsio::mem_tree::{BlobError, Blobs, Builder};
        use std::sync::atomic::{AtomicUsize, Ordering};
        struct Counted {
            text: &'static str,
            reads: Arc<AtomicUsize>,
            charged: Arc<AtomicUsize>,
        }
        impl Blobs for Counted {
            fn read(&self, _: usize, _: u64) -> Result<Arc<Vec<u8>>, BlobError> {
                self.reads.fetch_add(1, Ordering::SeqCst);
                Ok(Arc::new(self.text.as_bytes().to_vec()))
            }
            fn content_id(&self, _: usize) -> Option<Vec<u8>> {
                Some(
                    crate::gitrev::blob_id(self.text.as_bytes())
                        .as_bytes()
                        .to_vec(),
                )
            }
            fn charge_as_read(&self, _: usize, len: u64) -> bool {
                self.charged.fetch_add(len as usize, Ordering::SeqCst);
                true
            }
        }
        let text = "kind: ConfigMap\ndata: {a: b}\n";
        let dir = tempfile::tempdir().expect("tempdir");
        write_all(dir.path(), &[("disk.yaml", text)]);
        let reads = Arc::new(AtomicUsize::new(0));
        let charged = Arc::new(AtomicUsize::new(0));
        let mut builder = Builder::default();
        builder.file(Builder::ROOT, "same.yaml".into(), 0);
        let blobs = Counted {
            text,
            reads: reads.clone(),
            charged: charged.clone(),
        };
        let mount = crate::fsio::mount(builder.finish(Box::new(blobs)), dir.path(), "test")
            .expect("mounts");
        let cache = Arc::new(ParseCache::by_content());
        let run = run_with(1000);
        let by_content = options(&cache, Some(&run));
        let on_disk = read(dir.path(), "disk.yaml", &by_content);
        let mounted = read(mount.path(), "same.yaml", &by_content);
        assert!(Arc::ptr_eq(&on_disk, &mounted));
        assert_eq!(
            reads.load(Ordering::SeqCst),
            0,
            "the revision's bytes were read"
        );
        // Counted as read all the same: the revision's budget of bytes decides as if they were.
        assert_eq!(charged.load(Ordering::SeqCst), text.len());
        // A cache not made for it reads the revision's file.
        let plain = Arc::new(ParseCache::default());
        read(dir.path(), "disk.yaml", &options(&plain, Some(&run)));
        read(mount.path(), "same.yaml", &options(&plain, Some(&run)));
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }
}
