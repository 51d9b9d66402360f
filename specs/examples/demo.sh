#!/bin/sh
# demo.sh BUILD - the main job on the bundled examples: audit every spec of
# specs/examples and write its HTML and Markdown reports into BUILD/reports/, then show a
# few of the lower-level commands (exact profiles, eps(delta), certified intervals).
set -e
B=${1:-build}
D=$(dirname "$0")
mkdir -p "$B/reports"
echo "## audits (reports in $B/reports/)"
for spec in "$D"/*.yaml; do
    name=$(basename "$spec" .yaml)
    # exit status 1 (violation) and 2 (inconclusive) are verdicts, not failures of the demo
    "$B/gaussaudit" audit "$spec" --format html -o "$B/reports/$name.html" --quiet || true
    verdict=$("$B/gaussaudit" audit "$spec" --format md -o "$B/reports/$name.md" 2>&1 | sed 's/.*: //') || true
    printf '  %-34s %s\n' "$name" "$verdict"
done
echo
echo "## delta(eps), both directions, estimates and certified: two explicit outputs"
"$B/gaussaudit" delta "$D/two_explicit_outputs.yaml" --epsilon 0,0.5,1
"$B/gaussaudit" delta "$D/two_explicit_outputs.yaml" --epsilon 1 --certified
echo
echo "## the classic Gaussian calibration for (1, 1e-5): its exact eps at delta = 1e-5"
"$B/gaussaudit" epsilon "$D/gaussian_mechanism_pair.yaml" --delta 1e-5 --certified
echo
echo "## generalized chi-square far tail: P[6 chi2_1 + 3 chi2_1 + chi2_1 > 200]"
"$B/gaussaudit" cdf --weights 6,3,1 --at 200 --certified --digits 20
