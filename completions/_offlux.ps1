
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'offlux' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'offlux'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'offlux' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Reconcile the repository as Flux would, without a cluster, and report each Flux object: PASS, FAIL, SKIPPED, BLOCKED')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check every rendered object: Kubernetes and CRD schemas, duplicates, missing namespaces, unsubstituted variables, removed and deprecated API versions, references nothing provides, values keys no template reads, orphans (codes OFX101-OFX114); a producer that failed is OFX100')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Print the objects one Kustomization or HelmRelease (or every Kustomization) would apply')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render everything that would be applied, to stdout or one file per producer (`--out DIR`)')
            [CompletionResult]::new('kustomize', 'kustomize', [CompletionResultType]::ParameterValue, 'Native kustomize: `offlux kustomize build DIR`')
            [CompletionResult]::new('helm', 'helm', [CompletionResultType]::ParameterValue, 'Native Helm: `offlux helm template CHART [RELEASE]`')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'What a change does to the cluster: reconcile a base revision (by default the merge base with the default branch) and the working tree, and compare them object by object')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Show the dependency graph: dependsOn, sources, data, and what applies what')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain a finding code (OFX100...): what it means, why it matters, how to fix or silence it')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'The charts and sources offlux downloaded and keeps across runs: `list`, `gc`, `clear`')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a first `.offlux.yaml` for the clusters found here (and, on request, a GitHub workflow and a pre-commit configuration)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'The repository''s `.offlux.yaml`: the settings a run takes and where each came from (`show`), or the file''s JSON Schema (`schema`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;get' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Objects reconciled at once, 1 to 128 [default: the number of cores]')
            [CompletionResult]::new('--substitute', '--substitute', [CompletionResultType]::ParameterName, 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)')
            [CompletionResult]::new('--substitute-from', '--substitute-from', [CompletionResultType]::ParameterName, 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)')
            [CompletionResult]::new('--chart-cache', '--chart-cache', [CompletionResultType]::ParameterName, 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)')
            [CompletionResult]::new('--registry-config', '--registry-config', [CompletionResultType]::ParameterName, 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch')
            [CompletionResult]::new('--network-idle-timeout', '--network-idle-timeout', [CompletionResultType]::ParameterName, 'Seconds a fetch may wait for its next bytes before it fails [default: 15]')
            [CompletionResult]::new('--network-deadline', '--network-deadline', [CompletionResultType]::ParameterName, 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]')
            [CompletionResult]::new('--max-template-steps', '--max-template-steps', [CompletionResultType]::ParameterName, 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]')
            [CompletionResult]::new('--max-rendered-objects', '--max-rendered-objects', [CompletionResultType]::ParameterName, 'Objects the run''s producers may hold at once, over the whole run [default: 50000]')
            [CompletionResult]::new('--max-rendered-bytes', '--max-rendered-bytes', [CompletionResultType]::ParameterName, 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]')
            [CompletionResult]::new('--max-extracted-bytes', '--max-extracted-bytes', [CompletionResultType]::ParameterName, 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]')
            [CompletionResult]::new('--max-loaded-chart-bytes', '--max-loaded-chart-bytes', [CompletionResultType]::ParameterName, 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]')
            [CompletionResult]::new('--secret-producer', '--secret-producer', [CompletionResultType]::ParameterName, 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)')
            [CompletionResult]::new('--resourceset-inputs', '--resourceset-inputs', [CompletionResultType]::ParameterName, 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only objects in this namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only objects in this namespace')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--allow-missing-sources', '--allow-missing-sources', [CompletionResultType]::ParameterName, 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed')
            [CompletionResult]::new('--strict-substitutions', '--strict-substitutions', [CompletionResultType]::ParameterName, 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)')
            [CompletionResult]::new('--redact-secret-values', '--redact-secret-values', [CompletionResultType]::ParameterName, 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Never fetch charts or sources over the network; what the caches lack is reported missing')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Objects in every namespace (the default when no namespace is given)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Objects in every namespace (the default when no namespace is given)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;test' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only objects in this namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only objects in this namespace')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Objects reconciled at once, 1 to 128 [default: the number of cores]')
            [CompletionResult]::new('--substitute', '--substitute', [CompletionResultType]::ParameterName, 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)')
            [CompletionResult]::new('--substitute-from', '--substitute-from', [CompletionResultType]::ParameterName, 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)')
            [CompletionResult]::new('--chart-cache', '--chart-cache', [CompletionResultType]::ParameterName, 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)')
            [CompletionResult]::new('--registry-config', '--registry-config', [CompletionResultType]::ParameterName, 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch')
            [CompletionResult]::new('--network-idle-timeout', '--network-idle-timeout', [CompletionResultType]::ParameterName, 'Seconds a fetch may wait for its next bytes before it fails [default: 15]')
            [CompletionResult]::new('--network-deadline', '--network-deadline', [CompletionResultType]::ParameterName, 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]')
            [CompletionResult]::new('--max-template-steps', '--max-template-steps', [CompletionResultType]::ParameterName, 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]')
            [CompletionResult]::new('--max-rendered-objects', '--max-rendered-objects', [CompletionResultType]::ParameterName, 'Objects the run''s producers may hold at once, over the whole run [default: 50000]')
            [CompletionResult]::new('--max-rendered-bytes', '--max-rendered-bytes', [CompletionResultType]::ParameterName, 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]')
            [CompletionResult]::new('--max-extracted-bytes', '--max-extracted-bytes', [CompletionResultType]::ParameterName, 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]')
            [CompletionResult]::new('--max-loaded-chart-bytes', '--max-loaded-chart-bytes', [CompletionResultType]::ParameterName, 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]')
            [CompletionResult]::new('--secret-producer', '--secret-producer', [CompletionResultType]::ParameterName, 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)')
            [CompletionResult]::new('--resourceset-inputs', '--resourceset-inputs', [CompletionResultType]::ParameterName, 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]')
            [CompletionResult]::new('--crds', '--crds', [CompletionResultType]::ParameterName, 'CustomResourceDefinitions for kinds the repository uses but does not install (a file, or a directory of YAML or JSON files, read recursively). CRDs the repository renders win')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-scope', '--no-scope', [CompletionResultType]::ParameterName, 'With a NAME, reconcile the whole repository, not only what NAME depends on (the rows are the same; this is slower, for comparing)')
            [CompletionResult]::new('--allow-missing-sources', '--allow-missing-sources', [CompletionResultType]::ParameterName, 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed')
            [CompletionResult]::new('--strict-substitutions', '--strict-substitutions', [CompletionResultType]::ParameterName, 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)')
            [CompletionResult]::new('--redact-secret-values', '--redact-secret-values', [CompletionResultType]::ParameterName, 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Never fetch charts or sources over the network; what the caches lack is reported missing')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets')
            [CompletionResult]::new('--changed-only', '--changed-only', [CompletionResultType]::ParameterName, 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git')
            [CompletionResult]::new('--validate', '--validate', [CompletionResultType]::ParameterName, 'Also check every rendered object as `offlux validate` does: each error is a FAIL row for its object; warnings are counted on stderr')
            [CompletionResult]::new('--strict-schemas', '--strict-schemas', [CompletionResultType]::ParameterName, 'An object of a kind whose schema is nowhere (no built-in kind, no CRD) is an error (OFX108), not a warning')
            [CompletionResult]::new('--all-entry-points', '--all-entry-points', [CompletionResultType]::ParameterName, 'Judge every file of the repository for orphans (OFX111, OFX112) against what every entry point applies: `--path`, the `validate.orphans.entry-points` of `.offlux.yaml`, and each directory a bootstrap Kustomization (`flux-system`) or FluxInstance syncs')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'List only the objects that FAIL or are BLOCKED (the summary still counts every object)')
            [CompletionResult]::new('--failures-only', '--failures-only', [CompletionResultType]::ParameterName, 'List only the objects that FAIL or are BLOCKED (the summary still counts every object)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;validate' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Objects reconciled at once, 1 to 128 [default: the number of cores]')
            [CompletionResult]::new('--substitute', '--substitute', [CompletionResultType]::ParameterName, 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)')
            [CompletionResult]::new('--substitute-from', '--substitute-from', [CompletionResultType]::ParameterName, 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)')
            [CompletionResult]::new('--chart-cache', '--chart-cache', [CompletionResultType]::ParameterName, 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)')
            [CompletionResult]::new('--registry-config', '--registry-config', [CompletionResultType]::ParameterName, 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch')
            [CompletionResult]::new('--network-idle-timeout', '--network-idle-timeout', [CompletionResultType]::ParameterName, 'Seconds a fetch may wait for its next bytes before it fails [default: 15]')
            [CompletionResult]::new('--network-deadline', '--network-deadline', [CompletionResultType]::ParameterName, 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]')
            [CompletionResult]::new('--max-template-steps', '--max-template-steps', [CompletionResultType]::ParameterName, 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]')
            [CompletionResult]::new('--max-rendered-objects', '--max-rendered-objects', [CompletionResultType]::ParameterName, 'Objects the run''s producers may hold at once, over the whole run [default: 50000]')
            [CompletionResult]::new('--max-rendered-bytes', '--max-rendered-bytes', [CompletionResultType]::ParameterName, 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]')
            [CompletionResult]::new('--max-extracted-bytes', '--max-extracted-bytes', [CompletionResultType]::ParameterName, 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]')
            [CompletionResult]::new('--max-loaded-chart-bytes', '--max-loaded-chart-bytes', [CompletionResultType]::ParameterName, 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]')
            [CompletionResult]::new('--secret-producer', '--secret-producer', [CompletionResultType]::ParameterName, 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)')
            [CompletionResult]::new('--resourceset-inputs', '--resourceset-inputs', [CompletionResultType]::ParameterName, 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--report-sarif', '--report-sarif', [CompletionResultType]::ParameterName, 'Also write the SARIF report (code scanning) to FILE, from the same check')
            [CompletionResult]::new('--report-json', '--report-json', [CompletionResultType]::ParameterName, 'Also write the JSON report to FILE, from the same check')
            [CompletionResult]::new('--report-junit', '--report-junit', [CompletionResultType]::ParameterName, 'Also write the JUnit report to FILE, from the same check')
            [CompletionResult]::new('--report-human', '--report-human', [CompletionResultType]::ParameterName, 'Also write the plain-text report to FILE, from the same check')
            [CompletionResult]::new('--crds', '--crds', [CompletionResultType]::ParameterName, 'CustomResourceDefinitions for kinds the repository uses but does not install (a file, or a directory of YAML or JSON files, read recursively). CRDs the repository renders win')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--allow-missing-sources', '--allow-missing-sources', [CompletionResultType]::ParameterName, 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed')
            [CompletionResult]::new('--strict-substitutions', '--strict-substitutions', [CompletionResultType]::ParameterName, 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)')
            [CompletionResult]::new('--redact-secret-values', '--redact-secret-values', [CompletionResultType]::ParameterName, 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Never fetch charts or sources over the network; what the caches lack is reported missing')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets')
            [CompletionResult]::new('--strict-schemas', '--strict-schemas', [CompletionResultType]::ParameterName, 'An object of a kind whose schema is nowhere (no built-in kind, no CRD) is an error (OFX108), not a warning')
            [CompletionResult]::new('--all-entry-points', '--all-entry-points', [CompletionResultType]::ParameterName, 'Judge every file of the repository for orphans (OFX111, OFX112) against what every entry point applies: `--path`, the `validate.orphans.entry-points` of `.offlux.yaml`, and each directory a bootstrap Kustomization (`flux-system`) or FluxInstance syncs')
            [CompletionResult]::new('--changed-only', '--changed-only', [CompletionResultType]::ParameterName, 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;build' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The object''s namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The object''s namespace')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Objects reconciled at once, 1 to 128 [default: the number of cores]')
            [CompletionResult]::new('--substitute', '--substitute', [CompletionResultType]::ParameterName, 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)')
            [CompletionResult]::new('--substitute-from', '--substitute-from', [CompletionResultType]::ParameterName, 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)')
            [CompletionResult]::new('--chart-cache', '--chart-cache', [CompletionResultType]::ParameterName, 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)')
            [CompletionResult]::new('--registry-config', '--registry-config', [CompletionResultType]::ParameterName, 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch')
            [CompletionResult]::new('--network-idle-timeout', '--network-idle-timeout', [CompletionResultType]::ParameterName, 'Seconds a fetch may wait for its next bytes before it fails [default: 15]')
            [CompletionResult]::new('--network-deadline', '--network-deadline', [CompletionResultType]::ParameterName, 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]')
            [CompletionResult]::new('--max-template-steps', '--max-template-steps', [CompletionResultType]::ParameterName, 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]')
            [CompletionResult]::new('--max-rendered-objects', '--max-rendered-objects', [CompletionResultType]::ParameterName, 'Objects the run''s producers may hold at once, over the whole run [default: 50000]')
            [CompletionResult]::new('--max-rendered-bytes', '--max-rendered-bytes', [CompletionResultType]::ParameterName, 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]')
            [CompletionResult]::new('--max-extracted-bytes', '--max-extracted-bytes', [CompletionResultType]::ParameterName, 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]')
            [CompletionResult]::new('--max-loaded-chart-bytes', '--max-loaded-chart-bytes', [CompletionResultType]::ParameterName, 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]')
            [CompletionResult]::new('--secret-producer', '--secret-producer', [CompletionResultType]::ParameterName, 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)')
            [CompletionResult]::new('--resourceset-inputs', '--resourceset-inputs', [CompletionResultType]::ParameterName, 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)')
            [CompletionResult]::new('--skip-secrets', '--skip-secrets', [CompletionResultType]::ParameterName, 'Leave Secrets out of the output')
            [CompletionResult]::new('--skip-crds', '--skip-crds', [CompletionResultType]::ParameterName, 'Leave CustomResourceDefinitions out of the output')
            [CompletionResult]::new('--skip-kinds', '--skip-kinds', [CompletionResultType]::ParameterName, 'Leave these kinds out (comma-separated)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace (for `ks` and `hr` without a NAME)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace (for `ks` and `hr` without a NAME)')
            [CompletionResult]::new('--no-scope', '--no-scope', [CompletionResultType]::ParameterName, 'With a NAME, reconcile the whole repository, not only what NAME depends on (the output is the same; this is slower, for comparing)')
            [CompletionResult]::new('--allow-missing-sources', '--allow-missing-sources', [CompletionResultType]::ParameterName, 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed')
            [CompletionResult]::new('--strict-substitutions', '--strict-substitutions', [CompletionResultType]::ParameterName, 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)')
            [CompletionResult]::new('--redact-secret-values', '--redact-secret-values', [CompletionResultType]::ParameterName, 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Never fetch charts or sources over the network; what the caches lack is reported missing')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;render' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Objects reconciled at once, 1 to 128 [default: the number of cores]')
            [CompletionResult]::new('--substitute', '--substitute', [CompletionResultType]::ParameterName, 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)')
            [CompletionResult]::new('--substitute-from', '--substitute-from', [CompletionResultType]::ParameterName, 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)')
            [CompletionResult]::new('--chart-cache', '--chart-cache', [CompletionResultType]::ParameterName, 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)')
            [CompletionResult]::new('--registry-config', '--registry-config', [CompletionResultType]::ParameterName, 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch')
            [CompletionResult]::new('--network-idle-timeout', '--network-idle-timeout', [CompletionResultType]::ParameterName, 'Seconds a fetch may wait for its next bytes before it fails [default: 15]')
            [CompletionResult]::new('--network-deadline', '--network-deadline', [CompletionResultType]::ParameterName, 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]')
            [CompletionResult]::new('--max-template-steps', '--max-template-steps', [CompletionResultType]::ParameterName, 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]')
            [CompletionResult]::new('--max-rendered-objects', '--max-rendered-objects', [CompletionResultType]::ParameterName, 'Objects the run''s producers may hold at once, over the whole run [default: 50000]')
            [CompletionResult]::new('--max-rendered-bytes', '--max-rendered-bytes', [CompletionResultType]::ParameterName, 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]')
            [CompletionResult]::new('--max-extracted-bytes', '--max-extracted-bytes', [CompletionResultType]::ParameterName, 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]')
            [CompletionResult]::new('--max-loaded-chart-bytes', '--max-loaded-chart-bytes', [CompletionResultType]::ParameterName, 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]')
            [CompletionResult]::new('--secret-producer', '--secret-producer', [CompletionResultType]::ParameterName, 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)')
            [CompletionResult]::new('--resourceset-inputs', '--resourceset-inputs', [CompletionResultType]::ParameterName, 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)')
            [CompletionResult]::new('--skip-secrets', '--skip-secrets', [CompletionResultType]::ParameterName, 'Leave Secrets out of the output')
            [CompletionResult]::new('--skip-crds', '--skip-crds', [CompletionResultType]::ParameterName, 'Leave CustomResourceDefinitions out of the output')
            [CompletionResult]::new('--skip-kinds', '--skip-kinds', [CompletionResultType]::ParameterName, 'Leave these kinds out (comma-separated)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write one file per producer under this directory instead of printing')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--allow-missing-sources', '--allow-missing-sources', [CompletionResultType]::ParameterName, 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed')
            [CompletionResult]::new('--strict-substitutions', '--strict-substitutions', [CompletionResultType]::ParameterName, 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)')
            [CompletionResult]::new('--redact-secret-values', '--redact-secret-values', [CompletionResultType]::ParameterName, 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Never fetch charts or sources over the network; what the caches lack is reported missing')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets')
            [CompletionResult]::new('--changed-only', '--changed-only', [CompletionResultType]::ParameterName, 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git')
            [CompletionResult]::new('--out-inside-repo', '--out-inside-repo', [CompletionResultType]::ParameterName, 'Allow `--out DIR` inside the repository being rendered. Off by default: the repository (a stranger''s pull request) controls what is already there, and the next run would read the files written as part of the repository')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;kustomize' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build a kustomization directory and print the result, as `kustomize build` does')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;kustomize;build' {
            [CompletionResult]::new('--load-restrictor', '--load-restrictor', [CompletionResultType]::ParameterName, 'Whether files outside the kustomization''s directory may be read')
            [CompletionResult]::new('--reorder', '--reorder', [CompletionResultType]::ParameterName, '`legacy` sorts by kind as the kustomize CLI does; `none` keeps input order (as Flux does)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the output to this file instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the output to this file instead of stdout')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--enable-helm', '--enable-helm', [CompletionResultType]::ParameterName, 'Refused: offlux never runs Helm as a kustomize plugin')
            [CompletionResult]::new('--enable-alpha-plugins', '--enable-alpha-plugins', [CompletionResultType]::ParameterName, 'Refused: offlux never runs exec or KRM function plugins')
            [CompletionResult]::new('--enable-exec', '--enable-exec', [CompletionResultType]::ParameterName, 'Refused, as `--enable-alpha-plugins`')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: such keys are left out with a warning')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;kustomize;help' {
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build a kustomization directory and print the result, as `kustomize build` does')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;kustomize;help;build' {
            break
        }
        'offlux;kustomize;help;help' {
            break
        }
        'offlux;helm' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('template', 'template', [CompletionResultType]::ParameterValue, 'Render a local chart and print the manifests, as `helm template` does')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;helm;template' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The release namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The release namespace')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Values files, merged in order (later files win)')
            [CompletionResult]::new('--values', '--values', [CompletionResultType]::ParameterName, 'Values files, merged in order (later files win)')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'Set values (`a.b=c,d[0]=e`), after the values files')
            [CompletionResult]::new('--set-string', '--set-string', [CompletionResultType]::ParameterName, 'Set string values, after `--set`')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version templates see (default: v1.36.0, as Helm v4.2 assumes)')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'API versions added to `.Capabilities.APIVersions` (comma-separated or repeated)')
            [CompletionResult]::new('--api-versions', '--api-versions', [CompletionResultType]::ParameterName, 'API versions added to `.Capabilities.APIVersions` (comma-separated or repeated)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Print only the documents of these templates (paths inside the chart, globs allowed)')
            [CompletionResult]::new('--show-only', '--show-only', [CompletionResultType]::ParameterName, 'Print only the documents of these templates (paths inside the chart, globs allowed)')
            [CompletionResult]::new('--repeat', '--repeat', [CompletionResultType]::ParameterName, 'Render this many times and print once (for benchmarks: start-up left out)')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--include-crds', '--include-crds', [CompletionResultType]::ParameterName, 'Print the chart''s CRDs (`crds/`) before the manifests')
            [CompletionResult]::new('--no-hooks', '--no-hooks', [CompletionResultType]::ParameterName, 'Leave hooks out')
            [CompletionResult]::new('--skip-tests', '--skip-tests', [CompletionResultType]::ParameterName, 'Leave test hooks out')
            [CompletionResult]::new('--skip-schema-validation', '--skip-schema-validation', [CompletionResultType]::ParameterName, 'Do not validate values against `values.schema.json`')
            [CompletionResult]::new('--is-upgrade', '--is-upgrade', [CompletionResultType]::ParameterName, 'Render as an upgrade (`.Release.IsUpgrade`)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;helm;help' {
            [CompletionResult]::new('template', 'template', [CompletionResultType]::ParameterValue, 'Render a local chart and print the manifests, as `helm template` does')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;helm;help;template' {
            break
        }
        'offlux;helm;help;help' {
            break
        }
        'offlux;diff' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'With `ks` or `hr`: the object''s namespace [default: any]')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'With `ks` or `hr`: the object''s namespace [default: any]')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'With `ks` or `hr`: only the objects whose labels match (`key=value`, `key!=value`, `key`, `!key`, `key in (a,b)`, comma-separated), on either side; NAME may then be left out')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'With `ks` or `hr`: only the objects whose labels match (`key=value`, `key!=value`, `key`, `!key`, `key in (a,b)`, comma-separated), on either side; NAME may then be left out')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Objects reconciled at once, 1 to 128 [default: the number of cores]')
            [CompletionResult]::new('--substitute', '--substitute', [CompletionResultType]::ParameterName, 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)')
            [CompletionResult]::new('--substitute-from', '--substitute-from', [CompletionResultType]::ParameterName, 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)')
            [CompletionResult]::new('--chart-cache', '--chart-cache', [CompletionResultType]::ParameterName, 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)')
            [CompletionResult]::new('--registry-config', '--registry-config', [CompletionResultType]::ParameterName, 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch')
            [CompletionResult]::new('--network-idle-timeout', '--network-idle-timeout', [CompletionResultType]::ParameterName, 'Seconds a fetch may wait for its next bytes before it fails [default: 15]')
            [CompletionResult]::new('--network-deadline', '--network-deadline', [CompletionResultType]::ParameterName, 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]')
            [CompletionResult]::new('--max-template-steps', '--max-template-steps', [CompletionResultType]::ParameterName, 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]')
            [CompletionResult]::new('--max-rendered-objects', '--max-rendered-objects', [CompletionResultType]::ParameterName, 'Objects the run''s producers may hold at once, over the whole run [default: 50000]')
            [CompletionResult]::new('--max-rendered-bytes', '--max-rendered-bytes', [CompletionResultType]::ParameterName, 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]')
            [CompletionResult]::new('--max-extracted-bytes', '--max-extracted-bytes', [CompletionResultType]::ParameterName, 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]')
            [CompletionResult]::new('--max-loaded-chart-bytes', '--max-loaded-chart-bytes', [CompletionResultType]::ParameterName, 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]')
            [CompletionResult]::new('--secret-producer', '--secret-producer', [CompletionResultType]::ParameterName, 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)')
            [CompletionResult]::new('--resourceset-inputs', '--resourceset-inputs', [CompletionResultType]::ParameterName, 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'The revision compared against [default: the merge base of HEAD with the default branch: `origin/HEAD`, else `main` or `master`]')
            [CompletionResult]::new('--base-dir', '--base-dir', [CompletionResultType]::ParameterName, 'Compare against this directory instead of a revision: another checkout of the repository (its layout the same as the working tree''s, `--path` and `--root` taken relative to it)')
            [CompletionResult]::new('--head', '--head', [CompletionResultType]::ParameterName, 'The revision to compare [default: the working tree, uncommitted changes included]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'Unchanged lines shown around each change')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Unchanged lines shown around each change')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Also write both rendered trees, as `render --out` would, under `DIR/base` and `DIR/head` (Secrets left out)')
            [CompletionResult]::new('--skip-crds', '--skip-crds', [CompletionResultType]::ParameterName, 'Leave CustomResourceDefinitions out of the comparison')
            [CompletionResult]::new('--skip-kinds', '--skip-kinds', [CompletionResultType]::ParameterName, 'Leave these kinds out (comma-separated)')
            [CompletionResult]::new('--max-size', '--max-size', [CompletionResultType]::ParameterName, 'With `-o markdown`: the most bytes printed (GitHub''s comments hold 65 536 characters); diffs that do not fit are left out with a note')
            [CompletionResult]::new('--full-report-url', '--full-report-url', [CompletionResultType]::ParameterName, 'With `-o markdown`: where the whole comparison can be read (the HTML report''s artifact, a CI job''s page), linked from the note of a report cut to `--max-size`')
            [CompletionResult]::new('--strip-attr', '--strip-attr', [CompletionResultType]::ParameterName, 'A label or annotation key left out of the comparison wherever a `metadata` holds it (a glob: `checksum/*`; repeatable), besides the default set')
            [CompletionResult]::new('--report-markdown', '--report-markdown', [CompletionResultType]::ParameterName, 'Also write the markdown report to FILE, from the same comparison (with `-o`, one run gives the PR comment, the annotations and the JSON)')
            [CompletionResult]::new('--report-json', '--report-json', [CompletionResultType]::ParameterName, 'Also write the JSON report to FILE, from the same comparison')
            [CompletionResult]::new('--report-github', '--report-github', [CompletionResultType]::ParameterName, 'Also write the GitHub annotations to FILE, from the same comparison')
            [CompletionResult]::new('--report-human', '--report-human', [CompletionResultType]::ParameterName, 'Also write the plain-text report to FILE, from the same comparison')
            [CompletionResult]::new('--report-html', '--report-html', [CompletionResultType]::ParameterName, 'Also write the HTML report to FILE (one self-contained page), from the same comparison')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--allow-missing-sources', '--allow-missing-sources', [CompletionResultType]::ParameterName, 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed')
            [CompletionResult]::new('--strict-substitutions', '--strict-substitutions', [CompletionResultType]::ParameterName, 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)')
            [CompletionResult]::new('--redact-secret-values', '--redact-secret-values', [CompletionResultType]::ParameterName, 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Never fetch charts or sources over the network; what the caches lack is reported missing')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'In the human and markdown reports, each changed object field by field (`path: before → after`, list items by their merge keys, moved items) instead of its unified diff')
            [CompletionResult]::new('--exit-zero', '--exit-zero', [CompletionResultType]::ParameterName, 'Exit with 0 when there are differences (failures to run are still 2)')
            [CompletionResult]::new('--skip-secrets', '--skip-secrets', [CompletionResultType]::ParameterName, 'Leave Secrets out (by default they are compared with their values hidden)')
            [CompletionResult]::new('--changed-only', '--changed-only', [CompletionResultType]::ParameterName, 'Reconcile and compare only the producers the change can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the others are left out of both sides, with a note')
            [CompletionResult]::new('--no-default-strip', '--no-default-strip', [CompletionResultType]::ParameterName, 'Compare the labels and annotations a chart bump changes on every object, which are left out by default: `helm.sh/chart`, `chart`, `app.kubernetes.io/version`, `checksum/*`')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;graph' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;explain' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;completions' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;cache' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Removes every archive, Git repository and remembered ref offlux stored')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;cache;list' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'o')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'output')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;cache;gc' {
            [CompletionResult]::new('--max-size', '--max-size', [CompletionResultType]::ParameterName, 'The most bytes the cache keeps [default: 1073741824]')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Archives stored more than this many days ago are removed too')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;cache;clear' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;cache;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Removes every archive, Git repository and remembered ref offlux stored')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;cache;help;list' {
            break
        }
        'offlux;cache;help;gc' {
            break
        }
        'offlux;cache;help;clear' {
            break
        }
        'offlux;cache;help;help' {
            break
        }
        'offlux;init' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--github-workflow', '--github-workflow', [CompletionResultType]::ParameterName, 'Also write `.github/workflows/offlux.yml`: `offlux validate` on every pull request and a `diff` comment')
            [CompletionResult]::new('--pre-commit', '--pre-commit', [CompletionResultType]::ParameterName, 'Also write `.pre-commit-config.yaml` with the offlux hooks')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace files that are already there')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;config' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;config;show' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Objects reconciled at once, 1 to 128 [default: the number of cores]')
            [CompletionResult]::new('--substitute', '--substitute', [CompletionResultType]::ParameterName, 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)')
            [CompletionResult]::new('--substitute-from', '--substitute-from', [CompletionResultType]::ParameterName, 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)')
            [CompletionResult]::new('--chart-cache', '--chart-cache', [CompletionResultType]::ParameterName, 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository')
            [CompletionResult]::new('--proxy', '--proxy', [CompletionResultType]::ParameterName, 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy''s address and to targets named by an address (a host name is the proxy''s to resolve)')
            [CompletionResult]::new('--registry-config', '--registry-config', [CompletionResultType]::ParameterName, 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch')
            [CompletionResult]::new('--network-idle-timeout', '--network-idle-timeout', [CompletionResultType]::ParameterName, 'Seconds a fetch may wait for its next bytes before it fails [default: 15]')
            [CompletionResult]::new('--network-deadline', '--network-deadline', [CompletionResultType]::ParameterName, 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]')
            [CompletionResult]::new('--max-template-steps', '--max-template-steps', [CompletionResultType]::ParameterName, 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]')
            [CompletionResult]::new('--max-rendered-objects', '--max-rendered-objects', [CompletionResultType]::ParameterName, 'Objects the run''s producers may hold at once, over the whole run [default: 50000]')
            [CompletionResult]::new('--max-rendered-bytes', '--max-rendered-bytes', [CompletionResultType]::ParameterName, 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]')
            [CompletionResult]::new('--max-alias-nodes', '--max-alias-nodes', [CompletionResultType]::ParameterName, 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]')
            [CompletionResult]::new('--max-extracted-bytes', '--max-extracted-bytes', [CompletionResultType]::ParameterName, 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]')
            [CompletionResult]::new('--max-loaded-chart-bytes', '--max-loaded-chart-bytes', [CompletionResultType]::ParameterName, 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]')
            [CompletionResult]::new('--secret-producer', '--secret-producer', [CompletionResultType]::ParameterName, 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease''s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)')
            [CompletionResult]::new('--resourceset-inputs', '--resourceset-inputs', [CompletionResultType]::ParameterName, 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)')
            [CompletionResult]::new('--sources', '--sources', [CompletionResultType]::ParameterName, 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--allow-missing-sources', '--allow-missing-sources', [CompletionResultType]::ParameterName, 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed')
            [CompletionResult]::new('--strict-substitutions', '--strict-substitutions', [CompletionResultType]::ParameterName, 'An unset `${VAR}` without a default fails the Kustomization (Flux''s strict mode)')
            [CompletionResult]::new('--redact-secret-values', '--redact-secret-values', [CompletionResultType]::ParameterName, 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Never fetch charts or sources over the network; what the caches lack is reported missing')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)')
            [CompletionResult]::new('--env-from-process', '--env-from-process', [CompletionResultType]::ParameterName, 'Fill an env file''s bare keys (a line `KEY` without `=`) from offlux''s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;config;schema' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;config;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;config;help;show' {
            break
        }
        'offlux;config;help;schema' {
            break
        }
        'offlux;config;help;help' {
            break
        }
        'offlux;help' {
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Reconcile the repository as Flux would, without a cluster, and report each Flux object: PASS, FAIL, SKIPPED, BLOCKED')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check every rendered object: Kubernetes and CRD schemas, duplicates, missing namespaces, unsubstituted variables, removed and deprecated API versions, references nothing provides, values keys no template reads, orphans (codes OFX101-OFX114); a producer that failed is OFX100')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Print the objects one Kustomization or HelmRelease (or every Kustomization) would apply')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render everything that would be applied, to stdout or one file per producer (`--out DIR`)')
            [CompletionResult]::new('kustomize', 'kustomize', [CompletionResultType]::ParameterValue, 'Native kustomize: `offlux kustomize build DIR`')
            [CompletionResult]::new('helm', 'helm', [CompletionResultType]::ParameterValue, 'Native Helm: `offlux helm template CHART [RELEASE]`')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'What a change does to the cluster: reconcile a base revision (by default the merge base with the default branch) and the working tree, and compare them object by object')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Show the dependency graph: dependsOn, sources, data, and what applies what')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain a finding code (OFX100...): what it means, why it matters, how to fix or silence it')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'The charts and sources offlux downloaded and keeps across runs: `list`, `gc`, `clear`')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a first `.offlux.yaml` for the clusters found here (and, on request, a GitHub workflow and a pre-commit configuration)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'The repository''s `.offlux.yaml`: the settings a run takes and where each came from (`show`), or the file''s JSON Schema (`schema`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;help;get' {
            break
        }
        'offlux;help;test' {
            break
        }
        'offlux;help;validate' {
            break
        }
        'offlux;help;build' {
            break
        }
        'offlux;help;render' {
            break
        }
        'offlux;help;kustomize' {
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Build a kustomization directory and print the result, as `kustomize build` does')
            break
        }
        'offlux;help;kustomize;build' {
            break
        }
        'offlux;help;helm' {
            [CompletionResult]::new('template', 'template', [CompletionResultType]::ParameterValue, 'Render a local chart and print the manifests, as `helm template` does')
            break
        }
        'offlux;help;helm;template' {
            break
        }
        'offlux;help;diff' {
            break
        }
        'offlux;help;graph' {
            break
        }
        'offlux;help;explain' {
            break
        }
        'offlux;help;completions' {
            break
        }
        'offlux;help;cache' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Removes every archive, Git repository and remembered ref offlux stored')
            break
        }
        'offlux;help;cache;list' {
            break
        }
        'offlux;help;cache;gc' {
            break
        }
        'offlux;help;cache;clear' {
            break
        }
        'offlux;help;init' {
            break
        }
        'offlux;help;config' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)')
            break
        }
        'offlux;help;config;show' {
            break
        }
        'offlux;help;config;schema' {
            break
        }
        'offlux;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
