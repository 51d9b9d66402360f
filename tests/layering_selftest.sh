#!/bin/sh
# layering_selftest.sh - tests/layering.sh must fail on each kind of violation it checks: a
# small tree of one file per layer passes, then each violation is planted in a copy of it
# (an upward call, an upward include, another folder's internal.h, a cycle of calls inside
# a folder, a direct BLAS call) and must fail, with the message naming it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
fail=0

# the clean tree: base <- numerics <- pair <- ... <- cli, each file calling the one below
clean() {
    d=$1
    mkdir -p "$d"
    prev=""
    for l in base numerics pair specs catalogue verdict reports cli; do
        mkdir -p "$d/$l"
        printf '#ifndef X_%s\n#define X_%s\nint ga_%s_f(void);\n#endif\n' "$l" "$l" "$l" >"$d/$l/$l.h"
        printf 'int ga_%s_private(void);\n' "$l" >"$d/$l/internal.h"
        {
            [ -n "$prev" ] && printf '#include "%s/%s.h"\n' "$prev" "$prev"
            printf '#include "%s/internal.h"\n' "$l"
            printf 'int ga_%s_private(void) { return 1; }\n' "$l"
            if [ -n "$prev" ]; then
                printf 'int ga_%s_f(void) { return ga_%s_f() + ga_%s_private(); }\n' "$l" "$prev" "$l"
            else
                printf 'int ga_%s_f(void) { return ga_%s_private(); }\n' "$l" "$l"
            fi
        } >"$d/$l/$l.c"
        prev=$l
    done
}

build() { # compile every .c of tree $1 into $1/obj
    (cd "$1" && for c in */*.c; do
        mkdir -p "obj/${c%/*}"
        $CC -std=c11 -I. -c "$c" -o "obj/${c%.c}.o" || exit 1
    done)
}

check() { # check NAME EXPECT (pass | a message fragment) SETUP
    name=$1 expect=$2 setup=$3
    d="$tmp/$name"
    clean "$d"
    (cd "$d" && eval "$setup")
    build "$d" || { echo "layering_selftest: $name: the planted tree does not compile"; fail=1; return; }
    out=$(sh "$here/layering.sh" "$d/obj" "$d" 2>&1)
    rc=$?
    if [ "$expect" = pass ]; then
        [ $rc = 0 ] || { echo "layering_selftest: $name: the clean tree fails:"; echo "$out"; fail=1; }
    elif [ $rc = 0 ]; then
        echo "layering_selftest: $name: not caught ($out)"; fail=1
    elif ! printf '%s\n' "$out" | grep -q "$expect"; then
        echo "layering_selftest: $name: failed without '$expect':"; echo "$out"; fail=1
    fi
}

check clean pass ':'
check upward_call 'base/base.o calls ga_cli_f of cli/cli.o' \
    'printf "int ga_cli_f(void);\nint ga_base_up(void) { return ga_cli_f(); }\n" >>base/base.c'
check upward_include 'numerics/numerics.c includes verdict/verdict.h' \
    'printf "#include \"verdict/verdict.h\"\n" >>numerics/numerics.c'
check internals 'verdict/verdict.c includes pair/internal.h (the internals of pair)' \
    'printf "#include \"pair/internal.h\"\n" >>verdict/verdict.c'
check cycle 'a cycle of calls inside numerics/' \
    'printf "int ga_numerics_f(void);\nint ga_numerics_g(void) { return ga_numerics_f(); }\n" >numerics/g.c
     printf "int ga_numerics_g(void);\nint ga_numerics_h(void) { return ga_numerics_g(); }\n" >>numerics/numerics.c'
check blas 'pair/pair.o calls BLAS/LAPACK directly' \
    'printf "double cblas_ddot(int, const double *, int, const double *, int);\ndouble ga_pair_dot(const double *x) { return cblas_ddot(1, x, 1, x, 1); }\n" >>pair/pair.c'

[ $fail = 0 ] && echo "layering_selftest: a clean tree passes; an upward call, an upward include, another folder's internals, a cycle inside a folder and a direct BLAS call each fail"
exit $fail
