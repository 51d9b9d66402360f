"""schema.py GAUSSAUDIT - the JSON Schema of the spec language (doc/gaussaudit-spec.schema.json)
is what `gaussaudit schema` writes from the tables, every bundled spec is valid under it, and
a sample of specs the parser refuses (an unknown kind, key, relation, claim key, a claim out
of range) is refused by the schema too. Needs python3-jsonschema and python3-yaml."""
import glob
import json
import os
import subprocess
import sys

import jsonschema
import yaml

BIN = sys.argv[1]


class Yaml12(yaml.SafeLoader):
    """YAML 1.2's numbers (1e-5 is a number, as for libyaml's reader and editors' YAML 1.2
    servers; PyYAML's YAML 1.1 would read a string)"""


Yaml12.yaml_implicit_resolvers = {k: [r for r in v if r[0] != "tag:yaml.org,2002:float"]
                                  for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Yaml12.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    __import__("re").compile(r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
                             r"|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)"
                             r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?"
                             r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


def load(text):
    return yaml.load(text, Loader=Yaml12)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
failed = []

generated = json.loads(subprocess.run([BIN, "schema"], capture_output=True, check=True).stdout)
with open(os.path.join(ROOT, "doc", "gaussaudit-spec.schema.json")) as f:
    kept = json.load(f)
if generated != kept:
    failed.append("doc/gaussaudit-spec.schema.json differs from `gaussaudit schema` "
                  "(regenerate: build/gaussaudit schema | python3 -m json.tool --indent 2)")
jsonschema.Draft202012Validator.check_schema(generated)
v = jsonschema.Draft202012Validator(generated)

specs = sorted(glob.glob(os.path.join(ROOT, "specs", "**", "*.yaml"), recursive=True))
for p in specs:
    with open(p) as f:
        doc = load(f.read())
    errs = sorted(v.iter_errors(doc), key=str)
    if errs:
        failed.append("%s: %s at %s" % (os.path.relpath(p, ROOT), errs[0].message,
                                        "/".join(map(str, errs[0].absolute_path))))

BASE = "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 2}\n"
bad = [
    "gaussaudit: 1\nmechanism: {kind: sketc, columns: 2}\n",
    "gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigm: 2}\n",
    BASE + "claim: {epsilon: 1, delt: 1.0e-5}\n",
    BASE + "claim: {epsilon: -1, delta: 1.0e-5}\n",
    BASE + "claim: {epsilon: 1, delta: 1.5}\n",
    BASE + "claim: {zcdp: 0}\n",
    BASE + "neighbours: remove_two\n",
    BASE + "nieghbours: remove_one\n",
    "gaussaudit: 2\nmechanism: {kind: gaussian_mechanism, sensitivity: 1, sigma: 2}\n",
    "gaussaudit: 1\nmechanism: {kind: composition, parts: [{kind: sketc}]}\n",
    "gaussaudit: 1\nmechanism: {kind: gaussian_pair}\n",
    BASE + "universe: {row_norm: 1}\n",
    BASE + "claim: {epsilon: 1, delta: 1.0e-5, direction: xz}\n",
]
tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ga_schema_%d.yaml" % os.getpid())
for text in bad:
    if v.is_valid(load(text)):
        failed.append("the schema accepts: %r" % text)
    with open(tmp, "w") as f:
        f.write(text + "claim: {epsilon: 1, delta: 1.0e-5}\n" if "claim" not in text else text)
    r = subprocess.run([BIN, "audit", tmp, "--quiet"], capture_output=True, text=True)
    if r.returncode != 65:
        failed.append("the parser accepts (exit %d): %r" % (r.returncode, text))
os.unlink(tmp)
for msg in failed:
    print("schema:", msg)
if failed:
    sys.exit(1)
print("schema: the schema is the tables'; %d bundled specs valid; %d invalid specs refused by "
      "both" % (len(specs), len(bad)))
