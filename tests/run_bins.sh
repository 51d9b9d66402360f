#!/usr/bin/env bash
# run_bins.sh JOBS FAILED BIN... - run the Criterion binaries JOBS at a time, in the order
# given (the slowest first packs the two cores best), each as $TEST_WRAP BIN $TEST_ARGS.
# A binary's output is kept in a file beside it and printed whole when it ends, with its
# wall time, so that two binaries' lines never interleave; the names of those that failed
# are appended to the file FAILED. The exit status is 0 when every binary ran (passed or not).
set -u
set -f # (TEST_WRAP's valgrind options hold * patterns: words, not globs)
jobs=$1 failed=$2
shift 2
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
declare -A name=() start=()
running=0 done=0
reap() {
    local pid= rc
    wait -n -p pid
    rc=$?
    [ -n "$pid" ] || return 1
    local t=${name[$pid]}
    echo "== $t"
    cat "$t.log"
    echo "   ($(($(date +%s) - ${start[$pid]})) s)"
    [ "$rc" = 0 ] || echo "${t##*/}" >>"$failed"
    unset "name[$pid]" "start[$pid]"
    running=$((running - 1)) done=$((done + 1))
}
for t; do
    while [ "$running" -ge "$jobs" ]; do reap || exit 1; done
    # shellcheck disable=SC2086
    $TEST_WRAP "$t" $TEST_ARGS >"$t.log" 2>&1 &
    name[$!]=$t
    start[$!]=$(date +%s)
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do reap || exit 1; done
[ "$done" = "$#" ] # (every binary given ran and was reaped)
