
use builtin;
use str;

set edit:completion:arg-completer[offlux] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'offlux'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'offlux'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand get 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources'
            cand test 'Reconcile the repository as Flux would, without a cluster, and report each Flux object: PASS, FAIL, SKIPPED, BLOCKED'
            cand validate 'Check every rendered object: Kubernetes and CRD schemas, duplicates, missing namespaces, unsubstituted variables, removed and deprecated API versions, references nothing provides, values keys no template reads, orphans (codes OFX101-OFX114); a producer that failed is OFX100'
            cand build 'Print the objects one Kustomization or HelmRelease (or every Kustomization) would apply'
            cand render 'Render everything that would be applied, to stdout or one file per producer (`--out DIR`)'
            cand kustomize 'Native kustomize: `offlux kustomize build DIR`'
            cand helm 'Native Helm: `offlux helm template CHART [RELEASE]`'
            cand diff 'What a change does to the cluster: reconcile a base revision (by default the merge base with the default branch) and the working tree, and compare them object by object'
            cand graph 'Show the dependency graph: dependsOn, sources, data, and what applies what'
            cand explain 'Explain a finding code (OFX100...): what it means, why it matters, how to fix or silence it'
            cand completions 'Print a shell completion script'
            cand cache 'The charts and sources offlux downloaded and keeps across runs: `list`, `gc`, `clear`'
            cand init 'Write a first `.offlux.yaml` for the clusters found here (and, on request, a GitHub workflow and a pre-commit configuration)'
            cand config 'The repository''s `.offlux.yaml`: the settings a run takes and where each came from (`show`), or the file''s JSON Schema (`schema`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;get'= {
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --concurrency 'Objects reconciled at once, 1 to 128 [default: the number of cores]'
            cand --substitute 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)'
            cand --substitute-from 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)'
            cand --kube-version 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)'
            cand --chart-cache 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository'
            cand --proxy 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)'
            cand --registry-config 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch'
            cand --network-idle-timeout 'Seconds a fetch may wait for its next bytes before it fails [default: 15]'
            cand --network-deadline 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]'
            cand --max-template-steps 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]'
            cand --max-rendered-objects 'Objects the run''s producers may hold at once, over the whole run [default: 50000]'
            cand --max-rendered-bytes 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]'
            cand --max-alias-nodes 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]'
            cand --max-extracted-bytes 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]'
            cand --max-loaded-chart-bytes 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]'
            cand --secret-producer 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)'
            cand --resourceset-inputs 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)'
            cand --sources 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)'
            cand -n 'Only objects in this namespace'
            cand --namespace 'Only objects in this namespace'
            cand -l 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated'
            cand --selector 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --allow-missing-sources 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
            cand --strict-substitutions 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)'
            cand --redact-secret-values 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
            cand --offline 'Never fetch charts or sources over the network; what the caches lack is reported missing'
            cand --allow-private-network 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
            cand --no-cache 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
            cand -A 'Objects in every namespace (the default when no namespace is given)'
            cand --all-namespaces 'Objects in every namespace (the default when no namespace is given)'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;test'= {
            cand -n 'Only objects in this namespace'
            cand --namespace 'Only objects in this namespace'
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --concurrency 'Objects reconciled at once, 1 to 128 [default: the number of cores]'
            cand --substitute 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)'
            cand --substitute-from 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)'
            cand --kube-version 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)'
            cand --chart-cache 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository'
            cand --proxy 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)'
            cand --registry-config 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch'
            cand --network-idle-timeout 'Seconds a fetch may wait for its next bytes before it fails [default: 15]'
            cand --network-deadline 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]'
            cand --max-template-steps 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]'
            cand --max-rendered-objects 'Objects the run''s producers may hold at once, over the whole run [default: 50000]'
            cand --max-rendered-bytes 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]'
            cand --max-alias-nodes 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]'
            cand --max-extracted-bytes 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]'
            cand --max-loaded-chart-bytes 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]'
            cand --secret-producer 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)'
            cand --resourceset-inputs 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)'
            cand --sources 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)'
            cand --base 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]'
            cand --crds 'CustomResourceDefinitions for kinds the repository uses but does not install (a file, or a directory of YAML or JSON files, read recursively). CRDs the repository renders win'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-scope 'With a NAME, reconcile the whole repository, not only what NAME depends on (the rows are the same; this is slower, for comparing)'
            cand --allow-missing-sources 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
            cand --strict-substitutions 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)'
            cand --redact-secret-values 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
            cand --offline 'Never fetch charts or sources over the network; what the caches lack is reported missing'
            cand --allow-private-network 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
            cand --no-cache 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
            cand --changed-only 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git'
            cand --validate 'Also check every rendered object as `offlux validate` does: each error is a FAIL row for its object; warnings are counted on stderr'
            cand --strict-schemas 'An object of a kind whose schema is nowhere (no built-in kind, no CRD) is an error (OFX108), not a warning'
            cand --all-entry-points 'Judge every file of the repository for orphans (OFX111, OFX112) against what every entry point applies: `--path`, the `validate.orphans.entry-points` of `.offlux.yaml`, and each directory a bootstrap Kustomization (`flux-system`) or FluxInstance syncs'
            cand -q 'List only the objects that FAIL or are BLOCKED (the summary still counts every object)'
            cand --failures-only 'List only the objects that FAIL or are BLOCKED (the summary still counts every object)'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;validate'= {
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --concurrency 'Objects reconciled at once, 1 to 128 [default: the number of cores]'
            cand --substitute 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)'
            cand --substitute-from 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)'
            cand --kube-version 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)'
            cand --chart-cache 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository'
            cand --proxy 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)'
            cand --registry-config 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch'
            cand --network-idle-timeout 'Seconds a fetch may wait for its next bytes before it fails [default: 15]'
            cand --network-deadline 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]'
            cand --max-template-steps 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]'
            cand --max-rendered-objects 'Objects the run''s producers may hold at once, over the whole run [default: 50000]'
            cand --max-rendered-bytes 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]'
            cand --max-alias-nodes 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]'
            cand --max-extracted-bytes 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]'
            cand --max-loaded-chart-bytes 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]'
            cand --secret-producer 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)'
            cand --resourceset-inputs 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)'
            cand --sources 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --report-sarif 'Also write the SARIF report (code scanning) to FILE, from the same check'
            cand --report-json 'Also write the JSON report to FILE, from the same check'
            cand --report-junit 'Also write the JUnit report to FILE, from the same check'
            cand --report-human 'Also write the plain-text report to FILE, from the same check'
            cand --crds 'CustomResourceDefinitions for kinds the repository uses but does not install (a file, or a directory of YAML or JSON files, read recursively). CRDs the repository renders win'
            cand --base 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --allow-missing-sources 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
            cand --strict-substitutions 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)'
            cand --redact-secret-values 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
            cand --offline 'Never fetch charts or sources over the network; what the caches lack is reported missing'
            cand --allow-private-network 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
            cand --no-cache 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
            cand --strict-schemas 'An object of a kind whose schema is nowhere (no built-in kind, no CRD) is an error (OFX108), not a warning'
            cand --all-entry-points 'Judge every file of the repository for orphans (OFX111, OFX112) against what every entry point applies: `--path`, the `validate.orphans.entry-points` of `.offlux.yaml`, and each directory a bootstrap Kustomization (`flux-system`) or FluxInstance syncs'
            cand --changed-only 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;build'= {
            cand -n 'The object''s namespace'
            cand --namespace 'The object''s namespace'
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --concurrency 'Objects reconciled at once, 1 to 128 [default: the number of cores]'
            cand --substitute 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)'
            cand --substitute-from 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)'
            cand --kube-version 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)'
            cand --chart-cache 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository'
            cand --proxy 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)'
            cand --registry-config 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch'
            cand --network-idle-timeout 'Seconds a fetch may wait for its next bytes before it fails [default: 15]'
            cand --network-deadline 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]'
            cand --max-template-steps 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]'
            cand --max-rendered-objects 'Objects the run''s producers may hold at once, over the whole run [default: 50000]'
            cand --max-rendered-bytes 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]'
            cand --max-alias-nodes 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]'
            cand --max-extracted-bytes 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]'
            cand --max-loaded-chart-bytes 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]'
            cand --secret-producer 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)'
            cand --resourceset-inputs 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)'
            cand --sources 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)'
            cand --skip-secrets 'Leave Secrets out of the output'
            cand --skip-crds 'Leave CustomResourceDefinitions out of the output'
            cand --skip-kinds 'Leave these kinds out (comma-separated)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand -A 'Every namespace (for `ks` and `hr` without a NAME)'
            cand --all-namespaces 'Every namespace (for `ks` and `hr` without a NAME)'
            cand --no-scope 'With a NAME, reconcile the whole repository, not only what NAME depends on (the output is the same; this is slower, for comparing)'
            cand --allow-missing-sources 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
            cand --strict-substitutions 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)'
            cand --redact-secret-values 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
            cand --offline 'Never fetch charts or sources over the network; what the caches lack is reported missing'
            cand --allow-private-network 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
            cand --no-cache 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;render'= {
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --concurrency 'Objects reconciled at once, 1 to 128 [default: the number of cores]'
            cand --substitute 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)'
            cand --substitute-from 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)'
            cand --kube-version 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)'
            cand --chart-cache 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository'
            cand --proxy 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)'
            cand --registry-config 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch'
            cand --network-idle-timeout 'Seconds a fetch may wait for its next bytes before it fails [default: 15]'
            cand --network-deadline 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]'
            cand --max-template-steps 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]'
            cand --max-rendered-objects 'Objects the run''s producers may hold at once, over the whole run [default: 50000]'
            cand --max-rendered-bytes 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]'
            cand --max-alias-nodes 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]'
            cand --max-extracted-bytes 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]'
            cand --max-loaded-chart-bytes 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]'
            cand --secret-producer 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)'
            cand --resourceset-inputs 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)'
            cand --sources 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)'
            cand --skip-secrets 'Leave Secrets out of the output'
            cand --skip-crds 'Leave CustomResourceDefinitions out of the output'
            cand --skip-kinds 'Leave these kinds out (comma-separated)'
            cand --base 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]'
            cand --out 'Write one file per producer under this directory instead of printing'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --allow-missing-sources 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
            cand --strict-substitutions 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)'
            cand --redact-secret-values 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
            cand --offline 'Never fetch charts or sources over the network; what the caches lack is reported missing'
            cand --allow-private-network 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
            cand --no-cache 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
            cand --changed-only 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git'
            cand --out-inside-repo 'Allow `--out DIR` inside the repository being rendered. Off by default: the repository (a stranger''s pull request) controls what is already there, and the next run would read the files written as part of the repository'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;kustomize'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand build 'Build a kustomization directory and print the result, as `kustomize build` does'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;kustomize;build'= {
            cand --load-restrictor 'Whether files outside the kustomization''s directory may be read'
            cand --reorder '`legacy` sorts by kind as the kustomize CLI does; `none` keeps input order (as Flux does)'
            cand -o 'Write the output to this file instead of stdout'
            cand --output 'Write the output to this file instead of stdout'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --enable-helm 'Refused: offlux never runs Helm as a kustomize plugin'
            cand --enable-alpha-plugins 'Refused: offlux never runs exec or KRM function plugins'
            cand --enable-exec 'Refused, as `--enable-alpha-plugins`'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: such keys are left out with a warning'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;kustomize;help'= {
            cand build 'Build a kustomization directory and print the result, as `kustomize build` does'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;kustomize;help;build'= {
        }
        &'offlux;kustomize;help;help'= {
        }
        &'offlux;helm'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand template 'Render a local chart and print the manifests, as `helm template` does'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;helm;template'= {
            cand -n 'The release namespace'
            cand --namespace 'The release namespace'
            cand -f 'Values files, merged in order (later files win)'
            cand --values 'Values files, merged in order (later files win)'
            cand --set 'Set values (`a.b=c,d[0]=e`), after the values files'
            cand --set-string 'Set string values, after `--set`'
            cand --kube-version 'The Kubernetes version templates see (default: v1.36.0, as Helm v4.2 assumes)'
            cand -a 'API versions added to `.Capabilities.APIVersions` (comma-separated or repeated)'
            cand --api-versions 'API versions added to `.Capabilities.APIVersions` (comma-separated or repeated)'
            cand -s 'Print only the documents of these templates (paths inside the chart, globs allowed)'
            cand --show-only 'Print only the documents of these templates (paths inside the chart, globs allowed)'
            cand --repeat 'Render this many times and print once (for benchmarks: start-up left out)'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --include-crds 'Print the chart''s CRDs (`crds/`) before the manifests'
            cand --no-hooks 'Leave hooks out'
            cand --skip-tests 'Leave test hooks out'
            cand --skip-schema-validation 'Do not validate values against `values.schema.json`'
            cand --is-upgrade 'Render as an upgrade (`.Release.IsUpgrade`)'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;helm;help'= {
            cand template 'Render a local chart and print the manifests, as `helm template` does'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;helm;help;template'= {
        }
        &'offlux;helm;help;help'= {
        }
        &'offlux;diff'= {
            cand -n 'With `ks` or `hr`: the object''s namespace [default: any]'
            cand --namespace 'With `ks` or `hr`: the object''s namespace [default: any]'
            cand -l 'With `ks` or `hr`: only the objects whose labels match (`key=value`, `key!=value`, `key`, `!key`, `key in (a,b)`, comma-separated), on either side; NAME may then be left out'
            cand --selector 'With `ks` or `hr`: only the objects whose labels match (`key=value`, `key!=value`, `key`, `!key`, `key in (a,b)`, comma-separated), on either side; NAME may then be left out'
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --concurrency 'Objects reconciled at once, 1 to 128 [default: the number of cores]'
            cand --substitute 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)'
            cand --substitute-from 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)'
            cand --kube-version 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)'
            cand --chart-cache 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository'
            cand --proxy 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)'
            cand --registry-config 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch'
            cand --network-idle-timeout 'Seconds a fetch may wait for its next bytes before it fails [default: 15]'
            cand --network-deadline 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]'
            cand --max-template-steps 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]'
            cand --max-rendered-objects 'Objects the run''s producers may hold at once, over the whole run [default: 50000]'
            cand --max-rendered-bytes 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]'
            cand --max-alias-nodes 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]'
            cand --max-extracted-bytes 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]'
            cand --max-loaded-chart-bytes 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]'
            cand --secret-producer 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)'
            cand --resourceset-inputs 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)'
            cand --sources 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)'
            cand --base 'The revision compared against [default: the merge base of HEAD with the default branch: `origin/HEAD`, else `main` or `master`]'
            cand --base-dir 'Compare against this directory instead of a revision: another checkout of the repository (its layout the same as the working tree''s, `--path` and `--root` taken relative to it)'
            cand --head 'The revision to compare [default: the working tree, uncommitted changes included]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand -U 'Unchanged lines shown around each change'
            cand --context 'Unchanged lines shown around each change'
            cand --out 'Also write both rendered trees, as `render --out` would, under `DIR/base` and `DIR/head` (Secrets left out)'
            cand --skip-crds 'Leave CustomResourceDefinitions out of the comparison'
            cand --skip-kinds 'Leave these kinds out (comma-separated)'
            cand --max-size 'With `-o markdown`: the most bytes printed (GitHub''s comments hold 65 536 characters); diffs that do not fit are left out with a note'
            cand --full-report-url 'With `-o markdown`: where the whole comparison can be read (the HTML report''s artifact, a CI job''s page), linked from the note of a report cut to `--max-size`'
            cand --strip-attr 'A label or annotation key left out of the comparison wherever a `metadata` holds it (a glob: `checksum/*`; repeatable), besides the default set'
            cand --report-markdown 'Also write the markdown report to FILE, from the same comparison (with `-o`, one run gives the PR comment, the annotations and the JSON)'
            cand --report-json 'Also write the JSON report to FILE, from the same comparison'
            cand --report-github 'Also write the GitHub annotations to FILE, from the same comparison'
            cand --report-human 'Also write the plain-text report to FILE, from the same comparison'
            cand --report-html 'Also write the HTML report to FILE (one self-contained page), from the same comparison'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --allow-missing-sources 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
            cand --strict-substitutions 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)'
            cand --redact-secret-values 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
            cand --offline 'Never fetch charts or sources over the network; what the caches lack is reported missing'
            cand --allow-private-network 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
            cand --no-cache 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
            cand --fields 'In the human and markdown reports, each changed object field by field (`path: before → after`, list items by their merge keys, moved items) instead of its unified diff'
            cand --exit-zero 'Exit with 0 when there are differences (failures to run are still 2)'
            cand --skip-secrets 'Leave Secrets out (by default they are compared with their values hidden)'
            cand --changed-only 'Reconcile and compare only the producers the change can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the others are left out of both sides, with a note'
            cand --no-default-strip 'Compare the labels and annotations a chart bump changes on every object, which are left out by default: `helm.sh/chart`, `chart`, `app.kubernetes.io/version`, `checksum/*`'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;graph'= {
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;explain'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;completions'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;cache'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)'
            cand gc 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days'
            cand clear 'Removes every archive, Git repository and remembered ref offlux stored'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;cache;list'= {
            cand -o 'o'
            cand --output 'output'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;cache;gc'= {
            cand --max-size 'The most bytes the cache keeps [default: 1073741824]'
            cand --older-than 'Archives stored more than this many days ago are removed too'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;cache;clear'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;cache;help'= {
            cand list 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)'
            cand gc 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days'
            cand clear 'Removes every archive, Git repository and remembered ref offlux stored'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;cache;help;list'= {
        }
        &'offlux;cache;help;gc'= {
        }
        &'offlux;cache;help;clear'= {
        }
        &'offlux;cache;help;help'= {
        }
        &'offlux;init'= {
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --github-workflow 'Also write `.github/workflows/offlux.yml`: `offlux validate` on every pull request and a `diff` comment'
            cand --pre-commit 'Also write `.pre-commit-config.yaml` with the offlux hooks'
            cand --force 'Replace files that are already there'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;config'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand show 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)'
            cand schema 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;config;show'= {
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand --concurrency 'Objects reconciled at once, 1 to 128 [default: the number of cores]'
            cand --substitute 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)'
            cand --substitute-from 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)'
            cand --kube-version 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)'
            cand --chart-cache 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository'
            cand --proxy 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)'
            cand --registry-config 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch'
            cand --network-idle-timeout 'Seconds a fetch may wait for its next bytes before it fails [default: 15]'
            cand --network-deadline 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]'
            cand --max-template-steps 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]'
            cand --max-rendered-objects 'Objects the run''s producers may hold at once, over the whole run [default: 50000]'
            cand --max-rendered-bytes 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]'
            cand --max-alias-nodes 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]'
            cand --max-extracted-bytes 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]'
            cand --max-loaded-chart-bytes 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]'
            cand --secret-producer 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)'
            cand --resourceset-inputs 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)'
            cand --sources 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --allow-missing-sources 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
            cand --strict-substitutions 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)'
            cand --redact-secret-values 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
            cand --offline 'Never fetch charts or sources over the network; what the caches lack is reported missing'
            cand --allow-private-network 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
            cand --no-cache 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
            cand --env-from-process 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;config;schema'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;config;help'= {
            cand show 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)'
            cand schema 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;config;help;show'= {
        }
        &'offlux;config;help;schema'= {
        }
        &'offlux;config;help;help'= {
        }
        &'offlux;help'= {
            cand get 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources'
            cand test 'Reconcile the repository as Flux would, without a cluster, and report each Flux object: PASS, FAIL, SKIPPED, BLOCKED'
            cand validate 'Check every rendered object: Kubernetes and CRD schemas, duplicates, missing namespaces, unsubstituted variables, removed and deprecated API versions, references nothing provides, values keys no template reads, orphans (codes OFX101-OFX114); a producer that failed is OFX100'
            cand build 'Print the objects one Kustomization or HelmRelease (or every Kustomization) would apply'
            cand render 'Render everything that would be applied, to stdout or one file per producer (`--out DIR`)'
            cand kustomize 'Native kustomize: `offlux kustomize build DIR`'
            cand helm 'Native Helm: `offlux helm template CHART [RELEASE]`'
            cand diff 'What a change does to the cluster: reconcile a base revision (by default the merge base with the default branch) and the working tree, and compare them object by object'
            cand graph 'Show the dependency graph: dependsOn, sources, data, and what applies what'
            cand explain 'Explain a finding code (OFX100...): what it means, why it matters, how to fix or silence it'
            cand completions 'Print a shell completion script'
            cand cache 'The charts and sources offlux downloaded and keeps across runs: `list`, `gc`, `clear`'
            cand init 'Write a first `.offlux.yaml` for the clusters found here (and, on request, a GitHub workflow and a pre-commit configuration)'
            cand config 'The repository''s `.offlux.yaml`: the settings a run takes and where each came from (`show`), or the file''s JSON Schema (`schema`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;help;get'= {
        }
        &'offlux;help;test'= {
        }
        &'offlux;help;validate'= {
        }
        &'offlux;help;build'= {
        }
        &'offlux;help;render'= {
        }
        &'offlux;help;kustomize'= {
            cand build 'Build a kustomization directory and print the result, as `kustomize build` does'
        }
        &'offlux;help;kustomize;build'= {
        }
        &'offlux;help;helm'= {
            cand template 'Render a local chart and print the manifests, as `helm template` does'
        }
        &'offlux;help;helm;template'= {
        }
        &'offlux;help;diff'= {
        }
        &'offlux;help;graph'= {
        }
        &'offlux;help;explain'= {
        }
        &'offlux;help;completions'= {
        }
        &'offlux;help;cache'= {
            cand list 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)'
            cand gc 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days'
            cand clear 'Removes every archive, Git repository and remembered ref offlux stored'
        }
        &'offlux;help;cache;list'= {
        }
        &'offlux;help;cache;gc'= {
        }
        &'offlux;help;cache;clear'= {
        }
        &'offlux;help;init'= {
        }
        &'offlux;help;config'= {
            cand show 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)'
            cand schema 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)'
        }
        &'offlux;help;config;show'= {
        }
        &'offlux;help;config;schema'= {
        }
        &'offlux;help;help'= {
        }
    ]
    $completions[$command]
}
