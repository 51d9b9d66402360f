"""make_wheel.py LIBRARY OUTDIR - the platform wheel of the gaussaudit package, carrying the
library: gaussaudit-VERSION-py3-none-linux_x86_64.whl with gaussaudit/*.py and LIBRARY as
gaussaudit/libgaussaudit.so.0, the first place the package looks for it.

A wheel is a zip archive with its metadata in gaussaudit-VERSION.dist-info (PEP 427, PEP 491;
core metadata 2.1): METADATA, WHEEL and RECORD (every file with its SHA-256, urlsafe base64
without padding, and size). It is written here with the standard library alone, so `make
wheel` works offline on a machine with nothing but python3; the archive's members are sorted
and dated by SOURCE_DATE_EPOCH (default 2026-01-01) so that two builds are the same bytes.
The package itself needs no compiler: it binds the library with ctypes; what the library
links stays on the system (see the Requires-External fields)."""
import base64
import hashlib
import os
import platform
import re
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    text = open(os.path.join(HERE, "gaussaudit", "_native.py")).read()
    return re.search(r'^PACKAGE_VERSION = "([^"]+)"', text, re.M).group(1)


def metadata(ver):
    readme = open(os.path.join(HERE, "README.md")).read()
    head = [
        "Metadata-Version: 2.1",
        "Name: gaussaudit",
        "Version: " + ver,
        "Summary: Exact and certified privacy profiles of Gaussian mechanisms "
        "(a ctypes binding over libgaussaudit, which the wheel carries)",
        "License: Apache-2.0",
        "Classifier: License :: OSI Approved :: Apache Software License",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: Python :: 3",
        "Requires-Python: >=3.8",
        "Provides-Extra: numpy",
        "Requires-Dist: numpy; extra == \"numpy\"",
        # the libraries libgaussaudit.so links or opens (Debian 12 package names)
        "Requires-External: libgsl27",
        "Requires-External: libyaml-0-2",
        "Requires-External: libopenblas0",
        "Requires-External: libflint-arb2",
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(head) + "\n\n" + readme


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_wheel.py LIBRARY OUTDIR")
    lib, outdir = sys.argv[1], sys.argv[2]
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        sys.exit("make_wheel.py: the wheel's tag is linux_x86_64; this is %s %s"
                 % (platform.system(), platform.machine()))
    ver = version()
    tag = "py3-none-linux_x86_64"
    dist = "gaussaudit-%s.dist-info" % ver
    files = []
    pkg = os.path.join(HERE, "gaussaudit")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            files.append(("gaussaudit/" + name, open(os.path.join(pkg, name), "rb").read(), 0o644))
    files.append(("gaussaudit/libgaussaudit.so.0", open(lib, "rb").read(), 0o755))
    files.append((dist + "/METADATA", metadata(ver).encode(), 0o644))
    files.append((dist + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: gaussaudit make_wheel.py\n"
                                    "Root-Is-Purelib: false\nTag: %s\n" % tag).encode(), 0o644))
    files.append((dist + "/LICENSE", open(os.path.join(HERE, os.pardir, "LICENSE"), "rb").read(),
                  0o644))
    record = "\n".join(record_line(n, d) for n, d, _ in files) + "\n%s/RECORD,,\n" % dist
    files.append((dist + "/RECORD", record.encode(), 0o644))
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "gaussaudit-%s-%s.whl" % (ver, tag))
    stamp = time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", "1767225600")))[:6]
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, out)
    print(out)


if __name__ == "__main__":
    main()
