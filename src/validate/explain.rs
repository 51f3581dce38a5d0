//! What each finding code means, why it matters and how to fix or silence it: the text of
//! `offlux explain CODE`. Every code has one (the match is exhaustive).

use super::Code;

/// The three parts of a code's explanation.
pub struct Explanation {
    /// What the finding says about the object.
    pub meaning: &'static str,
    /// What goes wrong in the cluster if it is left.
    pub why: &'static str,
    /// How to fix it, or to silence it where it is intended.
    pub fix: &'static str,
}

impl Code {
    pub(crate) fn explanation(self) -> Explanation {
        match self {
            Code::ProducerFailed => Explanation {
                meaning: "A Kustomization, HelmRelease or ResourceSet failed to build or render, \
                          or was blocked by one that did (a failed dependency, a missing source, \
                          a dependency cycle).",
                why: "Flux would apply nothing of it, and nothing it would apply was checked: a \
                      gate that only counted object findings would pass a broken change.",
                fix: "Fix the error the finding quotes (the file and line are the producer's). A \
                      source that exists only in the cluster can be skipped with \
                      `--allow-missing-sources`, or read from a directory with `--sources`. This \
                      code cannot be turned off.",
            },
            Code::DuplicateObject => Explanation {
                meaning: "The same object (group, kind, namespace, name) is rendered by two \
                          producers (Kustomizations or HelmReleases).",
                why: "Flux applies both: the producers overwrite each other on every \
                      reconciliation, and pruning one deletes the object the other needs. When the \
                      two copies differ the finding is an error; identical copies are a warning.",
                fix: "Keep the object in one producer (move it to a shared base both include \
                      once, or remove the copy). If the duplication is intended, annotate the \
                      object with `offlux.io/ignore: OFX101`.",
            },
            Code::MissingNamespace => Explanation {
                meaning: "A namespaced object has no namespace after every transform (kustomize \
                          `namespace:`, Flux `targetNamespace`, the HelmRelease's namespace).",
                why: "The API server puts it in the namespace of Flux's service account context, \
                      usually `flux-system` or `default`, rarely where it was meant to go.",
                fix: "Set `metadata.namespace`, a kustomization `namespace:`, or the Flux \
                      Kustomization's `spec.targetNamespace`.",
            },
            Code::UnsubstitutedVariable => Explanation {
                meaning:
                    "A `${VAR}` is left in a one-line value of the rendered output: post-build \
                          substitution did not define it.",
                why: "Flux applies the literal text `${VAR}` (or fails in strict mode): an image \
                      tag, host name or setting that was meant to be filled in is not.",
                fix: "Define the variable in `postBuild.substitute` or a `substituteFrom` \
                      ConfigMap/Secret, give it a default (`${VAR:=value}`), or escape a literal \
                      dollar as `$${VAR}`. For variables only the cluster holds, pass \
                      `--substitute NAME=VALUE` or `--substitute-from FILE`.",
            },
            Code::RemovedApiVersion => Explanation {
                meaning: "The object's apiVersion is no longer served by the target Kubernetes \
                          version (`--kube-version`).",
                why: "The API server rejects the object: the whole Kustomization fails to apply, \
                      and everything that depends on it waits.",
                fix: "Move the object to the API version that replaced it (the finding names it), \
                      or render for the Kubernetes version the cluster runs with \
                      `--kube-version`.",
            },
            Code::DeprecatedApiVersion => Explanation {
                meaning: "The object's apiVersion is deprecated at the target Kubernetes version \
                          and will be removed in a later one.",
                why: "It applies today, and breaks on the upgrade that removes it.",
                fix: "Move the object to the API version the finding names. To silence it until \
                      then, set `OFX105: off` under `validate.severities` in `.offlux.yaml`.",
            },
            Code::NamespaceNotCreated => Explanation {
                meaning: "An object is put in a namespace that no rendered object creates.",
                why: "Unless the cluster already has it (created by hand, or by another \
                      repository), the apply fails with `namespace not found`.",
                fix: "Add the Namespace to the Kustomization that needs it (or one it depends \
                      on). If the namespace is made outside this repository, annotate the object \
                      with `offlux.io/ignore: OFX106` or turn the code off in `.offlux.yaml`.",
            },
            Code::SchemaViolation => Explanation {
                meaning: "The object breaks the schema of its kind: the Kubernetes JSON schema of \
                          a built-in kind, or the OpenAPI schema and CEL rules of its CRD.",
                why: "The API server rejects it (an unknown field under strict decoding, a wrong \
                      type, a missing required field, a failed validation rule), and the \
                      producer's apply fails.",
                fix: "Correct the field at the JSON path and line the finding gives. A typo in a \
                      field name is the most common cause.",
            },
            Code::SchemaUnknown => Explanation {
                meaning: "No schema is known for the object's kind: not a built-in kind, no CRD \
                          rendered alongside it, none given with `--crds`.",
                why: "The object is not checked at all, so any mistake in it goes unnoticed; and \
                      if the CRD is missing from the cluster too, the apply fails.",
                fix: "Render the CRD with the repository, or give it with `--crds PATH` (a file \
                      or directory of CRD manifests). With `--strict-schemas` this is an error.",
            },
            Code::MissingReference => Explanation {
                meaning: "A pod spec refers to a ConfigMap, Secret, ServiceAccount or \
                          PersistentVolumeClaim that no rendered object provides.",
                why: "The pod does not start (`CreateContainerConfigError`, or pending on the \
                      claim) unless the object exists in the cluster some other way.",
                fix: "Add the object, fix the name, or mark the reference `optional: true` where \
                      Kubernetes allows it. For objects made outside the repository (a \
                      controller, by hand), annotate with `offlux.io/ignore: OFX109`.",
            },
            Code::UnusedValuesKey => Explanation {
                meaning: "A HelmRelease sets a values key that no template of its chart reads.",
                why: "The setting has no effect: usually a typo, a key the chart renamed, or \
                      indentation that put it under the wrong parent.",
                fix: "Compare with the chart's `values.yaml` for the version pinned and move or \
                      rename the key. The check is static; if a template reads the key in a way \
                      it cannot see, annotate the HelmRelease with `offlux.io/ignore: OFX110`.",
            },
            Code::OrphanManifest => Explanation {
                meaning: "A YAML file holds Kubernetes objects, but no Kustomization reached from \
                          the entry point applies it, no kustomization.yaml lists it (as a \
                          resource, patch, component or generator file) and it is no chart file. \
                          With one `--path`, only files in directories that cluster applies from \
                          are judged; `--all-entry-points` judges every file against every \
                          cluster.",
                why: "Flux says nothing about a file nothing applies: the objects simply never \
                      reach the cluster. Usually a file not added to its directory's \
                      kustomization.yaml, or a typo in a `spec.path`.",
                fix: "List the file in its kustomization.yaml or point a Kustomization at its \
                      directory, or delete it. To keep an intended leftover (an example, an \
                      archive, a file applied by hand), annotate one of its objects with \
                      `offlux.io/ignore: OFX111` or add a glob under `validate.orphans.ignore` in \
                      `.offlux.yaml`; another cluster's entry point goes under \
                      `validate.orphans.entry-points`.",
            },
            Code::ForgottenProducer => Explanation {
                meaning: "A Flux Kustomization, HelmRelease, ResourceSet or source is written in \
                          a file that nothing reached from the entry point applies: a forgotten \
                          app (an app's `ks.yaml` missing from its parent kustomization.yaml, \
                          say).",
                why: "The app is never deployed, and Flux reports nothing: the object that would \
                      have reported a failure does not exist in the cluster.",
                fix: "Add the file to the kustomization.yaml of a directory a Kustomization \
                      applies, or delete it. If it is intended (applied by another cluster, or \
                      by hand), list that cluster's entry point under \
                      `validate.orphans.entry-points` in `.offlux.yaml`, annotate the object \
                      with `offlux.io/ignore: OFX112`, or add the path under \
                      `validate.orphans.ignore`.",
            },
            Code::UnusedSource => Explanation {
                meaning: "A GitRepository, OCIRepository, HelmRepository, HelmChart or Bucket is \
                          applied, but no Kustomization, HelmRelease, HelmChart, ArtifactGenerator \
                          or other object refers to it by kind and name.",
                why: "Flux fetches it on every interval for nothing; often a leftover of a \
                      removed app, or a reference with a misspelt name (which then fails).",
                fix: "Delete the source, or fix the `sourceRef`/`chartRef` meant to use it. If \
                      something outside the repository uses it, annotate it with \
                      `offlux.io/ignore: OFX113`.",
            },
            Code::UnreadValues => Explanation {
                meaning: "A ConfigMap or Secret made by a kustomize generator, whose name says it \
                          holds values or variables (`values`, `vars`, `settings`...) or which \
                          holds a `values.yaml`, is named by no HelmRelease `valuesFrom`, \
                          Kustomization `substituteFrom` or other object.",
                why: "The values never reach a chart or a substitution: usually the HelmRelease \
                      was renamed or its `valuesFrom` was lost, and the settings silently stopped \
                      applying.",
                fix: "Add the `valuesFrom`/`substituteFrom` entry that should read it, or delete \
                      the generator. If something outside the repository reads it, annotate it \
                      (generatorOptions annotations) with `offlux.io/ignore: OFX114`.",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_by_number_and_name_and_is_explained() {
        for code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(code));
            assert_eq!(Code::parse(&code.as_str().to_lowercase()), Some(code));
            assert_eq!(Code::parse(code.name()), Some(code));
            let text = code.explanation();
            for part in [text.meaning, text.why, text.fix] {
                assert!(part.len() > 40, "{}: {part}", code.as_str());
            }
        }
        assert_eq!(Code::parse("OFX999"), None);
        assert_eq!(Code::parse(""), None);
    }
}
