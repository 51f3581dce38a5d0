//! The runs the corpus-wide tests make: every corpus repository from its root (as the
//! pre-commit hooks run it) and every incoming repository at the entry point and with the
//! `--sources` its README gives (shared by `tests/it/verdicts.rs` and `tests/it/get_matches_test.rs`).

use std::path::{Path, PathBuf};

/// A repository of `corpus/incoming` with its entry point and `--sources`, as its README gives.
struct Incoming {
    /// The name the rows are listed under (a repository run at two entry points has two).
    label: &'static str,
    repository: &'static str,
    entry: &'static str,
    sources: &'static str,
}

const INCOMING: &[Incoming] = &[
    Incoming {
        label: "allenporter__k8s-gitops",
        repository: "allenporter__k8s-gitops",
        entry: "kubernetes/clusters/prod",
        sources: "",
    },
    Incoming {
        label: "artazar__flux2-general@demo-000",
        repository: "artazar__flux2-general",
        entry: "clusters/demo-000",
        sources: "",
    },
    Incoming {
        label: "artazar__flux2-general@demo-001",
        repository: "artazar__flux2-general",
        entry: "clusters/demo-001",
        sources: "",
    },
    Incoming {
        label: "carpenike__k8s-gitops",
        repository: "carpenike__k8s-gitops",
        entry: "kubernetes/cluster-0/flux",
        sources: "k8s-gitops-kubernetes",
    },
    Incoming {
        label: "controlplaneio-fluxcd__d1-fleet",
        repository: "controlplaneio-fluxcd__d1-fleet",
        entry: "clusters/staging",
        sources: "",
    },
    Incoming {
        label: "fluxcd__flux2-hub-spoke-example",
        repository: "fluxcd__flux2-hub-spoke-example",
        entry: "hub",
        sources: "",
    },
    Incoming {
        label: "gavinmcfall__home-ops",
        repository: "gavinmcfall__home-ops",
        entry: "kubernetes/flux",
        sources: "home-kubernetes",
    },
    Incoming {
        label: "kashalls__home-cluster",
        repository: "kashalls__home-cluster",
        entry: "kubernetes/flux/cluster",
        sources: "home-kubernetes",
    },
    Incoming {
        label: "matheuscscp__flux-operator-cluster-api-example",
        repository: "matheuscscp__flux-operator-cluster-api-example",
        entry: "clusters/hub",
        sources: "",
    },
    Incoming {
        label: "mirceanton__home-ops",
        repository: "mirceanton__home-ops",
        entry: "apps",
        sources: "",
    },
    Incoming {
        label: "rcdailey__home-ops",
        repository: "rcdailey__home-ops",
        entry: "kubernetes/flux/cluster",
        sources: "",
    },
    Incoming {
        label: "sulibot__home-ops",
        repository: "sulibot__home-ops",
        entry: "kubernetes/clusters/production",
        sources: "",
    },
    Incoming {
        label: "szinn__k8s-homelab",
        repository: "szinn__k8s-homelab",
        entry: "kubernetes/main/cluster/config",
        sources: "",
    },
    Incoming {
        label: "tyriis__home-ops",
        repository: "tyriis__home-ops",
        entry: "kubernetes/main/flux",
        sources: "",
    },
    Incoming {
        label: "zhorvath83__home-ops",
        repository: "zhorvath83__home-ops",
        entry: "kubernetes/flux/cluster",
        sources: "flux-system",
    },
];

/// Corpus repositories whose self-managing GitRepository is the repository itself, by URL. A
/// checkout finds it through its `origin` remote; the corpus copies have no `.git`, so the run
/// says it as such a user would (`--sources`).
const CHECKOUT_SOURCES: &[(&str, &str)] = &[("toboshii__home-ops", "flux-cluster")];

/// One run: the repository's label, its root, the `--path` and the extra arguments.
pub(crate) struct Run {
    pub(crate) label: String,
    pub(crate) root: PathBuf,
    pub(crate) path: PathBuf,
    pub(crate) args: Vec<String>,
}

pub(crate) fn runs(shared: &Path) -> Vec<Run> {
    let mut runs = Vec::new();
    let repos = shared.join("corpus/repos");
    let mut roots: Vec<PathBuf> = std::fs::read_dir(&repos)
        .expect("read corpus/repos")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    roots.sort();
    for root in roots {
        let label = root
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let args = CHECKOUT_SOURCES
            .iter()
            .filter(|(repository, _)| *repository == label)
            .map(|(_, source)| format!("--sources={source}"))
            .collect();
        runs.push(Run {
            label,
            path: root.clone(),
            root,
            args,
        });
    }
    let incoming = shared.join("corpus/incoming");
    for repo in INCOMING {
        let root = incoming.join(repo.repository);
        let mut args = Vec::new();
        if !repo.sources.is_empty() {
            args.push(format!("--sources={}", repo.sources));
        }
        runs.push(Run {
            label: repo.label.to_owned(),
            path: root.join(repo.entry),
            root,
            args,
        });
    }
    runs
}
