#!/bin/sh
# demo.sh BUILD - the main job on bundled examples: generalized chi-square tails, including
# a far tail where classical implementations return 0 or negative numbers.
set -e
B=${1:-build}
echo "# P[6 chi2_1 + 3 chi2_1 + chi2_1 > x], x = 1, 20, 200"
"$B/gaussaudit" cdf --weights 6,3,1 --at 1,20,200
echo
echo "# an indefinite noncentral form with a normal term (JSON)"
"$B/gaussaudit" cdf --weights 1,-10,2 --dof 1,2,3 --nc 2,3,7 --sigma 5 --offset 10 --at 25 --format json
echo
echo "# a tail near 1e-300"
"$B/gaussaudit" cdf --weights 1,0.5,0.25 --dof 2,2,2 --at 1370 --format json
