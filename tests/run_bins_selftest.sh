#!/bin/sh
# run_bins_selftest.sh - tests/run_bins.sh, which runs the test binaries for make check, must
# run every binary it is given (two at a time), print each one's output whole under its name,
# and name exactly the failed ones (a non-zero exit, or a binary that cannot be run) in its
# FAILED file; its own status is 0 then. A runner that ran nothing would pass every suite.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
printf '#!/bin/sh\necho "passing output"\nsleep 0.2\nexit 0\n' >"$tmp/pass_a"
printf '#!/bin/sh\necho "failing output"\nexit 3\n' >"$tmp/fail_b"
printf '#!/bin/sh\necho "args: $*"\nexit 0\n' >"$tmp/pass_c"
chmod +x "$tmp/pass_a" "$tmp/fail_b" "$tmp/pass_c"
TEST_WRAP= TEST_ARGS="--x=1 *" bash "$here/run_bins.sh" 2 "$tmp/failed" "$tmp/pass_a" \
    "$tmp/fail_b" "$tmp/missing_d" "$tmp/pass_c" >"$tmp/out" 2>&1
st=$?
[ "$st" = 0 ] || { echo "run_bins_selftest: the runner's status is $st, not 0"; fail=1; }
got=$(sort "$tmp/failed" 2>/dev/null | tr '\n' ' ')
[ "$got" = "fail_b missing_d " ] ||
    { echo "run_bins_selftest: failed binaries named '$got', expected 'fail_b missing_d '"; fail=1; }
for t in pass_a fail_b missing_d pass_c; do
    [ "$(grep -c "^== $tmp/$t\$" "$tmp/out")" = 1 ] ||
        { echo "run_bins_selftest: $t not reported once"; fail=1; }
done
grep -q "^passing output" "$tmp/out" && grep -q "^failing output" "$tmp/out" ||
    { echo "run_bins_selftest: a binary's output is missing"; fail=1; }
grep -q '^args: --x=1 \*$' "$tmp/out" ||
    { echo "run_bins_selftest: TEST_ARGS not passed as words (no globbing)"; fail=1; }
# each binary's output whole: its name, its lines, its time, before the next name
awk '/^== /{ if (open) bad = 1; open = 1 } /^   \([0-9]+ s\)$/{ open = 0 } END { exit bad || open }' \
    "$tmp/out" || { echo "run_bins_selftest: two binaries' output interleaved"; fail=1; }
[ $fail = 0 ] && echo "run_bins_selftest: every binary run and reported, the failed ones named"
exit $fail
