//! A render's identity, for a cache of renders kept by the caller: the SHA-256 of everything
//! [`crate::template`] reads (the chart with its subcharts — `Chart.yaml`, values, schema,
//! templates, other files —, the user's values, the release and the render options), so two
//! renders with one key give the same [`Rendered`]. Of the run's budget only the limit each render
//! has on its own (template steps) is part of it: a render within one limit may not be within
//! another. What a render charges the run's shared budget is the caller's to keep beside it.
//! `Rendered` is written and read back as JSON.
//!
//! Not for: deciding where a cache lives, what else (the program's own build) a key must hold,
//! or whether a render is worth caching: the caller's.

use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};

use crate::render::{RenderOptions, Rendered};
use crate::sort::Manifest;
use crate::Chart;
use offlux_template::Value;

/// Feeds `Debug` output to the hasher without building the string.
struct HashWriter<'a>(&'a mut Sha256);

impl std::fmt::Write for HashWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.update(s.as_bytes());
        Ok(())
    }
}

fn field(hasher: &mut Sha256, name: &str, value: &dyn std::fmt::Debug) {
    use std::fmt::Write as _;
    // Each field framed by its name and the end of its text, so no two inputs run together.
    hasher.update(name.as_bytes());
    hasher.update(b"=");
    let _ = write!(HashWriter(hasher), "{value:?}");
    hasher.update(b"\0");
}

fn bytes(hasher: &mut Sha256, name: &str, data: &[u8]) {
    hasher.update(name.as_bytes());
    hasher.update((data.len() as u64).to_le_bytes());
    hasher.update(data);
}

fn chart(hasher: &mut Sha256, chart: &Chart) {
    field(hasher, "values", &chart.values);
    chart_but_values(hasher, chart);
}

/// All of `chart` but its own values (which a release's `valuesFiles` may replace).
fn chart_but_values(hasher: &mut Sha256, chart: &Chart) {
    field(hasher, "metadata", &chart.metadata);
    if let Some(schema) = &chart.schema {
        bytes(hasher, "schema", schema);
    }
    for (kind, files) in [("template", &chart.templates), ("file", &chart.files)] {
        for file in files {
            bytes(hasher, kind, file.name.as_bytes());
            bytes(hasher, "data", &file.data);
        }
    }
    for dependency in &chart.dependencies {
        hasher.update(b"dependency{");
        self::chart(hasher, dependency);
        hasher.update(b"}");
    }
}

/// The key of rendering `chart` with `values` as `options` say, as 64 hex digits.
pub fn render_key(chart: &Chart, values: &Value, options: &RenderOptions) -> String {
    render_key_of(&chart_digest(chart), chart, values, options)
}

/// The digest of all of `chart` but its own values (its metadata, schema, templates, files and
/// subcharts whole), for [`render_key_of`]: worked out once for a chart many releases render.
pub fn chart_digest(chart: &Chart) -> String {
    let mut hasher = Sha256::new();
    chart_but_values(&mut hasher, chart);
    hex::encode(hasher.finalize())
}

/// [`render_key`], with `digest` the [`chart_digest`] of `chart` (whose own values may have been
/// replaced since: they are hashed here).
pub fn render_key_of(
    digest: &str,
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"offlux-helm render v2\0");
    bytes(&mut hasher, "chart", digest.as_bytes());
    field(&mut hasher, "values", &chart.values);
    field(&mut hasher, "user-values", values);
    field(&mut hasher, "release", &options.release);
    field(&mut hasher, "kube-version", &options.kube_version);
    field(&mut hasher, "api-versions", &options.api_versions);
    field(
        &mut hasher,
        "flags",
        &(
            options.include_crds,
            options.skip_tests,
            options.no_hooks,
            options.validate_schema,
            options.now_unix,
        ),
    );
    field(
        &mut hasher,
        "template-steps-limit",
        &options.run.limits().template_steps,
    );
    hex::encode(hasher.finalize())
}

