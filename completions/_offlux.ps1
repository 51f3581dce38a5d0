
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
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Show the dependency graph: dependsOn, sources, data, and what applies what')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;get' {
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The repository, or a directory inside it to start from (such as a cluster''s directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'The repository root that `spec.path` values are relative to [default: the nearest ancestor of `--path` holding `.git`, else `--path`]')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only objects in this namespace')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only objects in this namespace')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Objects in every namespace (the default when no namespace is given)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Objects in every namespace (the default when no namespace is given)')
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
        'offlux;completions' {
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Disable colour in diagnostics (also set by the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'offlux;help' {
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'List the Flux objects of a repository: Kustomizations, HelmReleases, sources')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Show the dependency graph: dependsOn, sources, data, and what applies what')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'offlux;help;get' {
            break
        }
        'offlux;help;graph' {
            break
        }
        'offlux;help;completions' {
            break
        }
        'offlux;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
