#!/bin/sh
# man.sh GAUSSAUDIT - the man page gaussaudit(1), generated from the program's own --help texts
# (the overview and every command's), so the page and --help cannot drift apart.
set -eu
bin=$1
ver=$("$bin" version | awk '{print $NF}')
# troff-safe text: backslashes doubled, a leading dot or quote escaped
esc() { sed -e 's/\\/\\\\/g' -e "s/^\\./\\\\\\&./" -e "s/^'/\\\\\\&'/"; }
cat <<HEAD
.TH GAUSSAUDIT 1 "" "gaussaudit $ver" "User Commands"
.SH NAME
gaussaudit \- exact and certified privacy profiles of Gaussian mechanisms
.SH SYNOPSIS
.B gaussaudit
.I COMMAND
[\fIOPTIONS\fR]
.SH DESCRIPTION
.nf
HEAD
"$bin" --help | esc
echo ".fi"
for c in audit merge calibrate delta epsilon rdp cdf schema; do
    echo ".SH COMMAND: $c"
    echo ".nf"
    "$bin" "$c" --help | esc
    echo ".fi"
done
cat <<TAIL
.SH EXAMPLES
Audit a claim (Markdown on standard output; exit 1 on a certified violation):
.PP
.nf
    gaussaudit audit spec.yaml
    gaussaudit audit spec.yaml --format html -o report.html
    gaussaudit audit specs/*.yaml --format junit -o audit.xml
.fi
.PP
The least noise for a claim, and the exact profile of every neighbouring pair:
.PP
.nf
    gaussaudit calibrate spec.yaml --epsilon 1 --delta 1e-5
    gaussaudit delta spec.yaml --epsilon 0.5,1 --certified
    gaussaudit epsilon spec.yaml --delta 1e-5
    gaussaudit rdp spec.yaml --alpha 2,4
.fi
.PP
A generalized chi-square tail, certified to 20 digits:
.PP
.nf
    gaussaudit cdf --weights 6,3,1 --at 200 --certified --digits 20
.fi
.PP
Eight shards on several machines, then one report:
.PP
.nf
    gaussaudit audit spec.yaml --shard 3/8 -o part3.json
    gaussaudit merge part*.json --format html -o report.html
.fi
.SH EXIT STATUS
0 success (audit: every claim VERIFIED or NO VIOLATION FOUND); 1 audit: a VIOLATION;
2 audit: INCONCLUSIVE, or any command stopped by its time budget (\fB--timeout\fR, default
600 s; an audit's report then has what was finished); 64 usage error; 65 invalid spec or
data; 66 input not found; 69 a library it needs (FLINT/Arb, BLAS/LAPACK) is unavailable;
70 internal error (out of memory: the message names what and how much); 74 output error.
.SH FILES
The library: gaussaudit.h, libgaussaudit.so, libgaussaudit.a, pkg-config name
\fBgaussaudit\fR.
.SH ENVIRONMENT
GAUSSAUDIT_BLAS, GAUSSAUDIT_ARB: other BLAS/LAPACK and FLINT/Arb libraries (see the
description); SOURCE_DATE_EPOCH: fixes the reports' clock readings.
.SH SEE ALSO
gaussaudit-spec(5), the spec language.
.SH LICENSE
Apache License 2.0 (SPDX-License-Identifier: Apache-2.0).
TAIL
