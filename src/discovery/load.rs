//! Reading one YAML file into objects, with every problem reported against the file and line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Whether another discovery in the same command may take this reading as its own: false
    /// when the text can expand aliases or merge keys, whose parse each run's budget is charged
    /// for (and may stop).
    pub reusable: bool,
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
/// parsed with the same options. Only files that parsed, and whose text holds no alias or merge
/// key (nothing a run's budget would be charged for), are kept.
///
/// The same files are also kept by path: a command reads its trees several times (the path, then
/// each cluster; a diff's changed files, then each side), and a file's text does not change within
/// one command, so a path met again is neither read nor parsed again.
/// One text's parse, filled by the first discovery that reads the text.
type ParseSlot = std::sync::Mutex<Option<Arc<[Document]>>>;

#[derive(Default)]
pub struct ParseCache {
    parsed: std::sync::Mutex<std::collections::HashMap<String, Arc<ParseSlot>>>,
    by_path: std::sync::Mutex<std::collections::HashMap<PathBuf, Arc<[Document]>>>,
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
    /// The documents `parse` gives for `text`, parsed by whichever discovery asked first: one
    /// that asks while another parses the same text (the two sides of a diff read their common
    /// files at the same time) waits for that parse instead of making its own. A parse that fails
    /// is not kept.
    fn parse_once<E>(
        &self,
        text: String,
        parse: impl FnOnce(&str) -> Result<Arc<[Document]>, E>,
    ) -> Result<Arc<[Document]>, E> {
        use offlux_sync::MutexExt;
        let slot = {
            let mut parsed = self.parsed.locked();
            match parsed.get(&text) {
                Some(slot) => slot.clone(),
                None => parsed.entry(text.clone()).or_default().clone(),
            }
        };
        let mut documents = slot.locked();
        if let Some(documents) = &*documents {
            return Ok(documents.clone());
        }
        match parse(&text) {
            Ok(parsed) => {
                *documents = Some(parsed.clone());
                Ok(parsed)
            }
            Err(error) => {
                // Nothing kept for a text that does not parse (one asking later parses it again).
                drop(documents);
                self.parsed.locked().remove(&text);
                Err(error)
            }
        }
    }

    fn at(&self, path: &Path) -> Option<Arc<[Document]>> {
        use offlux_sync::MutexExt;
        self.by_path.locked().get(path).cloned()
    }

    fn insert_at(&self, path: &Path, documents: Arc<[Document]>) {
        use offlux_sync::MutexExt;
        self.by_path.locked().insert(path.to_path_buf(), documents);
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
            reusable: true,
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
/// read, is too large, is not UTF-8 or is not YAML. Marks `loaded` not reusable when the parse was
/// charged to the run's budget.
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
    if let Some(documents) = options.cache.as_ref().and_then(|cache| cache.at(absolute)) {
        return FileRead::Documents(documents);
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
    // Only a file that can expand no alias or merge key is shared: every other parse charges its
    // expansion to its own run's budget, however often the same text comes.
    let can_expand = text.contains('*') || text.contains("<<");
    loaded.reusable = !can_expand;
    let cache = (options.cache.as_ref()).filter(|_| !can_expand);
    let parse = |text: &str| yaml::parse_stream(text, &options.parse).map(Arc::from);
    let parsed = match cache {
        Some(cache) => cache.parse_once(text, parse).inspect(|documents| {
            cache.insert_at(absolute, documents.clone());
        }),
        None => parse(&text),
    };
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

    fn options(cache: &Arc<ParseCache>) -> LoadOptions {
        LoadOptions {
            max_size: 1 << 20,
            parse: ParseOptions::default(),
            cache: Some(cache.clone()),
        }
    }

    fn read(dir: &Path, name: &str, options: &LoadOptions) -> Arc<[Document]> {
        match read_documents(
            &dir.join(name),
            Path::new(name),
            options,
            &mut LoadedFile::empty(),
        ) {
            FileRead::Documents(documents) => documents,
            FileRead::Failed => panic!("{name} did not parse"),
        }
    }

    #[test]
    fn the_same_text_is_parsed_once_unless_it_can_expand_aliases() {
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = "kind: ConfigMap\ndata:\n  a: b\n";
        let aliased = "base: &b {x: 1}\ncopy: *b\n";
        for (name, text) in [
            ("one.yaml", plain),
            ("two.yaml", plain),
            ("three.yaml", aliased),
            ("four.yaml", aliased),
        ] {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let cache = Arc::new(ParseCache::default());
        let options = options(&cache);
        let (one, two) = (
            read(dir.path(), "one.yaml", &options),
            read(dir.path(), "two.yaml", &options),
        );
        assert!(
            Arc::ptr_eq(&one, &two),
            "the second read is the first parse"
        );
        let (three, four) = (
            read(dir.path(), "three.yaml", &options),
            read(dir.path(), "four.yaml", &options),
        );
        assert!(
            !Arc::ptr_eq(&three, &four),
            "an alias is parsed, and charged, each time"
        );
        assert_eq!(three[0].root, four[0].root);
    }

    /// A path read once in a command is not read again: a later discovery of the same tree sees
    /// the same documents, even if the file changed on disk meanwhile (one snapshot per command).
    /// A file that can expand aliases is read each time, as it is charged each time.
    #[test]
    fn a_path_is_read_once_per_command_unless_it_can_expand_aliases() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("a.yaml"),
            "kind: ConfigMap
",
        )
        .expect("write");
        std::fs::write(
            dir.path().join("b.yaml"),
            "x: &b 1
y: *b
",
        )
        .expect("write");
        let cache = Arc::new(ParseCache::default());
        let options = options(&cache);
        let first = read(dir.path(), "a.yaml", &options);
        let aliased = read(dir.path(), "b.yaml", &options);
        std::fs::write(
            dir.path().join("a.yaml"),
            "kind: Secret
",
        )
        .expect("write");
        std::fs::write(
            dir.path().join("b.yaml"),
            "x: &b 2
y: *b
",
        )
        .expect("write");
        let again = read(dir.path(), "a.yaml", &options);
        assert!(Arc::ptr_eq(&first, &again), "the path was read again");
        let aliased_again = read(dir.path(), "b.yaml", &options);
        assert_ne!(aliased[0].root, aliased_again[0].root);
    }

    #[test]
    fn a_text_read_by_several_threads_at_once_is_parsed_once() {
        let cache = ParseCache::default();
        let parses = std::sync::atomic::AtomicUsize::new(0);
        let barrier = std::sync::Barrier::new(4);
        let results: Vec<Arc<[Document]>> = std::thread::scope(|scope| {
            let running: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        cache.parse_once("kind: ConfigMap\n".to_owned(), |text| {
                            parses.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(50));
                            yaml::parse_stream(text, &ParseOptions::default()).map(Arc::from)
                        })
                    })
                })
                .collect();
            running
                .into_iter()
                .map(|thread| thread.join().expect("thread").expect("parses"))
                .collect()
        });
        assert_eq!(parses.into_inner(), 1);
        assert!(results.iter().all(|r| Arc::ptr_eq(r, &results[0])));
        // A parse that fails is not kept: the next reader parses again.
        let failed: Result<Arc<[Document]>, ()> = cache.parse_once("a: [".to_owned(), |_| Err(()));
        assert!(failed.is_err());
        let again: Result<Arc<[Document]>, ()> =
            cache.parse_once("a: [".to_owned(), |_| Ok(Arc::from(Vec::new())));
        assert!(again.is_ok_and(|documents| documents.is_empty()));
    }
}
