_offlux() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="offlux"
                ;;
            offlux,build)
                cmd="offlux__subcmd__build"
                ;;
            offlux,cache)
                cmd="offlux__subcmd__cache"
                ;;
            offlux,completions)
                cmd="offlux__subcmd__completions"
                ;;
            offlux,config)
                cmd="offlux__subcmd__config"
                ;;
            offlux,diff)
                cmd="offlux__subcmd__diff"
                ;;
            offlux,explain)
                cmd="offlux__subcmd__explain"
                ;;
            offlux,get)
                cmd="offlux__subcmd__get"
                ;;
            offlux,graph)
                cmd="offlux__subcmd__graph"
                ;;
            offlux,helm)
                cmd="offlux__subcmd__helm"
                ;;
            offlux,help)
                cmd="offlux__subcmd__help"
                ;;
            offlux,init)
                cmd="offlux__subcmd__init"
                ;;
            offlux,kustomize)
                cmd="offlux__subcmd__kustomize"
                ;;
            offlux,render)
                cmd="offlux__subcmd__render"
                ;;
            offlux,test)
                cmd="offlux__subcmd__test"
                ;;
            offlux,validate)
                cmd="offlux__subcmd__validate"
                ;;
            offlux__subcmd__cache,clear)
                cmd="offlux__subcmd__cache__subcmd__clear"
                ;;
            offlux__subcmd__cache,gc)
                cmd="offlux__subcmd__cache__subcmd__gc"
                ;;
            offlux__subcmd__cache,help)
                cmd="offlux__subcmd__cache__subcmd__help"
                ;;
            offlux__subcmd__cache,list)
                cmd="offlux__subcmd__cache__subcmd__list"
                ;;
            offlux__subcmd__cache__subcmd__help,clear)
                cmd="offlux__subcmd__cache__subcmd__help__subcmd__clear"
                ;;
            offlux__subcmd__cache__subcmd__help,gc)
                cmd="offlux__subcmd__cache__subcmd__help__subcmd__gc"
                ;;
            offlux__subcmd__cache__subcmd__help,help)
                cmd="offlux__subcmd__cache__subcmd__help__subcmd__help"
                ;;
            offlux__subcmd__cache__subcmd__help,list)
                cmd="offlux__subcmd__cache__subcmd__help__subcmd__list"
                ;;
            offlux__subcmd__config,help)
                cmd="offlux__subcmd__config__subcmd__help"
                ;;
            offlux__subcmd__config,schema)
                cmd="offlux__subcmd__config__subcmd__schema"
                ;;
            offlux__subcmd__config,show)
                cmd="offlux__subcmd__config__subcmd__show"
                ;;
            offlux__subcmd__config__subcmd__help,help)
                cmd="offlux__subcmd__config__subcmd__help__subcmd__help"
                ;;
            offlux__subcmd__config__subcmd__help,schema)
                cmd="offlux__subcmd__config__subcmd__help__subcmd__schema"
                ;;
            offlux__subcmd__config__subcmd__help,show)
                cmd="offlux__subcmd__config__subcmd__help__subcmd__show"
                ;;
            offlux__subcmd__helm,help)
                cmd="offlux__subcmd__helm__subcmd__help"
                ;;
            offlux__subcmd__helm,template)
                cmd="offlux__subcmd__helm__subcmd__template"
                ;;
            offlux__subcmd__helm__subcmd__help,help)
                cmd="offlux__subcmd__helm__subcmd__help__subcmd__help"
                ;;
            offlux__subcmd__helm__subcmd__help,template)
                cmd="offlux__subcmd__helm__subcmd__help__subcmd__template"
                ;;
            offlux__subcmd__help,build)
                cmd="offlux__subcmd__help__subcmd__build"
                ;;
            offlux__subcmd__help,cache)
                cmd="offlux__subcmd__help__subcmd__cache"
                ;;
            offlux__subcmd__help,completions)
                cmd="offlux__subcmd__help__subcmd__completions"
                ;;
            offlux__subcmd__help,config)
                cmd="offlux__subcmd__help__subcmd__config"
                ;;
            offlux__subcmd__help,diff)
                cmd="offlux__subcmd__help__subcmd__diff"
                ;;
            offlux__subcmd__help,explain)
                cmd="offlux__subcmd__help__subcmd__explain"
                ;;
            offlux__subcmd__help,get)
                cmd="offlux__subcmd__help__subcmd__get"
                ;;
            offlux__subcmd__help,graph)
                cmd="offlux__subcmd__help__subcmd__graph"
                ;;
            offlux__subcmd__help,helm)
                cmd="offlux__subcmd__help__subcmd__helm"
                ;;
            offlux__subcmd__help,help)
                cmd="offlux__subcmd__help__subcmd__help"
                ;;
            offlux__subcmd__help,init)
                cmd="offlux__subcmd__help__subcmd__init"
                ;;
            offlux__subcmd__help,kustomize)
                cmd="offlux__subcmd__help__subcmd__kustomize"
                ;;
            offlux__subcmd__help,render)
                cmd="offlux__subcmd__help__subcmd__render"
                ;;
            offlux__subcmd__help,test)
                cmd="offlux__subcmd__help__subcmd__test"
                ;;
            offlux__subcmd__help,validate)
                cmd="offlux__subcmd__help__subcmd__validate"
                ;;
            offlux__subcmd__help__subcmd__cache,clear)
                cmd="offlux__subcmd__help__subcmd__cache__subcmd__clear"
                ;;
            offlux__subcmd__help__subcmd__cache,gc)
                cmd="offlux__subcmd__help__subcmd__cache__subcmd__gc"
                ;;
            offlux__subcmd__help__subcmd__cache,list)
                cmd="offlux__subcmd__help__subcmd__cache__subcmd__list"
                ;;
            offlux__subcmd__help__subcmd__config,schema)
                cmd="offlux__subcmd__help__subcmd__config__subcmd__schema"
                ;;
            offlux__subcmd__help__subcmd__config,show)
                cmd="offlux__subcmd__help__subcmd__config__subcmd__show"
                ;;
            offlux__subcmd__help__subcmd__helm,template)
                cmd="offlux__subcmd__help__subcmd__helm__subcmd__template"
                ;;
            offlux__subcmd__help__subcmd__kustomize,build)
                cmd="offlux__subcmd__help__subcmd__kustomize__subcmd__build"
                ;;
            offlux__subcmd__kustomize,build)
                cmd="offlux__subcmd__kustomize__subcmd__build"
                ;;
            offlux__subcmd__kustomize,help)
                cmd="offlux__subcmd__kustomize__subcmd__help"
                ;;
            offlux__subcmd__kustomize__subcmd__help,build)
                cmd="offlux__subcmd__kustomize__subcmd__help__subcmd__build"
                ;;
            offlux__subcmd__kustomize__subcmd__help,help)
                cmd="offlux__subcmd__kustomize__subcmd__help__subcmd__help"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        offlux)
            opts="-h -V --no-color --log-level --help --version get test validate build render kustomize helm diff graph explain completions cache init config help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__build)
            opts="-n -A -o -h -V --namespace --all-namespaces --no-scope --path --root --concurrency --allow-missing-sources --strict-substitutions --substitute --substitute-from --redact-secret-values --kube-version --chart-cache --offline --allow-private-network --proxy --registry-config --no-cache --network-idle-timeout --network-deadline --max-template-steps --max-rendered-objects --max-rendered-bytes --max-alias-nodes --max-extracted-bytes --max-loaded-chart-bytes --secret-producer --env-from-process --resourceset-inputs --sources --skip-secrets --skip-crds --skip-kinds --output --no-color --log-level --help --version ks hr all"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-idle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-template-steps)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-objects)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-alias-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-extracted-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-loaded-chart-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret-producer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resourceset-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-secrets)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --skip-crds)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --skip-kinds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "yaml json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "yaml json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache)
            opts="-h -V --no-color --log-level --help --version list gc clear help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__clear)
            opts="-h -V --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__gc)
            opts="-h -V --max-size --older-than --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__help)
            opts="list gc clear help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__help__subcmd__clear)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__help__subcmd__gc)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__cache__subcmd__list)
            opts="-o -h -V --output --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__completions)
            opts="-h -V --no-color --log-level --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__config)
            opts="-h -V --no-color --log-level --help --version show schema help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__config__subcmd__help)
            opts="show schema help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__config__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__config__subcmd__help__subcmd__schema)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__config__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__config__subcmd__schema)
            opts="-h -V --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__config__subcmd__show)
            opts="-h -V --path --root --concurrency --allow-missing-sources --strict-substitutions --substitute --substitute-from --redact-secret-values --kube-version --chart-cache --offline --allow-private-network --proxy --registry-config --no-cache --network-idle-timeout --network-deadline --max-template-steps --max-rendered-objects --max-rendered-bytes --max-alias-nodes --max-extracted-bytes --max-loaded-chart-bytes --secret-producer --env-from-process --resourceset-inputs --sources --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-idle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-template-steps)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-objects)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-alias-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-extracted-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-loaded-chart-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret-producer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resourceset-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__diff)
            opts="-n -l -o -U -h -V --namespace --selector --path --root --concurrency --allow-missing-sources --strict-substitutions --substitute --substitute-from --redact-secret-values --kube-version --chart-cache --offline --allow-private-network --proxy --registry-config --no-cache --network-idle-timeout --network-deadline --max-template-steps --max-rendered-objects --max-rendered-bytes --max-alias-nodes --max-extracted-bytes --max-loaded-chart-bytes --secret-producer --env-from-process --resourceset-inputs --sources --base --base-dir --head --output --context --fields --out --exit-zero --skip-secrets --skip-crds --skip-kinds --max-size --full-report-url --changed-only --strip-attr --no-default-strip --report-markdown --report-json --report-github --report-human --report-html --no-color --log-level --help --version images ks hr"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-idle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-template-steps)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-objects)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-alias-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-extracted-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-loaded-chart-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret-producer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resourceset-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --head)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "human markdown json github html" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "human markdown json github html" -- "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -U)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-crds)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --skip-kinds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --full-report-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --strip-attr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-markdown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-github)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-human)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__explain)
            opts="-h -V --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__get)
            opts="-n -A -l -o -h -V --path --root --concurrency --allow-missing-sources --strict-substitutions --substitute --substitute-from --redact-secret-values --kube-version --chart-cache --offline --allow-private-network --proxy --registry-config --no-cache --network-idle-timeout --network-deadline --max-template-steps --max-rendered-objects --max-rendered-bytes --max-alias-nodes --max-extracted-bytes --max-loaded-chart-bytes --secret-producer --env-from-process --resourceset-inputs --sources --namespace --all-namespaces --selector --output --no-color --log-level --help --version ks hr sources all clusters images"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-idle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-template-steps)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-objects)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-alias-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-extracted-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-loaded-chart-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret-producer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resourceset-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table yaml json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table yaml json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__graph)
            opts="-o -h -V --path --root --output --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "dot mermaid json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "dot mermaid json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__helm)
            opts="-h -V --no-color --log-level --help --version template help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__helm__subcmd__help)
            opts="template help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__helm__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__helm__subcmd__help__subcmd__template)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__helm__subcmd__template)
            opts="-n -f -a -s -h -V --namespace --values --set --set-string --include-crds --no-hooks --skip-tests --skip-schema-validation --kube-version --api-versions --is-upgrade --show-only --repeat --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --values)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-string)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --api-versions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -a)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --show-only)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --repeat)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help)
            opts="get test validate build render kustomize helm diff graph explain completions cache init config help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__build)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__cache)
            opts="list gc clear"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__cache__subcmd__clear)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__cache__subcmd__gc)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__cache__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__config)
            opts="show schema"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__config__subcmd__schema)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__config__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__diff)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__graph)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__helm)
            opts="template"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__helm__subcmd__template)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__init)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__kustomize)
            opts="build"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__kustomize__subcmd__build)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__render)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__test)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__help__subcmd__validate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__init)
            opts="-h -V --path --root --github-workflow --pre-commit --force --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__kustomize)
            opts="-h -V --no-color --log-level --help --version build help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__kustomize__subcmd__build)
            opts="-o -h -V --load-restrictor --reorder --output --enable-helm --enable-alpha-plugins --enable-exec --env-from-process --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --load-restrictor)
                    COMPREPLY=($(compgen -W "LoadRestrictionsRootOnly LoadRestrictionsNone" -- "${cur}"))
                    return 0
                    ;;
                --reorder)
                    COMPREPLY=($(compgen -W "legacy none" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__kustomize__subcmd__help)
            opts="build help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__kustomize__subcmd__help__subcmd__build)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__kustomize__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__render)
            opts="-o -h -V --path --root --concurrency --allow-missing-sources --strict-substitutions --substitute --substitute-from --redact-secret-values --kube-version --chart-cache --offline --allow-private-network --proxy --registry-config --no-cache --network-idle-timeout --network-deadline --max-template-steps --max-rendered-objects --max-rendered-bytes --max-alias-nodes --max-extracted-bytes --max-loaded-chart-bytes --secret-producer --env-from-process --resourceset-inputs --sources --skip-secrets --skip-crds --skip-kinds --changed-only --base --out --out-inside-repo --output --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-idle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-template-steps)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-objects)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-alias-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-extracted-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-loaded-chart-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret-producer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resourceset-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-secrets)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --skip-crds)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --skip-kinds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "yaml json" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "yaml json" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__test)
            opts="-n -o -q -h -V --namespace --no-scope --path --root --concurrency --allow-missing-sources --strict-substitutions --substitute --substitute-from --redact-secret-values --kube-version --chart-cache --offline --allow-private-network --proxy --registry-config --no-cache --network-idle-timeout --network-deadline --max-template-steps --max-rendered-objects --max-rendered-bytes --max-alias-nodes --max-extracted-bytes --max-loaded-chart-bytes --secret-producer --env-from-process --resourceset-inputs --sources --changed-only --base --validate --strict-schemas --crds --all-entry-points --output --failures-only --no-color --log-level --help --version ks hr all"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-idle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-template-steps)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-objects)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-alias-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-extracted-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-loaded-chart-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret-producer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resourceset-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --crds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "human json junit github" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "human json junit github" -- "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        offlux__subcmd__validate)
            opts="-o -h -V --path --root --concurrency --allow-missing-sources --strict-substitutions --substitute --substitute-from --redact-secret-values --kube-version --chart-cache --offline --allow-private-network --proxy --registry-config --no-cache --network-idle-timeout --network-deadline --max-template-steps --max-rendered-objects --max-rendered-bytes --max-alias-nodes --max-extracted-bytes --max-loaded-chart-bytes --secret-producer --env-from-process --resourceset-inputs --sources --output --report-sarif --report-json --report-junit --report-human --strict-schemas --crds --all-entry-points --changed-only --base --no-color --log-level --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --substitute-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --chart-cache)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --proxy)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registry-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-idle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --network-deadline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-template-steps)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-objects)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-rendered-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-alias-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-extracted-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-loaded-chart-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret-producer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --resourceset-inputs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "human json junit github sarif" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "human json junit github sarif" -- "${cur}"))
                    return 0
                    ;;
                --report-sarif)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-json)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-junit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report-human)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --crds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-level)
                    COMPREPLY=($(compgen -W "error warn info" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _offlux -o nosort -o bashdefault -o default offlux
else
    complete -F _offlux -o bashdefault -o default offlux
fi
