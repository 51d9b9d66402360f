#!/bin/sh
# install.sh BUILD - `make install` into a temporary prefix, then a small C program built with
# pkg-config alone against the installed library, shared and static, must run and print the
# analytic Gaussian mechanism's delta(1) at distance 1, 0.12693673750664394 (Balle & Wang 2018,
# Thm 8; also in tests/verdict/test_api.c): the program is doc/c-api.md's "Use from C" example, so the
# page stays true; the man pages must be there: gaussaudit(1) with every command, its examples
# and exit statuses, gaussaudit-spec(5) with every mechanism kind.
set -eu
B=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make --no-print-directory -s install BUILD="$B" PREFIX="$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# doc/c-api.md's "Use from C" program, as written there
awk '/^## Use from C/ {f = 1} f && /^```c$/ {p = 1; next} p && /^```$/ {exit} p' doc/c-api.md > "$tmp/prog.c"
[ -s "$tmp/prog.c" ] || { echo "install: no C program in doc/c-api.md's Use from C"; exit 1; }
want="delta(1) = 0.126936737506644"
fail=0
# shared: pkg-config --cflags --libs, the installed .so found at run time
cc -o "$tmp/prog_shared" "$tmp/prog.c" $(pkg-config --cflags --libs gaussaudit)
got=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/prog_shared" | head -1 | cut -c1-28)
[ "$got" = "$want" ] || { echo "install: shared build printed '$got', expected '$want'"; fail=1; }
LD_LIBRARY_PATH="$tmp/prefix/lib" ldd "$tmp/prog_shared" | grep -q "libgaussaudit.so.0 =>" ||
    { echo "install: the shared build does not use libgaussaudit.so.0"; fail=1; }
# static: the archive and pkg-config --static's private dependencies
libdir=$(pkg-config --variable=libdir gaussaudit)
cc -o "$tmp/prog_static" "$tmp/prog.c" $(pkg-config --cflags gaussaudit) "$libdir/libgaussaudit.a" \
    $(pkg-config --static --libs gaussaudit | sed 's/-lgaussaudit//')
got=$("$tmp/prog_static" | head -1 | cut -c1-28)
[ "$got" = "$want" ] || { echo "install: static build printed '$got', expected '$want'"; fail=1; }
ldd "$tmp/prog_static" | grep -q libgaussaudit && { echo "install: the static build needs the .so"; fail=1; }
# the CLI and its man page
"$tmp/prefix/bin/gaussaudit" version >/dev/null || fail=1
for c in audit calibrate delta epsilon rdp cdf; do
    grep -q "COMMAND: $c" "$tmp/prefix/share/man/man1/gaussaudit.1" || { echo "install: man page lacks $c"; fail=1; }
done
for s in EXAMPLES "EXIT STATUS" "SEE ALSO"; do
    grep -q "^\.SH $s" "$tmp/prefix/share/man/man1/gaussaudit.1" || { echo "install: gaussaudit(1) lacks $s"; fail=1; }
done
# the spec language, gaussaudit-spec(5): every mechanism kind of doc/spec.md, and troff that
# renders without a warning
spec5="$tmp/prefix/share/man/man5/gaussaudit-spec.5"
for k in gaussian_mechanism sketch subsampled_gaussian matrix_masking synthetic_random_inputs composition; do
    grep -q "$k" "$spec5" || { echo "install: gaussaudit-spec(5) lacks $k"; fail=1; }
done
if command -v groff >/dev/null; then
    warn=$(groff -man -Tutf8 -ww -z "$spec5" 2>&1 | head -3)
    [ -z "$warn" ] || { echo "install: gaussaudit-spec(5) renders with warnings: $warn"; fail=1; }
fi
# bash completion: the commands, a command's options and --format's values, from the
# installed program
comp="$tmp/prefix/share/bash-completion/completions/gaussaudit"
if [ -f "$comp" ] && command -v bash >/dev/null; then
    got=$(PATH="$tmp/prefix/bin:$PATH" bash -c '. "$1"
        COMP_WORDS=(gaussaudit au); COMP_CWORD=1; _gaussaudit; echo "${COMPREPLY[*]}"
        COMP_WORDS=(gaussaudit audit --cert); COMP_CWORD=2; _gaussaudit; echo "${COMPREPLY[*]}"
        COMP_WORDS=(gaussaudit audit --format ""); COMP_CWORD=3; _gaussaudit; echo "${COMPREPLY[*]}"' _ "$comp")
    [ "$got" = "$(printf 'audit\n--certified\nmd html json junit')" ] ||
        { echo "install: bash completion gave '$got'"; fail=1; }
else
    echo "install: no bash completion at $comp"; fail=1
fi
# uninstall leaves nothing of ours
make --no-print-directory -s uninstall BUILD="$B" PREFIX="$tmp/prefix" >/dev/null
left=$(find "$tmp/prefix" -type f -o -type l | wc -l)
[ "$left" = 0 ] || { echo "install: uninstall left $left files"; fail=1; }
# a PREFIX with a space names one directory: install and uninstall touch nothing beside it
# (unquoted, "$tmp/sp $tmp/decoy" would have removed $tmp/decoy/bin/gaussaudit)
mkdir -p "$tmp/decoy/bin" && echo keep > "$tmp/decoy/bin/gaussaudit"
make --no-print-directory -s install BUILD="$B" PREFIX="$tmp/sp $tmp/decoy" >/dev/null
[ -x "$tmp/sp $tmp/decoy/bin/gaussaudit" ] || { echo "install: a PREFIX with a space was not installed into"; fail=1; }
make --no-print-directory -s uninstall BUILD="$B" PREFIX="$tmp/sp $tmp/decoy" >/dev/null
[ "$(cat "$tmp/decoy/bin/gaussaudit")" = keep ] || { echo "install: uninstall removed a file outside PREFIX"; fail=1; }
[ ! -e "$tmp/sp $tmp/decoy/bin/gaussaudit" ] || { echo "install: uninstall left the CLI"; fail=1; }
[ $fail = 0 ] && echo "install: shared and static builds with pkg-config alone run; man pages; uninstall clean"
exit $fail
