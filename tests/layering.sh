#!/bin/sh
# layering.sh OBJDIR [OBJ...] - the layers of gaussaudit point one way: a function may call
# only functions of its own module or of a lower layer.
#   0 numerics  numerics/*.o
#   1 pair      audit/pair*.o                           (the library behind gaussaudit.h)
#   1 specs     specs/*.o                               (text -> spec value; beside pair)
#   2 catalogue audit/mechanisms.o                      (kinds: spec -> pairs)
#   3 verdict   audit/audit.o audit/calibrate.o audit/shard.o audit/watch.o (claims -> verdicts,
#               calibration, merge, the watch on a running audit)
#   4 reports   reports/*.o                             (verdicts -> documents)
#   5 cli       audit/cli.o audit/commands.o audit/cmd_calibrate.o audit/main.o
# It reads the undefined symbols of each object (nm -u), finds the object that defines each,
# and fails on an edge to a higher layer or sideways to another module of the same layer,
# unless the edge is in ALLOWED below (today's known violations, each to be removed).
set -u
obj=${1:-build/obj}
[ $# -gt 0 ] && shift
# the objects to check (relative to OBJDIR): those given, or every one found
if [ $# -gt 0 ]; then objs="$*"; else objs=$(cd "$obj" && find numerics audit specs reports -name '*.o' | sort); fi
ALLOWED="
"
layer() {
    case $1 in
    numerics/*) echo "0 numerics" ;;
    audit/pair.o|audit/pair_cert.o|audit/pair_release.o) echo "1 pair" ;;
    specs/*) echo "1 specs" ;;
    audit/mechanisms.o) echo "2 catalogue" ;;
    audit/audit.o|audit/calibrate.o|audit/shard.o|audit/watch.o) echo "3 verdict" ;;
    reports/*) echo "4 reports" ;;
    audit/*) echo "5 cli" ;;
    *) echo "9 other" ;;
    esac
}
defs=$(mktemp)
trap 'rm -f "$defs"' EXIT
for o in $objs; do
    nm --defined-only -g "$obj/$o" | awk -v f="$o" '$2 ~ /^[TDRB]$/ {print $3, f}'
done >"$defs"
fail=0
for o in $objs; do
    set -- $(layer "$o")
    ul=$1 um=$2
    for sym in $(nm -u "$obj/$o" | awk '{print $2}' | grep '^ga_'); do
        d=$(awk -v s="$sym" '$1 == s {print $2; exit}' "$defs")
        [ -n "$d" ] || continue
        set -- $(layer "$d")
        dl=$1 dm=$2
        if [ "$dm" = "$um" ] || [ "$dl" -lt "$ul" ]; then continue; fi
        if printf '%s\n' "$ALLOWED" | grep -q "^$o $sym "; then continue; fi
        echo "layering: $o ($um, layer $ul) calls $sym of $d ($dm, layer $dl)"
        fail=1
    done
done
# one door to BLAS and LAPACK: the library is opened on first use by
# numerics/blas.o; a direct cblas_* or LAPACK call elsewhere would bind to GSL's CBLAS or fail
for o in $objs; do
    [ "$o" = numerics/blas.o ] && continue
    direct=$(nm -u "$obj/$o" | awk '{print $2}' | grep -E '^(cblas_|openblas_|LAPACKE_|d[a-z]+_$)' | tr '\n' ' ')
    [ -z "$direct" ] || { echo "layering: $o calls BLAS/LAPACK directly: $direct(use numerics/blas.c)"; fail=1; }
done
[ $fail = 0 ] && echo "layering: every call points down (allowed exceptions: $(printf '%s\n' "$ALLOWED" | grep -c ' ga_'))"
exit $fail
