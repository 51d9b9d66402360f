#!/bin/sh
# junit.sh BUILD - `gaussaudit audit A.yaml B.yaml ... --format junit -o FILE` writes one JUnit
# document valid against tests/junit.xsd (the Ant format, xmllint): a testsuite per spec with
# the right counts, VIOLATION as a failure carrying the witness, INCONCLUSIVE as an error, names
# with XML specials escaped; a document without the required time attribute is rejected (the
# check can fail); several specs need --format junit.
set -eu
B=${1:-build}
G="$B/gaussaudit"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cat > "$tmp/odd.yaml" <<'Y'
gaussaudit: 1
name: "quotes \" and <tags> & 'apostrophes'"
mechanism:
  kind: composition
  parts:
    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 2}
    - {kind: gaussian_mechanism, sensitivity: 1, sigma: 3}
claim: {epsilon: 1, delta: 1e-3, gdp: 0.6009252125773316}
Y
set +e
"$G" audit specs/papers/classic_gaussian_eps_1.yaml specs/papers/classic_gaussian_eps_10.yaml \
    "$tmp/odd.yaml" --format junit -o "$tmp/r.xml" --quiet
st=$?
set -e
[ $st = 1 ] || { echo "junit: exit status $st, expected 1 (a violation)"; fail=1; }
xmllint --noout --schema tests/junit.xsd "$tmp/r.xml" 2>"$tmp/err" || { cat "$tmp/err"; fail=1; }
n=$(grep -c "<testsuite " "$tmp/r.xml")
[ "$n" = 3 ] || { echo "junit: $n testsuites, expected 3"; fail=1; }
grep -q 'tests="2" failures="1" errors="1"' "$tmp/r.xml" || { echo "junit: the odd spec's counts"; fail=1; }
grep -q '<failure message="[^"]*witness: S = ' "$tmp/r.xml" || { echo "junit: no witness in a failure"; fail=1; }
grep -q '<error message="[^"]*" type="INCONCLUSIVE"' "$tmp/r.xml" || { echo "junit: INCONCLUSIVE is not an error"; fail=1; }
grep -q 'quotes &quot; and &lt;tags&gt; &amp; &#39;apostrophes&#39;' "$tmp/r.xml" || { echo "junit: name not escaped"; fail=1; }
# the schema check can fail: drop a required attribute
sed 's/ time="[0-9.]*" timestamp=/ timestamp=/' "$tmp/r.xml" > "$tmp/bad.xml"
if xmllint --noout --schema tests/junit.xsd "$tmp/bad.xml" 2>/dev/null; then
    echo "junit: a testsuite without time validated"; fail=1
fi
# one spec, default name of the single-spec path
"$G" audit specs/papers/classic_gaussian_eps_1.yaml --format junit --quiet > "$tmp/one.xml"
xmllint --noout --schema tests/junit.xsd "$tmp/one.xml" 2>"$tmp/err" || { cat "$tmp/err"; fail=1; }
set +e
"$G" audit specs/papers/classic_gaussian_eps_1.yaml specs/papers/classic_gaussian_eps_10.yaml --quiet >/dev/null 2>&1
st=$?
set -e
[ $st = 64 ] || { echo "junit: several specs without --format junit: exit $st, expected 64"; fail=1; }
# an invalid spec among valid ones: the document is still written, that spec a testsuite
# with an error naming the field, the others audited; exit 65 (a data error)
printf 'gaussaudit: 1\nname: r\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 1, repeat: 1e15}\nclaim: {epsilon: 1, delta: 1e-5}\n' > "$tmp/inv.yaml"
set +e
"$G" audit specs/papers/classic_gaussian_eps_1.yaml "$tmp/inv.yaml" specs/papers/classic_gaussian_eps_10.yaml \
    --format junit -o "$tmp/inv.xml" --quiet 2>/dev/null
st=$?
set -e
[ $st = 65 ] || { echo "junit: an invalid spec among three: exit $st, expected 65"; fail=1; }
xmllint --noout --schema tests/junit.xsd "$tmp/inv.xml" 2>"$tmp/err" || { cat "$tmp/err"; fail=1; }
[ "$(grep -c "<testsuite " "$tmp/inv.xml")" = 3 ] || { echo "junit: an invalid spec dropped the document's suites"; fail=1; }
grep -q '<error message="[^"]*mechanism.repeat: must be a whole number from 1 to 1e9" type="ERROR"' "$tmp/inv.xml" ||
    { echo "junit: the invalid spec is not an error naming its field"; fail=1; }
[ $fail = 0 ] && echo "junit: several specs, one document valid against the Ant schema; failures, errors, escaping"
exit $fail
