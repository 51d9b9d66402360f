# bash completion for gaussaudit (installed by make install into
# PREFIX/share/bash-completion/completions/gaussaudit). The commands, each command's options
# and the values of --format are read from the program itself (its help texts), so they
# stay those of the installed version; spec operands complete as YAML files.
_gaussaudit()
{
    local cur prev cmd opts
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$(gaussaudit help 2>/dev/null |
            sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    case $prev in
    --format)
        COMPREPLY=($(compgen -W "$(gaussaudit "$cmd" --help 2>/dev/null |
            sed -n 's/.*--format \([a-z|]*\).*/\1/p' | head -1 | tr '|' ' ')" -- "$cur"))
        return ;;
    -o|--output|--spec)
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    --allow-path)
        COMPREPLY=($(compgen -d -- "$cur"))
        return ;;
    esac
    if [[ $cur == -* ]]; then
        opts=$({ gaussaudit "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*'
                 printf '%s\n' --timeout --help; } | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -X '!*.@(yaml|yml|json)' -- "$cur") $(compgen -d -- "$cur"))
}
complete -o filenames -F _gaussaudit gaussaudit