fn manifests_json(manifests: &[Manifest]) -> Json {
    Json::Array(
        manifests
            .iter()
            .map(|m| json!([m.source, m.content, m.kind, m.hook_events]))
            .collect(),
    )
}

fn manifests_from(json: &Json) -> Option<Vec<Manifest>> {
    json.as_array()?
        .iter()
        .map(|m| {
            let m = m.as_array()?;
            Some(Manifest {
                source: m.first()?.as_str()?.to_owned(),
                content: m.get(1)?.as_str()?.to_owned(),
                kind: m.get(2)?.as_str()?.to_owned(),
                hook_events: m
                    .get(3)?
                    .as_array()?
                    .iter()
                    .map(|e| e.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()?,
            })
        })
        .collect()
}

/// `rendered` as JSON, for a cache entry.
pub fn rendered_to_json(rendered: &Rendered) -> String {
    json!({
        "crds": manifests_json(&rendered.crds),
        "manifests": manifests_json(&rendered.manifests),
        "hooks": manifests_json(&rendered.hooks),
        "notes": rendered.notes,
    })
    .to_string()
}

/// A cache entry read back; `None` for anything that is not one (the entry is then a miss).
pub fn rendered_from_json(text: &str) -> Option<Rendered> {
    let json: Json = serde_json::from_str(text).ok()?;
    Some(Rendered {
        crds: manifests_from(json.get("crds")?)?,
        manifests: manifests_from(json.get("manifests")?)?,
        hooks: manifests_from(json.get("hooks")?)?,
        notes: match json.get("notes")? {
            Json::Null => None,
            notes => Some(notes.as_str()?.to_owned()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ChartFile, Metadata, RenderOptions};
    use std::collections::BTreeMap;

    fn file(name: &str, text: &str) -> ChartFile {
        ChartFile {
            name: name.to_owned(),
            data: text.as_bytes().to_vec().into(),
        }
    }

    fn chart() -> Chart {
        let sub = Chart {
            metadata: Metadata {
                name: "sub".into(),
                version: "0.1.0".into(),
                ..Metadata::default()
            },
            templates: vec![file("templates/s.yaml", "kind: S")],
            ..Chart::default()
        };
        Chart {
            metadata: Metadata {
                api_version: "v2".into(),
                name: "app".into(),
                version: "1.0.0".into(),
                ..Metadata::default()
            },
            values: Value::map(BTreeMap::from([("a".to_owned(), Value::Int(1))])),
            schema: Some(b"{}".to_vec()),
            templates: vec![file("templates/cm.yaml", "kind: ConfigMap")],
            files: vec![file("files/x.txt", "x")],
            dependencies: vec![sub],
            ..Chart::default()
        }
    }

    /// A named change to one input.
    type Change<T> = (&'static str, Box<dyn Fn(&mut T)>);

    /// Every kind of input a render reads changes the key: a stale entry is never read back.
    #[test]
    fn every_input_of_a_render_is_in_its_key() {
        let values = Value::map(BTreeMap::from([("b".to_owned(), Value::Int(2))]));
        let options = RenderOptions::new("rel", "ns");
        let base = render_key(&chart(), &values, &options);
        assert_eq!(base, render_key(&chart(), &values, &options), "stable");
        let changed_chart: Vec<Change<Chart>> = vec![
            (
                "template",
                Box::new(|c| c.templates[0] = file("templates/cm.yaml", "kind: Secret")),
            ),
            (
                "template name",
                Box::new(|c| c.templates[0].name = "templates/other.yaml".into()),
            ),
            ("file", Box::new(|c| c.files[0] = file("files/x.txt", "y"))),
            (
                "values.yaml",
                Box::new(|c| c.values = Value::map(BTreeMap::new())),
            ),
            (
                "schema",
                Box::new(|c| c.schema = Some(b"{\"type\":\"object\"}".to_vec())),
            ),
            (
                "Chart.yaml",
                Box::new(|c| c.metadata.app_version = "2".into()),
            ),
            (
                "subchart",
                Box::new(|c| c.dependencies[0].templates[0] = file("templates/s.yaml", "kind: T")),
            ),
            ("no subchart", Box::new(|c| c.dependencies.clear())),
        ];
        for (what, change) in changed_chart {
            let mut c = chart();
            change(&mut c);
            assert_ne!(render_key(&c, &values, &options), base, "{what}");
            // A digest worked out once stands for all of the chart but its own values, which a
            // release's `valuesFiles` replace after it is taken: those are hashed with the key.
            let digest = chart_digest(&c);
            assert_eq!(
                render_key_of(&digest, &c, &values, &options),
                render_key(&c, &values, &options),
                "{what}"
            );
            if what != "values.yaml" {
                assert_ne!(digest, chart_digest(&chart()), "{what}");
            }
        }
        let mut replaced = chart();
        replaced.values = Value::map(BTreeMap::new());
        assert_ne!(
            render_key_of(&chart_digest(&chart()), &replaced, &values, &options),
            base,
            "values replaced after the digest"
        );
        let other_values = Value::map(BTreeMap::from([("b".to_owned(), Value::Int(3))]));
        assert_ne!(
            render_key(&chart(), &other_values, &options),
            base,
            "user values"
        );
        let changed_options: Vec<Change<RenderOptions>> = vec![
            (
                "release name",
                Box::new(|o| o.release.name = "other".into()),
            ),
            (
                "namespace",
                Box::new(|o| o.release.namespace = "other".into()),
            ),
            ("upgrade", Box::new(|o| o.release.is_upgrade = true)),
            ("revision", Box::new(|o| o.release.revision = 2)),
            (
                "kube version",
                Box::new(|o| {
                    o.kube_version =
                        crate::KubeVersion::parse("v1.20.0").unwrap_or_else(|e| panic!("{e}"))
                }),
            ),
            (
                "api versions",
                Box::new(|o| o.api_versions.push("x/v1".into())),
            ),
            ("crds", Box::new(|o| o.include_crds = !o.include_crds)),
            ("tests", Box::new(|o| o.skip_tests = !o.skip_tests)),
            ("hooks", Box::new(|o| o.no_hooks = !o.no_hooks)),
            (
                "schema check",
                Box::new(|o| o.validate_schema = !o.validate_schema),
            ),
            ("clock", Box::new(|o| o.now_unix += 1)),
            (
                "template steps limit",
                Box::new(|o| {
                    o.run =
                        std::sync::Arc::new(offlux_budget::RunBudget::new(offlux_budget::Limits {
                            template_steps: 7,
                            ..offlux_budget::Limits::default()
                        }))
                }),
            ),
        ];
        for (what, change) in changed_options {
            let mut o = RenderOptions::new("rel", "ns");
            change(&mut o);
            assert_ne!(render_key(&chart(), &values, &o), base, "{what}");
        }
    }

    #[test]
    fn a_rendered_release_reads_back_as_written_and_junk_is_a_miss() {
        let manifest = |source: &str, hooks: &[&str]| Manifest {
            source: source.into(),
            content: "kind: ConfigMap\nmetadata: {name: x}".into(),
            kind: "ConfigMap".into(),
            hook_events: hooks.iter().map(|h| h.to_string()).collect(),
        };
        let rendered = Rendered {
            crds: vec![manifest("app/crds/c.yaml", &[])],
            manifests: vec![manifest("app/templates/cm.yaml", &[])],
            hooks: vec![manifest("app/templates/job.yaml", &["pre-install"])],
            notes: Some("hello".into()),
        };
        assert_eq!(
            rendered_from_json(&rendered_to_json(&rendered)),
            Some(rendered)
        );
        for junk in [
            "",
            "{}",
            "[]",
            r#"{"crds":[],"manifests":[[1]],"hooks":[],"notes":null}"#,
        ] {
            assert_eq!(rendered_from_json(junk), None, "{junk}");
        }
    }
}
