#!/bin/sh
# wheel.sh BUILD - the wheel `make wheel` builds installs into a fresh venv (no system site
# packages, no package index) and the example suite a DP library would keep
# (python/examples) passes with the package and the library from the wheel: nothing from the
# source tree, GAUSSAUDIT_LIB or LD_LIBRARY_PATH. pytest itself comes from the system, after
# the venv's own packages on sys.path, so it cannot shadow the installed package.
set -eu
B=${1:-build}
PY=${PYTHON:-/usr/bin/python3}
ver=$(sed -n 's/^#define GA_VERSION_STRING "\(.*\)"/\1/p' gaussaudit.h)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
whl=$("$PY" python/make_wheel.py "$B/libgaussaudit.so.$ver" "$tmp/dist")
case $whl in
*/gaussaudit-$ver-py3-none-linux_x86_64.whl) ;;
*) echo "wheel: unexpected file name $whl"; exit 1 ;;
esac
"$PY" -m venv "$tmp/v"
env -u GAUSSAUDIT_LIB -u PYTHONPATH -u LD_LIBRARY_PATH "$tmp/v/bin/pip" install -q \
    --no-index --disable-pip-version-check "$whl"
mkdir "$tmp/run"
cp python/examples/*.py "$tmp/run/"
cd "$tmp/run"
env -u GAUSSAUDIT_LIB -u PYTHONPATH -u LD_LIBRARY_PATH "$tmp/v/bin/python" - "$tmp/v" <<'PYEOF'
import sys
venv = sys.argv[1]
sys.path.append("/usr/lib/python3/dist-packages")
import gaussaudit
import gaussaudit._native as n
assert gaussaudit.__file__.startswith(venv + "/"), "not the wheel's package: " + gaussaudit.__file__
assert n.LIBRARY_PATH.startswith(venv + "/"), "not the wheel's library: " + n.LIBRARY_PATH
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "."]))
PYEOF
echo "wheel: $(basename "$whl") installs offline into a fresh venv; its library and the example suite pass"
