#!/bin/sh
# install.sh BUILD - `make install` into a temporary prefix, then a small C program built with
# pkg-config alone against the installed library, shared and static, must run and print the
# analytic Gaussian mechanism's delta(1) at distance 1, 0.12693673750664394 (Balle & Wang 2018,
# Thm 8; also in tests/test_api.c); the man page must be there and mention every command.
set -eu
B=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make --no-print-directory -s install BUILD="$B" PREFIX="$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cat > "$tmp/prog.c" <<'C'
#include <gaussaudit.h>
#include <stdio.h>
int main(void)
{
    ga_init();
    double m0 = 0, m1 = 1, s = 1;
    ga_pair_input in = {1, &m0, &m1, &s, &s, 1, {NULL, NULL, NULL, NULL}};
    ga_pair *p;
    char msg[256];
    if (ga_pair_reduce(&p, &in, msg, sizeof msg)) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    ga_gchisq_work *w = ga_gchisq_work_alloc();
    ga_delta d;
    ga_pair_delta(&d, p, 1.0, GA_DELTA_AUTO, NULL, w);
    printf("%.14f %.14f\n", d.xy.val, d.yx.val);
    ga_gchisq_work_free(w);
    ga_pair_free(p);
    ga_cleanup();
    return 0;
}
C
want="0.12693673750664 0.12693673750664"
fail=0
# shared: pkg-config --cflags --libs, the installed .so found at run time
cc -o "$tmp/prog_shared" "$tmp/prog.c" $(pkg-config --cflags --libs gaussaudit)
got=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/prog_shared")
[ "$got" = "$want" ] || { echo "install: shared build printed '$got', expected '$want'"; fail=1; }
LD_LIBRARY_PATH="$tmp/prefix/lib" ldd "$tmp/prog_shared" | grep -q "libgaussaudit.so.0 =>" ||
    { echo "install: the shared build does not use libgaussaudit.so.0"; fail=1; }
# static: the archive and pkg-config --static's private dependencies
libdir=$(pkg-config --variable=libdir gaussaudit)
cc -o "$tmp/prog_static" "$tmp/prog.c" $(pkg-config --cflags gaussaudit) "$libdir/libgaussaudit.a" \
    $(pkg-config --static --libs gaussaudit | sed 's/-lgaussaudit//')
got=$("$tmp/prog_static")
[ "$got" = "$want" ] || { echo "install: static build printed '$got', expected '$want'"; fail=1; }
ldd "$tmp/prog_static" | grep -q libgaussaudit && { echo "install: the static build needs the .so"; fail=1; }
# the CLI and its man page
"$tmp/prefix/bin/gaussaudit" version >/dev/null || fail=1
for c in audit calibrate delta epsilon rdp cdf; do
    grep -q "COMMAND: $c" "$tmp/prefix/share/man/man1/gaussaudit.1" || { echo "install: man page lacks $c"; fail=1; }
done
# uninstall leaves nothing of ours
make --no-print-directory -s uninstall BUILD="$B" PREFIX="$tmp/prefix" >/dev/null
left=$(find "$tmp/prefix" -type f -o -type l | wc -l)
[ "$left" = 0 ] || { echo "install: uninstall left $left files"; fail=1; }
[ $fail = 0 ] && echo "install: shared and static builds with pkg-config alone run; man page; uninstall clean"
exit $fail
