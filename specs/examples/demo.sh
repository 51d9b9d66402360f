#!/bin/sh
# demo.sh BUILD - the main job on the bundled examples: exact privacy profiles of explicit
# Gaussian pairs (both directions, estimates and certified intervals), eps(delta), Renyi
# divergences, and generalized chi-square tails far out.
set -e
B=${1:-build}
D=$(dirname "$0")
echo "## delta(eps), both directions: two explicit neighbouring outputs"
"$B/gaussaudit" delta "$D/two_explicit_outputs.yaml" --epsilon 0,0.5,1,2
echo
echo "## the same, certified (exact decimal inputs, Arb)"
"$B/gaussaudit" delta "$D/two_explicit_outputs.yaml" --epsilon 1 --certified
echo
echo "## the classic Gaussian calibration for (1, 1e-5): its exact eps at delta = 1e-5"
"$B/gaussaudit" epsilon "$D/gaussian_mechanism_pair.yaml" --delta 1e-5 --certified
echo
echo "## Renyi divergences"
"$B/gaussaudit" rdp "$D/two_explicit_outputs.yaml" --alpha 2,3
echo
echo "## generalized chi-square: P[6 chi2_1 + 3 chi2_1 + chi2_1 > 200], estimate and certified"
"$B/gaussaudit" cdf --weights 6,3,1 --at 200
"$B/gaussaudit" cdf --weights 6,3,1 --at 200 --certified --digits 20
