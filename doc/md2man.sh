#!/bin/sh
# md2man.sh NAME SECTION TITLE VERSION < page.md - a man page from one of doc/'s Markdown pages
# (gaussaudit-spec(5) from doc/spec.md), so the installed page and the document cannot drift
# apart. It knows the Markdown those pages use: headings (# is the title, ## a section, ###
# a subsection), fenced code blocks, "- " list items, tables (printed as their rows), and
# inline `code`, **bold** and [text](link) (the text kept). Text is made troff-safe: backslashes
# doubled, a leading dot or quote escaped, hyphens left as they are.
set -eu
name=$1 sec=$2 title=$3 ver=$4
printf '.TH %s %s "" "gaussaudit %s" "File Formats"\n' "$(echo "$name" | tr a-z A-Z)" "$sec" "$ver"
printf '.SH NAME\n%s \\- %s\n.SH DESCRIPTION\n' "$name" "$title"
awk '
function esc(s) {
    gsub(/\\/, "\\\\", s)
    return s
}
function inline(s) {
    s = esc(s)
    while (match(s, /\[[^]]*\]\([^)]*\)/)) {           # [text](link): the text
        t = substr(s, RSTART, RLENGTH); sub(/\]\(.*$/, "", t); sub(/^\[/, "", t)
        s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH)
    }
    while (match(s, /\*\*[^*]+\*\*/))                   # **bold**
        s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) "\\fR" substr(s, RSTART + RLENGTH)
    while (match(s, /`[^`]+`/))                         # `code`
        s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) "\\fR" substr(s, RSTART + RLENGTH)
    if (s ~ /^[.\047]/) s = "\\&" s
    return s
}
NR == 1 && /^# / { next }                               # the title: in NAME already
/^```/ {
    if (code) { print ".fi"; print ".in"; code = 0 } else { print ".PP"; print ".in +4"; print ".nf"; code = 1 }
    next
}
code { s = esc($0); if (s ~ /^[.\047]/) s = "\\&" s; print s; next }
/^## / { sub(/^## /, ""); print ".SH " toupper(inline($0)); next }
/^### / { sub(/^### /, ""); print ".SS " inline($0); next }
/^\|[-| :]+\|$/ { next }                                 # a table rule
/^\|/ { s = $0; gsub(/^\| */, "", s); gsub(/ *\|$/, "", s); gsub(/ *\| */, " \\(em ", s); print ".IP"; print inline(s); next }
/^- / { sub(/^- /, ""); print ".IP \\(bu 2"; print inline($0); next }
/^[0-9]+\. / { print ".IP"; print inline($0); next }
/^$/ { print ".PP"; next }
{ print inline($0) }
'
printf '.SH SEE ALSO\ngaussaudit(1)\n.SH LICENSE\nApache License 2.0 (SPDX-License-Identifier: Apache-2.0).\n'
