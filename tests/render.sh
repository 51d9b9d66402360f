#!/bin/sh
# render.sh BUILD [shots DIR] - every gallery report (and the INCONCLUSIVE example) rendered as
# HTML in headless Chromium: the report's own self-check (a script in the page) must find no
# plot text outside its plot, and the plots must be there; a screenshot of one report must be
# a PNG. With "shots DIR", screenshots of one VIOLATION, one VERIFIED and one INCONCLUSIVE
# report are written to DIR (make screenshots). With RENDER_HTML=DIR in the environment, the
# reports found there as SPEC_NAME.html (make check: the gallery test's, written by its own
# audits with --report) are rendered instead of auditing those specs again.
#
# One Chromium process renders every report: a page holds each report in a frame of the
# default window's size (800 x 600, where a report alone would be laid out) and, once all have
# loaded, writes what each frame's self-check found into its own DOM, which --dump-dom prints.
# A copy of one report with a plot label moved outside its plot rides along: the check must
# flag it, or the check itself is broken.
set -eu
B=${1:-build}
G="$B/gaussaudit"
C=$(command -v chromium || true)
[ -n "$C" ] || { echo "render: chromium is not installed (make test installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome() { timeout 300 "$C" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --allow-file-access-from-files --user-data-dir="$tmp/profile" "$@" 2>/dev/null; }
fail=0
specs="$(ls specs/papers/*.yaml) specs/examples/inconclusive_at_the_exact_value.yaml"
# the audits, as many at once as there are cores (each report is written atomically), or the
# reports of RENDER_HTML
printf '%s\n' $specs | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh -c \
    'n=$(basename "$1" .yaml)
     if [ -n "$4" ] && [ -s "$4/$n.html" ]; then cp "$4/$n.html" "$3/$n.html"
     else "$2" audit "$1" --format html -o "$3/$n.html" --quiet || true; fi' \
    sh {} "$G" "$tmp" "${RENDER_HTML:-}"
# the canary: the first plot label of one report moved far to the left of its plot
sed '0,/<text x="/s//<text x="-4000/' "$tmp/classic_gaussian_eps_10.html" > "$tmp/canary.html"
grep -q 'x="-4000' "$tmp/canary.html" || { echo "render: the canary has no plot text"; fail=1; }
{
    echo '<!DOCTYPE html><html><body><pre id="out">the frames did not load</pre>'
    for spec in $specs canary; do
        name=$(basename "$spec" .yaml)
        echo "<iframe src=\"$name.html\" data-name=\"$name\" style=\"width:800px;height:600px\"></iframe>"
    done
    cat <<'HTML'
<script>
window.addEventListener('load', function () {
  var lines = [];
  document.querySelectorAll('iframe').forEach(function (f) {
    var d = f.contentDocument, b = d && d.body, at = function (k) { return b.getAttribute(k); };
    if (!b) { lines.push(f.dataset.name + ' unreadable'); return; }
    lines.push([f.dataset.name, at('data-text-overflow'), at('data-text-overflow-first'),
                d.querySelector('svg#profile-plot, svg#renyi-plot') ? 1 : 0,
                d.querySelector('svg#tradeoff-plot') ? 1 : 0].join('\t'));
  });
  document.getElementById('out').textContent = lines.join('\n');
});
</script></body></html>
HTML
} > "$tmp/all.html"
chrome --dump-dom "file://$tmp/all.html" | sed -n '/<pre id="out">/,/<\/pre>/p' |
    sed 's/<[^>]*>//g' > "$tmp/found.tsv"
n=0
for spec in $specs canary; do
    name=$(basename "$spec" .yaml)
    line=$(grep "^$name	" "$tmp/found.tsv" || true)
    [ -n "$line" ] || { echo "render: $name: not rendered"; fail=1; continue; }
    over=$(echo "$line" | cut -f2) first=$(echo "$line" | cut -f3)
    plot=$(echo "$line" | cut -f4) tradeoff=$(echo "$line" | cut -f5)
    if [ "$name" = canary ]; then
        [ "$over" != 0 ] && [ "$over" != null ] ||
            { echo "render: a plot label outside its plot went unnoticed ($over)"; fail=1; }
        continue
    fi
    [ "$over" = 0 ] || { echo "render: $name: plot text outside its plot ($over, first: $first)"; fail=1; }
    [ "$plot" = 1 ] || { echo "render: $name: no plot"; fail=1; }
    if grep -q '"gdp"\|gdp:' "$spec" && [ "$tradeoff" != 1 ]; then
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
[ $fail = 0 ] && echo "render: $n reports rendered in Chromium, plots present, no text outside its plot (a misplaced label is caught)"
exit $fail
