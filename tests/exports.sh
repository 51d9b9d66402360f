#!/bin/sh
# exports.sh LIB.a - libgaussaudit exports exactly the public API: the functions declared
# with GA_API in gaussaudit.h are the only global symbols of default visibility (the library
# is compiled with -fvisibility=hidden, so the internals, ga_path_*, ga_spec_*, ..., stay
# inside it: invisible from a shared library, and flagged here if one leaks). For the shared
# library, and the CLI beside it: neither links FLINT/Arb (with MPFR, GMP, NTL, libstdc++) or
# a BLAS, which are opened on first use (numerics/arb_load.c, base/blas.c).
set -u
lib=${1:-build/libgaussaudit.a}
want=$(mktemp)
have=$(mktemp)
trap 'rm -f "$want" "$have"' EXIT
sed -n 's/^GA_API[^(]*[ *]\(ga_[a-z0-9_]*\)(.*/\1/p' gaussaudit.h | sort -u >"$want"
readelf -Ws "$lib" | awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" && $4 == "FUNC" {print $8}' |
    sort -u >"$have"
if ! cmp -s "$want" "$have"; then
    echo "exports: the library's default-visibility functions differ from gaussaudit.h's GA_API:"
    diff "$want" "$have" | sed -n 's/^< /  declared, not exported: /p; s/^> /  exported, not declared: /p'
    exit 1
fi
case "$lib" in
*.so)
    for obj in "$lib" "$(dirname "$lib")/gaussaudit"; do
        linked=$(readelf -d "$obj" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
            grep -E 'flint|ntl|stdc\+\+|mpfr|gmp|openblas|liblapack|libblas' | tr '\n' ' ')
        if [ -n "$linked" ]; then
            echo "exports: $obj links $linked(opened on first use instead)"
            exit 1
        fi
    done
    ;;
esac
echo "exports: exactly the $(wc -l <"$want") functions of gaussaudit.h"
