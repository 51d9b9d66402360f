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
for c in audit merge calibrate delta epsilon rdp cdf; do
    echo ".SH COMMAND: $c"
    echo ".nf"
    "$bin" "$c" --help | esc
    echo ".fi"
done
cat <<TAIL
.SH FILES
The spec language: specs/README.md of the source tree; the library: gaussaudit.h,
libgaussaudit.so, libgaussaudit.a, pkg-config name \fBgaussaudit\fR.
.SH SEE ALSO
The README of the source tree (use from C and from Python).
.SH LICENSE
Apache License 2.0 (SPDX-License-Identifier: Apache-2.0); the LICENSE file of the source tree.
TAIL
