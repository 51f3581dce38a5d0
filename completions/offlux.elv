
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
            cand graph 'Show the dependency graph: dependsOn, sources, data, and what applies what'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;get'= {
            cand --path 'The repository, or a directory inside it to start from (such as a cluster''s directory)'
            cand --root 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]'
            cand -n 'Only objects in this namespace'
            cand --namespace 'Only objects in this namespace'
            cand -l 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated'
            cand --selector 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand -A 'Objects in every namespace (the default when no namespace is given)'
            cand --all-namespaces 'Objects in every namespace (the default when no namespace is given)'
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
        &'offlux;completions'= {
            cand --log-level 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes'
            cand --no-color 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'offlux;help'= {
            cand get 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources'
            cand graph 'Show the dependency graph: dependsOn, sources, data, and what applies what'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'offlux;help;get'= {
        }
        &'offlux;help;graph'= {
        }
        &'offlux;help;completions'= {
        }
        &'offlux;help;help'= {
        }
    ]
    $completions[$command]
}
