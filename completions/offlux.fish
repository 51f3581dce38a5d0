# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_offlux_global_optspecs
    string join \n no-color log-level= h/help V/version
end

function __fish_offlux_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_offlux_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_offlux_using_subcommand
    set -l cmd (__fish_offlux_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c offlux -n "__fish_offlux_needs_command" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_needs_command" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_needs_command" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_needs_command" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "get" -d 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "test" -d 'Reconcile the repository as Flux would, without a cluster, and report each Flux object: PASS, FAIL, SKIPPED, BLOCKED'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "validate" -d 'Check every rendered object: Kubernetes and CRD schemas, duplicates, missing namespaces, unsubstituted variables, removed and deprecated API versions, references nothing provides, values keys no template reads, orphans (codes OFX101-OFX114); a producer that failed is OFX100'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "build" -d 'Print the objects one Kustomization or HelmRelease (or every Kustomization) would apply'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "render" -d 'Render everything that would be applied, to stdout or one file per producer (`--out DIR`)'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "kustomize" -d 'Native kustomize: `offlux kustomize build DIR`'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "helm" -d 'Native Helm: `offlux helm template CHART [RELEASE]`'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "diff" -d 'What a change does to the cluster: reconcile a base revision (by default the merge base with the default branch) and the working tree, and compare them object by object'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "graph" -d 'Show the dependency graph: dependsOn, sources, data, and what applies what'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "explain" -d 'Explain a finding code (OFX100...): what it means, why it matters, how to fix or silence it'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "cache" -d 'The charts and sources offlux downloaded and keeps across runs: `list`, `gc`, `clear`'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "init" -d 'Write a first `.offlux.yaml` for the clusters found here (and, on request, a GitHub workflow and a pre-commit configuration)'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "config" -d 'The repository\'s `.offlux.yaml`: the settings a run takes and where each came from (`show`), or the file\'s JSON Schema (`schema`)'
complete -c offlux -n "__fish_offlux_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand get" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand get" -l concurrency -d 'Objects reconciled at once, 1 to 128 [default: the number of cores]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l substitute -d 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l substitute-from -d 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand get" -l kube-version -d 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l chart-cache -d 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand get" -l proxy -d 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy\'s address and to targets named by an address (a host name is the proxy\'s to resolve)' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l registry-config -d 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand get" -l network-idle-timeout -d 'Seconds a fetch may wait for its next bytes before it fails [default: 15]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l network-deadline -d 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l max-template-steps -d 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l max-rendered-objects -d 'Objects the run\'s producers may hold at once, over the whole run [default: 50000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l max-rendered-bytes -d 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l max-alias-nodes -d 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l max-extracted-bytes -d 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l max-loaded-chart-bytes -d 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l secret-producer -d 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease\'s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l resourceset-inputs -d 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -l sources -d 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -s n -l namespace -d 'Only objects in this namespace' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -s l -l selector -d 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated' -r
complete -c offlux -n "__fish_offlux_using_subcommand get" -s o -l output -d 'Output format' -r -f -a "table\t''
yaml\t''
json\t''"
complete -c offlux -n "__fish_offlux_using_subcommand get" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand get" -l allow-missing-sources -d 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l strict-substitutions -d 'An unset `${VAR}` without a default fails the Kustomization (Flux\'s strict mode)'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l redact-secret-values -d 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l offline -d 'Never fetch charts or sources over the network; what the caches lack is reported missing'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l allow-private-network -d 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l no-cache -d 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
complete -c offlux -n "__fish_offlux_using_subcommand get" -s A -l all-namespaces -d 'Objects in every namespace (the default when no namespace is given)'
complete -c offlux -n "__fish_offlux_using_subcommand get" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c offlux -n "__fish_offlux_using_subcommand get" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand test" -s n -l namespace -d 'Only objects in this namespace' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand test" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand test" -l concurrency -d 'Objects reconciled at once, 1 to 128 [default: the number of cores]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l substitute -d 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l substitute-from -d 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand test" -l kube-version -d 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l chart-cache -d 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand test" -l proxy -d 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy\'s address and to targets named by an address (a host name is the proxy\'s to resolve)' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l registry-config -d 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand test" -l network-idle-timeout -d 'Seconds a fetch may wait for its next bytes before it fails [default: 15]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l network-deadline -d 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l max-template-steps -d 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l max-rendered-objects -d 'Objects the run\'s producers may hold at once, over the whole run [default: 50000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l max-rendered-bytes -d 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l max-alias-nodes -d 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l max-extracted-bytes -d 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l max-loaded-chart-bytes -d 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l secret-producer -d 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease\'s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l resourceset-inputs -d 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l sources -d 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l base -d 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]' -r
complete -c offlux -n "__fish_offlux_using_subcommand test" -l crds -d 'CustomResourceDefinitions for kinds the repository uses but does not install (a file, or a directory of YAML or JSON files, read recursively). CRDs the repository renders win' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand test" -s o -l output -d 'Output format' -r -f -a "human\t''
json\t''
junit\t''
github\t''"
complete -c offlux -n "__fish_offlux_using_subcommand test" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand test" -l no-scope -d 'With a NAME, reconcile the whole repository, not only what NAME depends on (the rows are the same; this is slower, for comparing)'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l allow-missing-sources -d 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l strict-substitutions -d 'An unset `${VAR}` without a default fails the Kustomization (Flux\'s strict mode)'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l redact-secret-values -d 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l offline -d 'Never fetch charts or sources over the network; what the caches lack is reported missing'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l allow-private-network -d 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l no-cache -d 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l changed-only -d 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l validate -d 'Also check every rendered object as `offlux validate` does: each error is a FAIL row for its object; warnings are counted on stderr'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l strict-schemas -d 'An object of a kind whose schema is nowhere (no built-in kind, no CRD) is an error (OFX108), not a warning'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l all-entry-points -d 'Judge every file of the repository for orphans (OFX111, OFX112) against what every entry point applies: `--path`, the `validate.orphans.entry-points` of `.offlux.yaml`, and each directory a bootstrap Kustomization (`flux-system`) or FluxInstance syncs'
complete -c offlux -n "__fish_offlux_using_subcommand test" -s q -l failures-only -d 'List only the objects that FAIL or are BLOCKED (the summary still counts every object)'
complete -c offlux -n "__fish_offlux_using_subcommand test" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand test" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand test" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l concurrency -d 'Objects reconciled at once, 1 to 128 [default: the number of cores]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l substitute -d 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l substitute-from -d 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l kube-version -d 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l chart-cache -d 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l proxy -d 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy\'s address and to targets named by an address (a host name is the proxy\'s to resolve)' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l registry-config -d 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l network-idle-timeout -d 'Seconds a fetch may wait for its next bytes before it fails [default: 15]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l network-deadline -d 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l max-template-steps -d 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l max-rendered-objects -d 'Objects the run\'s producers may hold at once, over the whole run [default: 50000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l max-rendered-bytes -d 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l max-alias-nodes -d 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l max-extracted-bytes -d 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l max-loaded-chart-bytes -d 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l secret-producer -d 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease\'s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l resourceset-inputs -d 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l sources -d 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -s o -l output -d 'Output format' -r -f -a "human\t''
json\t''
junit\t''
github\t''
sarif\t''"
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l report-sarif -d 'Also write the SARIF report (code scanning) to FILE, from the same check' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l report-json -d 'Also write the JSON report to FILE, from the same check' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l report-junit -d 'Also write the JUnit report to FILE, from the same check' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l report-human -d 'Also write the plain-text report to FILE, from the same check' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l crds -d 'CustomResourceDefinitions for kinds the repository uses but does not install (a file, or a directory of YAML or JSON files, read recursively). CRDs the repository renders win' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l base -d 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]' -r
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l allow-missing-sources -d 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l strict-substitutions -d 'An unset `${VAR}` without a default fails the Kustomization (Flux\'s strict mode)'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l redact-secret-values -d 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l offline -d 'Never fetch charts or sources over the network; what the caches lack is reported missing'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l allow-private-network -d 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l no-cache -d 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l strict-schemas -d 'An object of a kind whose schema is nowhere (no built-in kind, no CRD) is an error (OFX108), not a warning'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l all-entry-points -d 'Judge every file of the repository for orphans (OFX111, OFX112) against what every entry point applies: `--path`, the `validate.orphans.entry-points` of `.offlux.yaml`, and each directory a bootstrap Kustomization (`flux-system`) or FluxInstance syncs'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l changed-only -d 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand validate" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand build" -s n -l namespace -d 'The object\'s namespace' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand build" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand build" -l concurrency -d 'Objects reconciled at once, 1 to 128 [default: the number of cores]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l substitute -d 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l substitute-from -d 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand build" -l kube-version -d 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l chart-cache -d 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand build" -l proxy -d 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy\'s address and to targets named by an address (a host name is the proxy\'s to resolve)' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l registry-config -d 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand build" -l network-idle-timeout -d 'Seconds a fetch may wait for its next bytes before it fails [default: 15]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l network-deadline -d 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l max-template-steps -d 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l max-rendered-objects -d 'Objects the run\'s producers may hold at once, over the whole run [default: 50000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l max-rendered-bytes -d 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l max-alias-nodes -d 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l max-extracted-bytes -d 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l max-loaded-chart-bytes -d 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l secret-producer -d 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease\'s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l resourceset-inputs -d 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l sources -d 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -l skip-secrets -d 'Leave Secrets out of the output' -r -f -a "true\t''
false\t''"
complete -c offlux -n "__fish_offlux_using_subcommand build" -l skip-crds -d 'Leave CustomResourceDefinitions out of the output' -r -f -a "true\t''
false\t''"
complete -c offlux -n "__fish_offlux_using_subcommand build" -l skip-kinds -d 'Leave these kinds out (comma-separated)' -r
complete -c offlux -n "__fish_offlux_using_subcommand build" -s o -l output -d 'Output format' -r -f -a "yaml\t''
json\t''"
complete -c offlux -n "__fish_offlux_using_subcommand build" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand build" -s A -l all-namespaces -d 'Every namespace (for `ks` and `hr` without a NAME)'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l no-scope -d 'With a NAME, reconcile the whole repository, not only what NAME depends on (the output is the same; this is slower, for comparing)'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l allow-missing-sources -d 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l strict-substitutions -d 'An unset `${VAR}` without a default fails the Kustomization (Flux\'s strict mode)'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l redact-secret-values -d 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l offline -d 'Never fetch charts or sources over the network; what the caches lack is reported missing'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l allow-private-network -d 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l no-cache -d 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
complete -c offlux -n "__fish_offlux_using_subcommand build" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand build" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand build" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand render" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand render" -l concurrency -d 'Objects reconciled at once, 1 to 128 [default: the number of cores]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l substitute -d 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l substitute-from -d 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand render" -l kube-version -d 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l chart-cache -d 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand render" -l proxy -d 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy\'s address and to targets named by an address (a host name is the proxy\'s to resolve)' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l registry-config -d 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand render" -l network-idle-timeout -d 'Seconds a fetch may wait for its next bytes before it fails [default: 15]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l network-deadline -d 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l max-template-steps -d 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l max-rendered-objects -d 'Objects the run\'s producers may hold at once, over the whole run [default: 50000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l max-rendered-bytes -d 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l max-alias-nodes -d 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l max-extracted-bytes -d 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l max-loaded-chart-bytes -d 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l secret-producer -d 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease\'s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l resourceset-inputs -d 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l sources -d 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l skip-secrets -d 'Leave Secrets out of the output' -r -f -a "true\t''
false\t''"
complete -c offlux -n "__fish_offlux_using_subcommand render" -l skip-crds -d 'Leave CustomResourceDefinitions out of the output' -r -f -a "true\t''
false\t''"
complete -c offlux -n "__fish_offlux_using_subcommand render" -l skip-kinds -d 'Leave these kinds out (comma-separated)' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l base -d 'With `--changed-only`: the revision compared against [default: the merge base of HEAD with `origin/HEAD`, else `main` or `master`]' -r
complete -c offlux -n "__fish_offlux_using_subcommand render" -l out -d 'Write one file per producer under this directory instead of printing' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand render" -s o -l output -d 'Output format' -r -f -a "yaml\t''
json\t''"
complete -c offlux -n "__fish_offlux_using_subcommand render" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand render" -l allow-missing-sources -d 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l strict-substitutions -d 'An unset `${VAR}` without a default fails the Kustomization (Flux\'s strict mode)'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l redact-secret-values -d 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l offline -d 'Never fetch charts or sources over the network; what the caches lack is reported missing'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l allow-private-network -d 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l no-cache -d 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l changed-only -d 'Reconcile and report only the producers a change since the base revision can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the working tree is compared with the base in git'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l out-inside-repo -d 'Allow `--out DIR` inside the repository being rendered. Off by default: the repository (a stranger\'s pull request) controls what is already there, and the next run would read the files written as part of the repository'
complete -c offlux -n "__fish_offlux_using_subcommand render" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand render" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand render" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and not __fish_seen_subcommand_from build help" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and not __fish_seen_subcommand_from build help" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and not __fish_seen_subcommand_from build help" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and not __fish_seen_subcommand_from build help" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and not __fish_seen_subcommand_from build help" -f -a "build" -d 'Build a kustomization directory and print the result, as `kustomize build` does'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and not __fish_seen_subcommand_from build help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l load-restrictor -d 'Whether files outside the kustomization\'s directory may be read' -r -f -a "LoadRestrictionsRootOnly\t''
LoadRestrictionsNone\t''"
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l reorder -d '`legacy` sorts by kind as the kustomize CLI does; `none` keeps input order (as Flux does)' -r -f -a "legacy\t''
none\t''"
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -s o -l output -d 'Write the output to this file instead of stdout' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l enable-helm -d 'Refused: offlux never runs Helm as a kustomize plugin'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l enable-alpha-plugins -d 'Refused: offlux never runs exec or KRM function plugins'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l enable-exec -d 'Refused, as `--enable-alpha-plugins`'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: such keys are left out with a warning'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from build" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from help" -f -a "build" -d 'Build a kustomization directory and print the result, as `kustomize build` does'
complete -c offlux -n "__fish_offlux_using_subcommand kustomize; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and not __fish_seen_subcommand_from template help" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand helm; and not __fish_seen_subcommand_from template help" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and not __fish_seen_subcommand_from template help" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and not __fish_seen_subcommand_from template help" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and not __fish_seen_subcommand_from template help" -f -a "template" -d 'Render a local chart and print the manifests, as `helm template` does'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and not __fish_seen_subcommand_from template help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -s n -l namespace -d 'The release namespace' -r
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -s f -l values -d 'Values files, merged in order (later files win)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l set -d 'Set values (`a.b=c,d[0]=e`), after the values files' -r
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l set-string -d 'Set string values, after `--set`' -r
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l kube-version -d 'The Kubernetes version templates see (default: v1.36.0, as Helm v4.2 assumes)' -r
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -s a -l api-versions -d 'API versions added to `.Capabilities.APIVersions` (comma-separated or repeated)' -r
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -s s -l show-only -d 'Print only the documents of these templates (paths inside the chart, globs allowed)' -r
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l repeat -d 'Render this many times and print once (for benchmarks: start-up left out)' -r
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l include-crds -d 'Print the chart\'s CRDs (`crds/`) before the manifests'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l no-hooks -d 'Leave hooks out'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l skip-tests -d 'Leave test hooks out'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l skip-schema-validation -d 'Do not validate values against `values.schema.json`'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l is-upgrade -d 'Render as an upgrade (`.Release.IsUpgrade`)'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from template" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from help" -f -a "template" -d 'Render a local chart and print the manifests, as `helm template` does'
complete -c offlux -n "__fish_offlux_using_subcommand helm; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -s n -l namespace -d 'With `ks` or `hr`: the object\'s namespace [default: any]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -s l -l selector -d 'With `ks` or `hr`: only the objects whose labels match (`key=value`, `key!=value`, `key`, `!key`, `key in (a,b)`, comma-separated), on either side; NAME may then be left out' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l concurrency -d 'Objects reconciled at once, 1 to 128 [default: the number of cores]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l substitute -d 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l substitute-from -d 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l kube-version -d 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l chart-cache -d 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l proxy -d 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy\'s address and to targets named by an address (a host name is the proxy\'s to resolve)' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l registry-config -d 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l network-idle-timeout -d 'Seconds a fetch may wait for its next bytes before it fails [default: 15]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l network-deadline -d 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l max-template-steps -d 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l max-rendered-objects -d 'Objects the run\'s producers may hold at once, over the whole run [default: 50000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l max-rendered-bytes -d 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l max-alias-nodes -d 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l max-extracted-bytes -d 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l max-loaded-chart-bytes -d 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l secret-producer -d 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease\'s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l resourceset-inputs -d 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l sources -d 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l base -d 'The revision compared against [default: the merge base of HEAD with the default branch: `origin/HEAD`, else `main` or `master`]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l base-dir -d 'Compare against this directory instead of a revision: another checkout of the repository (its layout the same as the working tree\'s, `--path` and `--root` taken relative to it)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l head -d 'The revision to compare [default: the working tree, uncommitted changes included]' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -s o -l output -d 'Output format' -r -f -a "human\t''
markdown\t''
json\t''
github\t''
html\t'One self-contained page: a tree to navigate, a filter, unified and side-by-side views'"
complete -c offlux -n "__fish_offlux_using_subcommand diff" -s U -l context -d 'Unchanged lines shown around each change' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l out -d 'Also write both rendered trees, as `render --out` would, under `DIR/base` and `DIR/head` (Secrets left out)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l skip-crds -d 'Leave CustomResourceDefinitions out of the comparison' -r -f -a "true\t''
false\t''"
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l skip-kinds -d 'Leave these kinds out (comma-separated)' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l max-size -d 'With `-o markdown`: the most bytes printed (GitHub\'s comments hold 65 536 characters); diffs that do not fit are left out with a note' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l full-report-url -d 'With `-o markdown`: where the whole comparison can be read (the HTML report\'s artifact, a CI job\'s page), linked from the note of a report cut to `--max-size`' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l strip-attr -d 'A label or annotation key left out of the comparison wherever a `metadata` holds it (a glob: `checksum/*`; repeatable), besides the default set' -r
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l report-markdown -d 'Also write the markdown report to FILE, from the same comparison (with `-o`, one run gives the PR comment, the annotations and the JSON)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l report-json -d 'Also write the JSON report to FILE, from the same comparison' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l report-github -d 'Also write the GitHub annotations to FILE, from the same comparison' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l report-human -d 'Also write the plain-text report to FILE, from the same comparison' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l report-html -d 'Also write the HTML report to FILE (one self-contained page), from the same comparison' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l allow-missing-sources -d 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l strict-substitutions -d 'An unset `${VAR}` without a default fails the Kustomization (Flux\'s strict mode)'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l redact-secret-values -d 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l offline -d 'Never fetch charts or sources over the network; what the caches lack is reported missing'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l allow-private-network -d 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l no-cache -d 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l fields -d 'In the human and markdown reports, each changed object field by field (`path: before → after`, list items by their merge keys, moved items) instead of its unified diff'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l exit-zero -d 'Exit with 0 when there are differences (failures to run are still 2)'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l skip-secrets -d 'Leave Secrets out (by default they are compared with their values hidden)'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l changed-only -d 'Reconcile and compare only the producers the change can affect (their files, components, values, charts and the data they read changed), what depends on them and what creates them; the others are left out of both sides, with a note'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l no-default-strip -d 'Compare the labels and annotations a chart bump changes on every object, which are left out by default: `helm.sh/chart`, `chart`, `app.kubernetes.io/version`, `checksum/*`'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c offlux -n "__fish_offlux_using_subcommand diff" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand graph" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand graph" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand graph" -s o -l output -d 'Output format' -r -f -a "dot\t''
mermaid\t''
json\t''"
complete -c offlux -n "__fish_offlux_using_subcommand graph" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand graph" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand graph" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand graph" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand explain" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand explain" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand explain" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand explain" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand completions" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand completions" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand completions" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand completions" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -f -a "list" -d 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -f -a "gc" -d 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -f -a "clear" -d 'Removes every archive, Git repository and remembered ref offlux stored'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and not __fish_seen_subcommand_from list gc clear help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from list" -s o -l output -r -f -a "table\t''
json\t''"
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from list" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from list" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from gc" -l max-size -d 'The most bytes the cache keeps [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from gc" -l older-than -d 'Archives stored more than this many days ago are removed too' -r
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from gc" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from gc" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from gc" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from clear" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from clear" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from clear" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from clear" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "list" -d 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "gc" -d 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "clear" -d 'Removes every archive, Git repository and remembered ref offlux stored'
complete -c offlux -n "__fish_offlux_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand init" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand init" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand init" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand init" -l github-workflow -d 'Also write `.github/workflows/offlux.yml`: `offlux validate` on every pull request and a `diff` comment'
complete -c offlux -n "__fish_offlux_using_subcommand init" -l pre-commit -d 'Also write `.pre-commit-config.yaml` with the offlux hooks'
complete -c offlux -n "__fish_offlux_using_subcommand init" -l force -d 'Replace files that are already there'
complete -c offlux -n "__fish_offlux_using_subcommand init" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand init" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand init" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand config; and not __fish_seen_subcommand_from show schema help" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand config; and not __fish_seen_subcommand_from show schema help" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and not __fish_seen_subcommand_from show schema help" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand config; and not __fish_seen_subcommand_from show schema help" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand config; and not __fish_seen_subcommand_from show schema help" -f -a "show" -d 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and not __fish_seen_subcommand_from show schema help" -f -a "schema" -d 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and not __fish_seen_subcommand_from show schema help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l path -d 'The repository, or a directory inside it to start from (such as a cluster\'s directory)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l root -d 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l concurrency -d 'Objects reconciled at once, 1 to 128 [default: the number of cores]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l substitute -d 'A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l substitute-from -d 'A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable)' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l kube-version -d 'The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l chart-cache -d 'A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any repository' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l proxy -d 'Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy\'s address and to targets named by an address (a host name is the proxy\'s to resolve)' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l registry-config -d 'A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is never read unless named here: a repository under review would otherwise choose what your credentials fetch' -r -F
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l network-idle-timeout -d 'Seconds a fetch may wait for its next bytes before it fails [default: 15]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l network-deadline -d 'Seconds the whole run may spend on the network: a fetch after that fails, naming its URL, and one in flight is cut [default: 300]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l max-template-steps -d 'Steps one template execution may take (actions, loop iterations, function calls; key generation and password hashing count as many) [default: 20000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l max-rendered-objects -d 'Objects the run\'s producers may hold at once, over the whole run [default: 50000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l max-rendered-bytes -d 'Bytes chart and ResourceSet templates may render, over the whole run [default: 268435456]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l max-alias-nodes -d 'YAML nodes aliases and merge keys may expand to, over the whole run (every file and document together) [default: 2000000]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l max-extracted-bytes -d 'Bytes of files extracted from archives (charts, artifacts) and inflated from git objects, over the whole run [default: 1073741824]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l max-loaded-chart-bytes -d 'Bytes of loaded charts (their files, subcharts included) held at once; charts no release is rendering are let go first, then renders in flight are waited for [default: 536870912]' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l secret-producer -d 'A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease\'s `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and SealedSecret are always known)' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l resourceset-inputs -d 'The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab, OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable)' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l sources -d 'Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR` one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or repeated; also `sources:` in `.offlux.yaml`)' -r
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l allow-missing-sources -d 'Report consumers of sources that cannot be had offline as SKIPPED instead of failed'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l strict-substitutions -d 'An unset `${VAR}` without a default fails the Kustomization (Flux\'s strict mode)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l redact-secret-values -d 'Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use this where output goes to a CI log or a pull request'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l offline -d 'Never fetch charts or sources over the network; what the caches lack is reported missing'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l allow-private-network -d 'Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a repository under review must not make this machine call its internal services)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l no-cache -d 'Render every HelmRelease afresh: neither read nor keep rendered releases in the cache (kept by default, keyed by everything a render reads and by this build of offlux)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l env-from-process -d 'Fill an env file\'s bare keys (a line `KEY` without `=`) from offlux\'s own environment, as kustomize does. Off by default: a repository under review must not read CI secrets'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from schema" -l log-level -d 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes' -r -f -a "error\t''
warn\t''
info\t''"
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from schema" -l no-color -d 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from schema" -s h -l help -d 'Print help'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from schema" -s V -l version -d 'Print version'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "schema" -d 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)'
complete -c offlux -n "__fish_offlux_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "get" -d 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "test" -d 'Reconcile the repository as Flux would, without a cluster, and report each Flux object: PASS, FAIL, SKIPPED, BLOCKED'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "validate" -d 'Check every rendered object: Kubernetes and CRD schemas, duplicates, missing namespaces, unsubstituted variables, removed and deprecated API versions, references nothing provides, values keys no template reads, orphans (codes OFX101-OFX114); a producer that failed is OFX100'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "build" -d 'Print the objects one Kustomization or HelmRelease (or every Kustomization) would apply'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "render" -d 'Render everything that would be applied, to stdout or one file per producer (`--out DIR`)'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "kustomize" -d 'Native kustomize: `offlux kustomize build DIR`'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "helm" -d 'Native Helm: `offlux helm template CHART [RELEASE]`'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "diff" -d 'What a change does to the cluster: reconcile a base revision (by default the merge base with the default branch) and the working tree, and compare them object by object'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "graph" -d 'Show the dependency graph: dependsOn, sources, data, and what applies what'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "explain" -d 'Explain a finding code (OFX100...): what it means, why it matters, how to fix or silence it'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "completions" -d 'Print a shell completion script'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "cache" -d 'The charts and sources offlux downloaded and keeps across runs: `list`, `gc`, `clear`'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "init" -d 'Write a first `.offlux.yaml` for the clusters found here (and, on request, a GitHub workflow and a pre-commit configuration)'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "config" -d 'The repository\'s `.offlux.yaml`: the settings a run takes and where each came from (`show`), or the file\'s JSON Schema (`schema`)'
complete -c offlux -n "__fish_offlux_using_subcommand help; and not __fish_seen_subcommand_from get test validate build render kustomize helm diff graph explain completions cache init config help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c offlux -n "__fish_offlux_using_subcommand help; and __fish_seen_subcommand_from kustomize" -f -a "build" -d 'Build a kustomization directory and print the result, as `kustomize build` does'
complete -c offlux -n "__fish_offlux_using_subcommand help; and __fish_seen_subcommand_from helm" -f -a "template" -d 'Render a local chart and print the manifests, as `helm template` does'
complete -c offlux -n "__fish_offlux_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "list" -d 'Where the cache is, and each archive and repository in it: digest, size, age (`-o json` for a list)'
complete -c offlux -n "__fish_offlux_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "gc" -d 'Removes the oldest archives and Git repositories until the cache holds at most `--max-size` bytes, and every one older than `--older-than` days'
complete -c offlux -n "__fish_offlux_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "clear" -d 'Removes every archive, Git repository and remembered ref offlux stored'
complete -c offlux -n "__fish_offlux_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Each run setting, its value and where it came from (command line, environment, `.offlux.yaml` with its line, or the default)'
complete -c offlux -n "__fish_offlux_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "schema" -d 'The JSON Schema of `.offlux.yaml` (for the YAML language server: `# yaml-language-server: $schema=...`)'
