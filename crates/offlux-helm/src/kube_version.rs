//! The target Kubernetes version (`.Capabilities.KubeVersion`, `--kube-version`) and the chart
//! `kubeVersion` constraint check.

use offlux_template::funcs::semver_api::{parse_version, satisfies};
use offlux_template::Value;

/// Why a version or a `kubeVersion` constraint could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KubeVersionError {
    /// `--kube-version` (or its equivalent) is not a semantic version.
    #[error("invalid kube version {text:?}: expected a semantic version")]
    Invalid { text: String },
    /// The version or the chart's constraint could not be read (the semver library's message).
    #[error("{message}")]
    Constraint { constraint: String, message: String },
}

/// A Kubernetes version as Helm's `chartutil.KubeVersion` holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeVersion {
    /// `v1.33.0`
    pub version: String,
    pub major: String,
    pub minor: String,
}

impl Default for KubeVersion {
    /// What Helm v4.2 assumes when no cluster is asked (its client libraries' version).
    fn default() -> Self {
        KubeVersion {
            version: "v1.36.0".into(),
            major: "1".into(),
            minor: "36".into(),
        }
    }
}

impl KubeVersion {
    /// Parses `1.33`, `v1.33.0` or `1.33.0-gke.1` as `helm template --kube-version` does.
    pub fn parse(text: &str) -> Result<KubeVersion, KubeVersionError> {
        let parsed = parse_version(text.trim()).map_err(|_| KubeVersionError::Invalid {
            text: text.to_string(),
        })?;
        let mut version = format!("v{}.{}.{}", parsed.major, parsed.minor, parsed.patch);
        if !parsed.pre.is_empty() {
            version.push('-');
            version.push_str(&parsed.pre);
        }
        if !parsed.metadata.is_empty() {
            version.push('+');
            version.push_str(&parsed.metadata);
        }
        Ok(KubeVersion {
            version,
            major: parsed.major.to_string(),
            minor: parsed.minor.to_string(),
        })
    }

    /// Whether a chart's `kubeVersion` constraint admits this version (Masterminds semantics).
    pub fn satisfies(&self, constraint: &str) -> Result<bool, KubeVersionError> {
        let unreadable = |message| KubeVersionError::Constraint {
            constraint: constraint.to_string(),
            message,
        };
        let version = parse_version(&self.version).map_err(unreadable)?;
        satisfies(constraint, &version).map_err(unreadable)
    }

    /// `.Capabilities.KubeVersion` as template data.
    pub(crate) fn template_data(&self) -> Value {
        Value::map(
            [
                ("Version", self.version.clone()),
                ("GitVersion", self.version.clone()),
                ("Major", self.major.clone()),
                ("Minor", self.minor.clone()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::String(v)))
            .collect(),
        )
    }
}
