#!/bin/sh
# layering.sh [OBJDIR [SRCDIR [OBJ...]]] - the library's folders are its layers, and they point one way:
#   0 base       messages, the decimal reader, printing, the clock, the BLAS door, memory
#   1 numerics   generalized chi-square engines, certified integration, Arb
#   2 pair       pair types: Gaussian reduction, products, loss families, certificates
#   3 specs      text -> parse result
#   4 catalogue  kinds, neighbours, universes: spec -> pairs
#   5 verdict    claims, the audit pipeline, witnesses, calibration, shards
#   6 reports    verdicts -> documents, one file per format
#   7 cli        the command table
# A file may use its own folder and the folders below it, never one above. Checked here:
#   calls     each ga_ symbol an object of OBJDIR uses is defined in its folder or below (nm);
#   includes  each #include "F/x.h" of a .c or .h in SRCDIR names a folder F at or below the
#             file's own, and a folder's internal.h (or *_internal.h) only from that folder;
#   cycles    the objects of one folder call each other without a cycle (tsort);
#   BLAS      only base/blas.o calls BLAS or LAPACK (the one door: the library is opened there).
# ALLOWED lists the known exceptions, one "file target" per line (each to be removed).
set -u
obj=${1:-build/obj}
src=${2:-.}
[ $# -gt 2 ] && shift 2 || set --
LAYERS="base numerics pair specs catalogue verdict reports cli"
ALLOWED="
"
layer() { # folder of a path -> its rank (9: not a layer)
    n=0
    for l in $LAYERS; do
        case $1 in "$l"/*) echo $n; return ;; esac
        n=$((n + 1))
    done
    echo 9
}
allowed() { printf '%s\n' "$ALLOWED" | grep -qx "$1 $2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# calls: symbol -> defining object, then every use checked against its definer's layer
# the objects to check (relative to OBJDIR): those given, or every one found
if [ $# -gt 0 ]; then objs=$(printf '%s\n' "$@" | sort); else
    objs=$(cd "$obj" && for l in $LAYERS; do [ -d "$l" ] && find "$l" -name '*.o'; done | sort)
fi
for o in $objs; do
    nm --defined-only -g "$obj/$o" | awk -v f="$o" '$2 ~ /^[TDRB]$/ {print $3, f}'
done | sort >"$tmp/defs"
for o in $objs; do
    nm -u "$obj/$o" | awk '$2 ~ /^ga_/ {print $2}' | sort -u >"$tmp/uses"
    join "$tmp/uses" "$tmp/defs" | while read -r sym d; do
        echo "$o $d $sym"
    done
done >"$tmp/edges"
while read -r o d sym; do
    ul=$(layer "$o") dl=$(layer "$d")
    [ "$dl" -le "$ul" ] && continue
    allowed "$o" "$d" && continue
    echo "layering: $o calls $sym of $d (a higher layer: ${d%%/*} above ${o%%/*})"
    echo x >>"$tmp/failed"
done <"$tmp/edges"

# includes: the folder of each quoted include, and internal headers kept in their folder
files=$(cd "$src" && for l in $LAYERS; do [ -d "$l" ] && find "$l" -name '*.[ch]'; done | sort)
for f in $files; do
    fl=$(layer "$f")
    sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$src/$f" | while read -r h; do
        case $h in */*) ;; *) continue ;; esac # gaussaudit.h and system headers: every layer
        hl=$(layer "$h")
        [ "$hl" = 9 ] && continue
        allowed "$f" "$h" && continue
        if [ "$hl" -gt "$fl" ]; then
            echo "layering: $f includes $h (a higher layer: ${h%%/*} above ${f%%/*})"
            echo x >>"$tmp/failed"
        fi
        case ${h##*/} in internal.h|*_internal.h)
            if [ "${h%%/*}" != "${f%%/*}" ]; then
                echo "layering: $f includes $h (the internals of ${h%%/*})"
                echo x >>"$tmp/failed"
            fi ;;
        esac
    done
done

# cycles inside a folder: tsort of the same-folder call edges (a loop is reported on stderr)
for l in $LAYERS; do
    awk -v l="$l/" 'index($1, l) == 1 && index($2, l) == 1 && $1 != $2 {print $2, $1}' \
        "$tmp/edges" | sort -u >"$tmp/same"
    [ -s "$tmp/same" ] || continue
    if ! tsort "$tmp/same" >/dev/null 2>"$tmp/loop" || [ -s "$tmp/loop" ]; then
        echo "layering: a cycle of calls inside $l/:" $(sed -n 's/^tsort: //p' "$tmp/loop" | grep -v 'loop' | tr '\n' ' ')
        echo x >>"$tmp/failed"
    fi
done

# one door to BLAS and LAPACK: a direct cblas_* or LAPACK call elsewhere would bind to GSL's
# CBLAS or fail
for o in $objs; do
    [ "$o" = base/blas.o ] && continue
    direct=$(nm -u "$obj/$o" | awk '{print $2}' | grep -E '^(cblas_|openblas_|LAPACKE_|d[a-z]+_$)' | tr '\n' ' ')
    [ -z "$direct" ] || { echo "layering: $o calls BLAS/LAPACK directly: $direct(use base/blas.c)"; echo x >>"$tmp/failed"; }
done

[ -s "$tmp/failed" ] && fail=1
[ -n "$objs" ] || { echo "layering: no objects under $obj"; fail=1; }
[ $fail = 0 ] && echo "layering: every call and include points down, no cycle inside a folder ($(echo "$objs" | wc -w) objects; allowed exceptions: $(printf '%s\n' "$ALLOWED" | grep -c ' '))"
exit $fail
