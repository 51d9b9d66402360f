#!/bin/sh
# render.sh BUILD [shots DIR] - every gallery report (and the INCONCLUSIVE example) rendered as
# HTML in headless Chromium: the report's own self-check (a script in the page) must find no
# plot text outside its plot, and the plots must be there; a screenshot of one report must be
# a PNG. With "shots DIR", screenshots of one
# VIOLATION, one VERIFIED and one INCONCLUSIVE report are written to DIR (make screenshots).
set -eu
B=${1:-build}
G="$B/gaussaudit"
C=$(command -v chromium || true)
[ -n "$C" ] || { echo "render: chromium is not installed (make test installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome() { timeout 120 "$C" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" "$@" 2>/dev/null; }
fail=0
n=0
for spec in specs/papers/*.yaml specs/examples/inconclusive_at_the_exact_value.yaml; do
    name=$(basename "$spec" .yaml)
    "$G" audit "$spec" --format html -o "$tmp/$name.html" --quiet || true
    chrome --dump-dom "file://$tmp/$name.html" > "$tmp/$name.dom"
    body=$(grep -o '<body[^>]*>' "$tmp/$name.dom" || true)
    case "$body" in
    *'data-text-overflow="0"'*) ;;
    *) echo "render: $name: plot text outside its plot: $body"; fail=1 ;;
    esac
    grep -q '<svg id="profile-plot"\|<svg id="renyi-plot"' "$tmp/$name.dom" ||
        { echo "render: $name: no plot"; fail=1; }
    if grep -q '"gdp"\|gdp:' "$spec" && ! grep -q '<svg id="tradeoff-plot"' "$tmp/$name.dom"; then
        echo "render: $name: a GDP claim without the trade-off plot"; fail=1
    fi
    n=$((n + 1))
done
# a screenshot of one report must come out as a PNG (the rendering itself works)
chrome --screenshot="$tmp/shot.png" --window-size=1100,1500 --hide-scrollbars \
    "file://$tmp/classic_gaussian_eps_10.html"
[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "render: the screenshot is not a PNG"; fail=1; }
if [ "${2:-}" = shots ]; then
    out=$3
    mkdir -p "$out"
    for pair in violation:classic_gaussian_eps_10 verified:composition_gdp_heterogeneous \
                inconclusive:inconclusive_at_the_exact_value; do
        chrome --screenshot="$out/screenshot-${pair%%:*}.png" --window-size=1100,1500 \
            --hide-scrollbars "file://$tmp/${pair#*:}.html"
        [ -s "$out/screenshot-${pair%%:*}.png" ] || { echo "render: no screenshot ${pair%%:*}"; fail=1; }
    done
fi
[ $fail = 0 ] && echo "render: $n reports rendered in Chromium, plots present, no text outside its plot"
exit $fail
