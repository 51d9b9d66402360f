"""pytest for the Python package, against the freshly built library (make test sets
GAUSSAUDIT_LIB and GA_BIN). References: the analytic Gaussian mechanism (Balle & Wang 2018,
Thm 8) by math.erfc, its Renyi divergence alpha mu^2 / 2, and the CLI's own JSON output for the
same inputs (the values must be equal to the digit)."""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

import gaussaudit
from gaussaudit import GaussauditError
from gaussaudit.testing import assert_dp

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
GA_BIN = os.environ.get("GA_BIN", os.path.join(ROOT, "build", "gaussaudit"))
TOL_ANALYTIC = 1e-12   # the analytic Gaussian value, relative

try:
    import numpy as np
except ImportError:  # the package works without NumPy; the dtype tests need it
    np = None


def analytic(mu, eps):
    """delta of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    phi = lambda z: 0.5 * math.erfc(-z / math.sqrt(2))
    return phi(-eps / mu + mu / 2) - math.exp(eps) * phi(-eps / mu - mu / 2)


def cli(*args):
    out = subprocess.run([GA_BIN, *args], cwd=ROOT, capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_delta_is_the_analytic_gaussian_both_directions():
    d = gaussaudit.delta([0], [[1]], [1], [[1]], 1.0)
    ref = 0.12693673750664394
    assert abs(d.xy.value - ref) <= TOL_ANALYTIC * ref, d
    assert abs(d.yx.value - ref) <= TOL_ANALYTIC * ref, d
    assert d.xy.error < 1e-13
    c = gaussaudit.delta([0], [[1]], [1], [[1]], 1.0, certified=True)
    assert c.xy.lo <= ref <= c.xy.hi and c.yx.lo <= ref <= c.yx.hi, c


@pytest.mark.parametrize("eps,sigma,columns", [(0.0, 1.0, 1), (0.5, 2.0, 3), (2.0, 0.7, 2)])
def test_delta_epsilon_renyi_against_closed_forms(eps, sigma, columns):
    mu = math.sqrt(columns) / sigma  # columns iid copies of a unit mean shift
    d = gaussaudit.delta([0, 0], [[sigma ** 2, 0], [0, sigma ** 2]], [1, 0],
                         [[sigma ** 2, 0], [0, sigma ** 2]], eps, columns=columns)
    ref = analytic(mu, eps)
    assert abs(d.xy.value - ref) <= TOL_ANALYTIC * ref + d.xy.error, (d, ref)
    e = gaussaudit.epsilon([0], [[sigma ** 2]], [1], [[sigma ** 2]], delta=1e-5, columns=columns)
    assert abs(analytic(mu, e.value) - 1e-5) <= 1e-9 * 1e-5, e
    r = gaussaudit.renyi([0], [[sigma ** 2]], [1], [[sigma ** 2]], alpha=3, columns=columns)
    assert abs(r.xy.value - 1.5 * mu ** 2) <= 1e-13 * mu ** 2 + r.xy.error, r
    rc = gaussaudit.renyi([0], [[sigma ** 2]], [1], [[sigma ** 2]], alpha="3", columns=columns,
                          certified=True)
    assert rc.xy.lo <= 1.5 * mu ** 2 * (1 + 1e-15) and 1.5 * mu ** 2 * (1 - 1e-15) <= rc.xy.hi


def test_values_equal_the_cli(tmp_path):
    mx, sx, my, sy = [0.0, 0.0], [[1, 0.2], [0.2, 0.8]], [0.5, -0.3], [[1.3, -0.1], [-0.1, 0.6]]
    spec = {"gaussaudit": 1, "name": "p", "mechanism": {"kind": "gaussian_pair"},
            "pairs": [{"name": "a", "x": {"mean": mx, "cov": sx}, "y": {"mean": my, "cov": sy}}]}
    path = write(tmp_path, "p.yaml", json.dumps(spec))
    st, out, err = cli("delta", path, "--epsilon", "0.5", "--format", "json")
    assert st == 0, err
    row = json.loads(out)["pairs"][0]
    d = gaussaudit.delta(mx, sx, my, sy, 0.5)
    assert d.xy.value == row["xy"]["value"] and d.yx.value == row["yx"]["value"], (d, row)
    st, out, err = cli("calibrate", "specs/examples/classic_gaussian_eps1.yaml", "--epsilon", "1",
                       "--delta", "1e-5", "--format", "json")
    c = gaussaudit.calibrate(os.path.join(ROOT, "specs/examples/classic_gaussian_eps1.yaml"), 1, 1e-5)
    assert st == 0 and c.value == json.loads(out)["value"] and c.certified, (c, out)


@pytest.mark.skipif(np is None, reason="NumPy not installed")
@pytest.mark.parametrize("make", [
    lambda a: np.asarray(a, dtype=np.float64),
    lambda a: np.asarray(a, dtype=np.float32),
    lambda a: np.asarray(np.asarray(a) * 4, dtype=np.int64) / 4,
    lambda a: np.asfortranarray(np.asarray(a, dtype=np.float64)),
    lambda a: np.asarray(a, dtype=np.float64).T.copy().T,        # a transposed view
    lambda a: np.asarray(a, dtype=np.float64)[::1, ::1],
])
def test_arrays_of_several_dtypes_and_layouts(make):
    s = [[2.0, 0.5], [0.5, 1.0]]  # exact in float32 too
    ref = gaussaudit.delta([0, 0], s, [1, 0.5], s, 0.7)
    d = gaussaudit.delta(np.array([0, 0]), make(s), np.array([1, 0.5]), make(s), 0.7)
    assert d.xy.value == ref.xy.value and d.yx.value == ref.yx.value, (d, ref)


def test_bad_matrices_raise_with_the_librarys_message():
    with pytest.raises(GaussauditError) as e:
        gaussaudit.delta([0, 0], [[1, 0.5], [0, 1]], [1, 0], [[1, 0], [0, 1]], 1.0)
    assert e.value.status == 1 and "cov_x" in e.value.message and "symmetric" in e.value.message
    with pytest.raises(GaussauditError) as e:
        gaussaudit.delta([0, 0], [[1, 0], [0, -1]], [1, 0], [[1, 0], [0, 1]], 1.0)
    assert "positive semi-definite" in e.value.message, e.value.message
    with pytest.raises(GaussauditError, match="2 x 2"):
        gaussaudit.delta([0, 0], [[1, 0, 0]], [1, 0], [[1, 0], [0, 1]], 1.0)
    with pytest.raises(GaussauditError, match="finite|nan"):
        gaussaudit.delta([0], [[float("nan")]], [1], [[1]], 1.0)


def test_audit_from_path_text_and_dict(tmp_path):
    path = os.path.join(ROOT, "specs/papers/classic_gaussian_eps_10.yaml")
    r = gaussaudit.audit(path)
    st, _, _ = cli("audit", path, "--quiet", "--format", "json")
    assert r.verdict == "VIOLATION" and r.exit_status == st == 1
    c = r.claims[0]
    assert c.type == "dp" and c.certified and c.interval.lo > 1e-5 and c.witness["event"]
    assert json.loads(r.to_json())["verdict"] == "VIOLATION"
    assert "**Verdict: VIOLATION**" in r.to_markdown()
    assert "<html" in r.to_html().lower()
    assert "<testsuites>" in r.to_junit()
    text = open(path).read()
    assert gaussaudit.audit(text).verdict == "VIOLATION"
    spec = {"gaussaudit": 1, "name": "dict", "mechanism": {"kind": "gaussian_mechanism",
            "sensitivity": 1, "sigma": 2}, "claim": {"epsilon": 1, "delta": 0.1}}
    r = gaussaudit.audit(spec)
    assert r.verdict == "VERIFIED" and r.claims[0].exact.value < 0.1


def test_jobs_give_the_same_report_as_the_cli(monkeypatch):
    # the report does not depend on the number of threads, and equals the CLI's
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    path = os.path.join(ROOT, "specs/examples/gaussian_process_regression.yaml")
    one = gaussaudit.audit(path, jobs=1).to_json()
    two = gaussaudit.audit(path, jobs=2).to_json()
    _, out, _ = cli("audit", path, "--quiet", "--format", "json", "--jobs", "2")
    assert one == two == out and json.loads(one)["verdict"] == "VIOLATION"
    with pytest.raises(GaussauditError):
        gaussaudit.audit(path, jobs=-1)


def test_shards_merged_equal_one_audit(monkeypatch, tmp_path):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    path = os.path.join(ROOT, "specs/examples/bayesian_logistic_regression.yaml")
    parts = []
    for i in (1, 2, 3):
        p = tmp_path / ("part%d.json" % i)
        p.write_text(gaussaudit.audit_shard(path, i, 3, jobs=1))
        parts.append(str(p))
    merged = gaussaudit.merge(parts)
    assert merged.to_json() == gaussaudit.audit(path).to_json()
    assert merged.verdict == "VIOLATION"
    with pytest.raises(GaussauditError):
        gaussaudit.merge(parts[:2])
    with pytest.raises(GaussauditError) as e:  # (it once freed an uninitialised record book)
        gaussaudit.merge([])
    assert "no partial results" in e.value.message
    with pytest.raises(GaussauditError):
        gaussaudit.audit_shard(path, 4, 3)


def test_errors_map_to_exceptions(tmp_path):
    with pytest.raises(GaussauditError) as e:
        gaussaudit.audit(os.path.join(str(tmp_path), "missing.yaml\n: x"))
    with pytest.raises(GaussauditError) as e:
        gaussaudit.audit("gaussaudit: 1\nname: b\nmechanism: {kind: gaussian_mechanizm}\n")
    assert e.value.status == 1 and ":3:" in e.value.message and "did you mean" in e.value.message
    with pytest.raises(GaussauditError) as e:
        gaussaudit.calibrate({"gaussaudit": 1, "name": "c", "mechanism": {"kind": "gaussian_mechanism",
                              "sensitivity": 1, "sigma": 1}}, 1, 2)
    assert e.value.status == 1 and "delta" in e.value.message


def test_assert_dp_for_pytest_suites():
    sigma = 3.730631634816191  # the analytic calibration for (1, 1e-5), rounded up
    pair = ([0.0], [[sigma ** 2]], [1.0], [[sigma ** 2]])
    assert_dp(pair, 1.0, 1e-5)                                    # NO VIOLATION FOUND
    with pytest.raises(AssertionError, match="VIOLATION"):
        assert_dp(pair, 1.0, 0.9e-5)
    spec = os.path.join(ROOT, "specs/papers/classic_gaussian_eps_1.yaml")
    assert assert_dp(spec, 1.0, 1e-5).verdict == "VERIFIED"         # its own claim replaced
    with pytest.raises(AssertionError, match="VIOLATION"):
        assert_dp(spec, 0.5, 1e-5)
    exact = 0.12693673750664395  # inside the certified interval [..394, ..397] of the true delta
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        assert_dp(([0], [[1]], [1], [[1]]), 1.0, exact)
    assert_dp(([0], [[1]], [1], [[1]]), 1.0, exact, allow_inconclusive=True)


def test_pip_install_offline_and_import(tmp_path):
    """pip install --no-build-isolation (offline) into a target directory, then import it
    from there with the library found through GAUSSAUDIT_LIB."""
    src = tmp_path / "src"
    shutil.copytree(os.path.join(ROOT, "python"), src,
                    ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                          "--no-deps", "--no-index", "--quiet", "--target", str(target), str(src)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    env = dict(os.environ, PYTHONPATH=str(target))
    code = "import gaussaudit; d = gaussaudit.delta([0],[[1]],[1],[[1]],1.0); print(repr(d.xy.value))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert abs(float(out.stdout) - 0.12693673750664394) <= 1e-12, out.stdout
    assert (target / "gaussaudit" / "py.typed").exists()            # typed for mypy and editors
    assert (target / "gaussaudit" / "accounting.py").exists()


def test_readme_python_example_runs():
    """The README's "Use from Python" example, as written there, runs (from the source root)."""
    text = open(os.path.join(ROOT, "README.md")).read()
    part = text[text.index("## Use from Python"):]
    code = part[part.index("```python\n") + 10:]
    code = code[:code.index("```")]
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)


# ------------------------------------------------------------------ subsampled Gaussian

def _gdp(mu, eps):
    # the mu-GDP profile (double precision; moderate tails only)
    q = lambda x: 0.5 * math.erfc(x / math.sqrt(2))
    return q(eps / mu - mu / 2) - math.exp(eps) * q(eps / mu + mu / 2)


def test_subsampled_rate_one_is_the_gaussian_mechanism():
    for steps in (1, 4, 25):
        s = gaussaudit.subsampled(rate=1, sigma=2.0, steps=steps)
        d = s.delta(1.0)
        ref = _gdp(math.sqrt(steps) / 2.0, 1.0)
        assert abs(d.xy.value - ref) <= 1e-12 * ref + d.xy.error
        assert abs(d.yx.value - ref) <= 1e-12 * ref + d.yx.error


def test_subsampled_accountant_and_exact_epsilon():
    s = gaussaudit.subsampled(rate=256 / 60000, sigma=1.12, steps=14063)
    eps, order = s.rdp_accountant(delta=1e-5)
    # the binomial expansion summed here, converted as today's accountants do (Balle et al.
    # 2020, Theorem 21; TensorFlow Privacy's 2.92 for this example came from Mironov's)
    q, m2 = 256 / 60000, 1 / 1.12 ** 2

    def rdp(a):
        t = [math.lgamma(a + 1) - math.lgamma(k + 1) - math.lgamma(a - k + 1) + k * math.log(q)
             + (a - k) * math.log1p(-q) + 0.5 * k * (k - 1) * m2 for k in range(a + 1)]
        top = max(t)
        return 14063 * (top + math.log(sum(math.exp(x - top) for x in t))) / (a - 1)

    ref = min(rdp(a) + math.log((a - 1) / a) - (math.log(1e-5) + math.log(a)) / (a - 1)
              for a in range(2, 257))
    assert abs(eps - ref) <= 1e-9 * ref and 2.52 <= eps <= 2.523 and order > 1
    exact = s.epsilon(delta=1e-5)
    assert 2.2 < exact.value < eps
    pld = s.pld_accountant(delta=1e-5)  # connect the dots: just above the exact value
    assert exact.value - exact.error <= pld <= exact.value * 1.001
    # one step certified, containing the estimate
    one = gaussaudit.subsampled(rate="0.01", sigma="0.8")
    iv = one.delta("1", certified=True)
    est = one.delta(1.0)
    assert iv.xy.lo <= est.xy.value + est.xy.error and est.xy.value - est.xy.error <= iv.xy.hi


def test_subsampled_pld_brackets_the_exact_delta():
    # one step's exported laws: the pessimistic delta at or above the exact one in both
    # directions, the optimistic at or below; totals 1 (with the infinity mass) and <= 1
    s = gaussaudit.subsampled(rate="0.01", sigma="1")
    pess, opt = s.pld(grid=0.01), s.pld(grid=0.01, pessimistic=False)
    assert pess["pessimistic_estimate"] and not opt["pessimistic_estimate"]

    def delta(law, h, eps):
        k0 = law["lowest_loss_index"]
        return law["infinity_mass"] + sum(
            m * -math.expm1(eps - (k0 + i) * h)
            for i, m in enumerate(law["probability_mass_function"]) if (k0 + i) * h > eps)

    for eps in (0.02, 0.1, 0.5):
        d = s.delta(eps)
        for key, exact in (("remove", d.xy), ("add", d.yx)):
            hi, lo = delta(pess[key], 0.01, eps), delta(opt[key], 0.01, eps)
            assert lo <= exact.value + exact.error and exact.value - exact.error <= hi, \
                (key, eps, lo, exact, hi)
    for key in ("remove", "add"):
        assert math.fsum(pess[key]["probability_mass_function"]) + pess[key]["infinity_mass"] \
            >= 1 - 1e-13
        assert math.fsum(opt[key]["probability_mass_function"]) <= 1 + 1e-13
        assert opt[key]["infinity_mass"] == 0


def test_subsampled_errors():
    with pytest.raises(gaussaudit.GaussauditError) as e:
        gaussaudit.subsampled(rate=1.5, sigma=1.0)
    assert "rate: must be a finite number in (0, 1]" in e.value.message


@pytest.mark.parametrize("call, name", [
    (lambda: gaussaudit.subsampled(0.01, 1.0, steps=float("nan")), "steps"),
    (lambda: gaussaudit.subsampled(0.01, 1.0, steps=0), "steps"),
    (lambda: gaussaudit.subsampled(0.01, 1.0, steps=2.5), "steps"),
    (lambda: gaussaudit.subsampled(0.01, 1.0, steps=2 ** 70), "steps"),
    (lambda: gaussaudit.subsampled(float("nan"), 1.0), "rate"),
    (lambda: gaussaudit.subsampled(0.01, 1.0).pld_accountant(delta=1e-5, grid=0), "grid"),
    (lambda: gaussaudit.delta([1], [[1]], [0], [[1]], eps=-1), "eps"),
    (lambda: gaussaudit.delta([1], [[1]], [0], [[1]], eps=0.5, columns=2 ** 70), "columns"),
    (lambda: gaussaudit.epsilon([1], [[1]], [0], [[1]], delta=float("nan")), "delta"),
    (lambda: gaussaudit.renyi([1], [[1]], [0], [[1]], alpha=1), "alpha"),
    (lambda: gaussaudit.audit("gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, "
                              "sensitivity: 1, sigma: 1}\nclaim: {epsilon: 1, delta: 1e-5}\n",
                              timeout=-1), "timeout"),
    (lambda: gaussaudit.audit("gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, "
                              "sensitivity: 1, sigma: 1}\nclaim: {epsilon: 1, delta: 1e-5}\n",
                              timeout=float("nan")), "timeout"),
    (lambda: gaussaudit.audit("gaussaudit: 1\nmechanism: {kind: gaussian_mechanism, "
                              "sensitivity: 1, sigma: 1}\nclaim: {epsilon: 1, delta: 1e-5}\n",
                              jobs=True), "jobs"),
])
def test_bad_arguments_are_value_errors_naming_them(call, name):
    """NaN or 0 where a positive whole number is meant, negative or NaN timeouts, grid 0 and
    integers beyond C's range are refused before ctypes could truncate them"""
    with pytest.raises(ValueError) as e:
        call()
    assert isinstance(e.value, GaussauditError) and e.value.message.startswith(name + ":")


# ------------------------------------------------------------------ versions


def test_versions_agree():
    """The package, the library it loaded (ga_version), the header and pyproject.toml carry
    one version."""
    import re
    from gaussaudit import _native
    header = open(os.path.join(ROOT, "gaussaudit.h")).read()
    pyproject = open(os.path.join(ROOT, "python", "pyproject.toml")).read()
    h = re.search(r'#define GA_VERSION_STRING "([^"]+)"', header).group(1)
    p = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    _native.lib.ga_version.restype = __import__("ctypes").c_char_p
    assert gaussaudit.__version__ == _native.lib.ga_version().decode() == h == p


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler for the stub library")
def test_a_library_of_another_version_is_refused_at_import(tmp_path):
    """A libgaussaudit of another version (or one without ga_version) is refused at import
    with a message naming both versions and the library's path, never used."""
    for body, found in (('const char *ga_version(void) { return "9.9.9"; }', "version 9.9.9"),
                        ("int ga_init(void) { return 0; }", "without ga_version")):
        src = tmp_path / "stub.c"
        src.write_text(body + "\n")
        so = tmp_path / "libstub.so"
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(src)], check=True)
        env = dict(os.environ, GAUSSAUDIT_LIB=str(so), PYTHONPATH=os.path.join(ROOT, "python"))
        out = subprocess.run([sys.executable, "-c", "import gaussaudit"], env=env,
                             capture_output=True, text=True)
        assert out.returncode != 0
        assert "ImportError" in out.stderr and found in out.stderr, out.stderr
        assert str(so) in out.stderr and gaussaudit.__version__ in out.stderr, out.stderr


# ------------------------------------------------------------------ numbers, errors, accountant

def test_estimates_are_floats_and_intervals_are_enclosures():
    d = gaussaudit.delta([0], [[1]], [1], [[1]], 1.0)
    e = d.xy
    assert isinstance(e, float) and e < 1 and e + 1 > 1 and float(e) == e.value
    assert type(e + 1) is float and e.error < 1e-13
    value, error = e                                    # unpacks as (value, error)
    assert value == float(e) and error == e.error
    assert "+-" in str(e) and repr(e).startswith("Estimate(")
    c = gaussaudit.delta([0], [[1]], [1], [[1]], 1.0, certified=True).xy
    assert c.lo <= c.mid <= c.hi and c.contains(c.mid) and c.mid in c
    assert c < 1 and c > 0.1 and not c > 0.2 and float(c) == c.mid
    assert d.worst >= max(d.xy, d.yx)


def test_errors_form_a_hierarchy_with_positions(tmp_path):
    with pytest.raises(gaussaudit.InvalidArgument, match="eps"):
        gaussaudit.delta([0], [[1]], [1], [[1]], -1.0)
    with pytest.raises(ValueError, match="delta"):
        gaussaudit.subsampled(rate=0.1, sigma=1, steps=3).epsilon(delta=1.0)
    with pytest.raises(ValueError, match="eps"):
        gaussaudit.subsampled(rate=0.1, sigma=1, steps=3).delta(-1)
    with pytest.raises(ValueError, match="steps"):
        gaussaudit.subsampled(rate=0.1, sigma=1, steps=2.5)
    with pytest.raises(FileNotFoundError):
        gaussaudit.audit(str(tmp_path / "missing.yaml"))
    with pytest.raises(gaussaudit.SpecNotFoundError):
        gaussaudit.profile(str(tmp_path / "missing.yaml"))
    bad = write(tmp_path, "bad.yaml", "gaussaudit: 1\nmechanism: {kind: sketc}\n")
    with pytest.raises(gaussaudit.SpecError) as e:
        gaussaudit.audit(bad)
    assert (e.value.line, e.value.column, e.value.field) == (2, 19, "mechanism.kind")
    assert e.value.file.endswith("bad.yaml") and "the kinds:" in e.value.message
    assert isinstance(e.value, gaussaudit.GaussauditError)


def test_accountant_agrees_with_the_cli_on_its_own_spec(tmp_path):
    from gaussaudit.accounting import Accountant, Gaussian, PoissonSampled
    acc = (Accountant().compose(PoissonSampled(0.02, Gaussian(1.2)), 300)
           .compose(Gaussian(sigma=8.0, sensitivity=2.0), 2))
    spec = write(tmp_path, "acc.yaml", acc.to_spec())
    rc, out, err = cli("epsilon", spec, "--delta", "1e-5", "--format", "json")
    assert rc == 0, err
    overall = json.loads(out)["overall"]["epsilon"]
    assert acc.get_epsilon(1e-5) == overall["value"], (acc.get_epsilon(1e-5), overall)
    rc, out, err = cli("delta", spec, "--epsilon", "1.5", "--format", "json")
    assert rc == 0, err
    rows = json.loads(out)["pairs"]
    worst = max(max(r["xy"]["value"], r["yx"]["value"]) for r in rows)
    assert acc.get_delta(1.5) == worst


def test_fixed_size_batches_are_poisson_steps_of_twice_the_sensitivity():
    """FixedSizeSampled(b, n, Gaussian(s)) under add/remove neighbours is the Poisson step at
    rate b/n with sensitivity 2; dp_accounting's argument order gives the same event; the
    report of its spec shows the Poisson eps beside the exact one."""
    from gaussaudit.accounting import (Accountant, FixedSizeSampled, Gaussian, PoissonSampled,
                                       SampledWithoutReplacement)
    fixed = Accountant().compose(FixedSizeSampled(250, 10000, Gaussian(1.1)), 500)
    twice = Accountant().compose(PoissonSampled(250 / 10000, Gaussian(1.1, sensitivity=2)), 500)
    poisson = Accountant().compose(PoissonSampled(250 / 10000, Gaussian(1.1)), 500)
    e, t, p = fixed.get_epsilon(1e-5), twice.get_epsilon(1e-5), poisson.get_epsilon(1e-5)
    assert abs(e - t) <= 1e-9 * t, (e, t)
    assert e > 1.5 * p, (e, p)
    same = Accountant().compose(SampledWithoutReplacement(10000, 250, Gaussian(1.1)), 500)
    assert same.to_spec() == fixed.to_spec()
    claim = gaussaudit.audit(fixed.to_spec(epsilon=float(p), delta=1e-5)).json()["claims"][0]
    assert claim["verdict"] == "VIOLATION", claim
    assert abs(claim["poisson_sampling_epsilon"] - p) <= 1e-9 * p, (claim, p)
    for bad in ((250, 250), (0, 10), (2.5, 10)):
        with pytest.raises(gaussaudit.InvalidArgument):
            FixedSizeSampled(bad[0], bad[1], Gaussian(1.0))
    # calibrated: twice the Poisson noise multiplier at the same rate (sensitivity 2)
    f = gaussaudit.calibrate(Accountant().compose(FixedSizeSampled(100, 1000, Gaussian(1.0)), 100)
                             .to_spec(), 2, 1e-5)
    p2 = gaussaudit.calibrate(Accountant().compose(PoissonSampled(0.1, Gaussian(1.0)), 100)
                              .to_spec(), 2, 1e-5)
    assert f.certified and p2.certified and abs(f.value - 2 * p2.value) <= 4e-16 * f.value, (f, p2)
    # the pair object: the same eps as the events, and one step's certified laws are those of
    # the Poisson step at sigma/2
    s = gaussaudit.subsampled(batch_size=250, dataset_size=10000, sigma="1.1", steps=500)
    assert abs(s.epsilon(delta=1e-5) - e) <= 1e-9 * e
    one = gaussaudit.subsampled(batch_size=100, dataset_size=1000, sigma="1.1").pld(grid=0.01)
    half = gaussaudit.subsampled(rate="0.1", sigma="0.55").pld(grid=0.01)
    assert one["remove"] == half["remove"] and one["add"] == half["add"]
    with pytest.raises(gaussaudit.InvalidArgument):
        gaussaudit.subsampled(rate=0.1, batch_size=1, dataset_size=10, sigma=1)
    with pytest.raises(gaussaudit.InvalidArgument):
        gaussaudit.subsampled(batch_size=10, dataset_size=10, sigma=1)


def test_shuffled_epochs_are_audited_not_accounted():
    """ShuffledEpochs writes the shuffle sampler's spec (SelfComposed counts epochs); assert_dp
    fails a claim below what a neighbour attains (the sum test: each epoch's 10 batch sums
    added, a Gaussian pair of mean shift sqrt(2/10)/4 over two epochs) and passes one above
    it; the Accountant refuses the event (bounds, not a profile)."""
    from gaussaudit.accounting import Accountant, Gaussian, SelfComposed, ShuffledEpochs
    from gaussaudit.testing import assert_dp
    ev = ShuffledEpochs(10, 100, Gaussian(4.0), epochs=1)
    two = SelfComposed(ev, 2)
    assert two.parts()[0]["epochs"] == 2 and two.parts()[0]["sampler"] == "shuffle"
    mu = math.sqrt(2 / 10) / 4

    def gdp(e):
        return (0.5 * math.erfc((e / mu - mu / 2) / math.sqrt(2))
                - math.exp(e) * 0.5 * math.erfc((e / mu + mu / 2) / math.sqrt(2)))
    lo, hi = 0.0, 5.0  # the sum test's eps at 1e-5, by bisection on its closed form
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if gdp(mid) > 1e-5 else (lo, mid)
    with pytest.raises(AssertionError, match="VIOLATION"):
        assert_dp(two, 0.99 * lo, 1e-5)
    r = assert_dp(two, 1.01 * lo, 1e-5)  # NO VIOLATION FOUND: never VERIFIED (remove_one)
    assert r.claims[0].verdict == "NO VIOLATION FOUND", r.claims[0]
    with pytest.raises(gaussaudit.InvalidArgument, match="bounds"):
        Accountant().compose(two)
    for bad in ((11, 10, 1), (0, 10, 1), (2, 10, 0)):
        with pytest.raises(gaussaudit.InvalidArgument):
            ShuffledEpochs(bad[0], bad[1], Gaussian(1.0), epochs=bad[2])


def test_bracketed_specs_have_no_profile():
    """Fixed-size batches under replace-one neighbours are bracketed, not computed exactly:
    gaussaudit.profile refuses the spec (the largest pair would be the upper bound alone), and
    the audit decides a claim above the upper bound (VERIFIED) and one below the lower bound,
    the add/remove number at the same noise (VIOLATION)."""
    spec = {"gaussaudit": 1, "name": "replace one",
            "mechanism": {"kind": "subsampled_gaussian", "sampler": "fixed_size",
                          "batch_size": 50, "dataset_size": 1000, "sigma": 2.4, "steps": 300},
            "neighbours": "replace_one"}
    with pytest.raises(gaussaudit.ComputationError, match="bracket"):
        gaussaudit.profile(spec)
    exact = gaussaudit.profile({k: v for k, v in spec.items() if k != "neighbours"})
    e = float(exact.epsilon(1e-5))
    low = gaussaudit.audit(dict(spec, claim={"epsilon": round(0.99 * e, 6), "delta": 1e-5}))
    assert low.claims[0].verdict == "VIOLATION", low.claims[0]
    high = gaussaudit.audit(dict(spec, claim={"epsilon": round(1.5 * e, 6), "delta": 1e-5}))
    assert high.claims[0].verdict == "VERIFIED", high.claims[0]


def test_random_allocation_is_audited_not_accounted():
    """RandomAllocation writes the random_allocation sampler's spec (SelfComposed counts
    epochs); with every step taken (participations = steps) the lower and upper bounds meet at
    the Gaussian mechanism of sensitivity sqrt(k T): assert_dp fails a claim just below its eps
    and proves one just above (VERIFIED under remove_one); the Accountant refuses the event;
    with one step per epoch the upper bound proves what the Gaussian one cannot."""
    from gaussaudit.accounting import Accountant, Gaussian, RandomAllocation, SelfComposed
    from gaussaudit.testing import assert_dp
    ev = RandomAllocation(10, Gaussian(2.0), participations=10)
    four = SelfComposed(ev, 4)
    assert four.parts()[0]["epochs"] == 4 and four.parts()[0]["sampler"] == "random_allocation"
    mu = math.sqrt(40) / 2

    def gdp(e):
        return (0.5 * math.erfc((e / mu - mu / 2) / math.sqrt(2))
                - math.exp(e) * 0.5 * math.erfc((e / mu + mu / 2) / math.sqrt(2)))
    lo, hi = 0.0, 50.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if gdp(mid) > 1e-5 else (lo, mid)
    with pytest.raises(AssertionError, match="VIOLATION"):
        assert_dp(four, 0.999 * lo, 1e-5)
    r = assert_dp(four, 1.001 * lo, 1e-5)
    assert r.claims[0].verdict == "VERIFIED", r.claims[0]
    with pytest.raises(gaussaudit.InvalidArgument, match="bounds"):
        Accountant().compose(four)
    # one step of 235 per epoch, 60 epochs: the dominating pair's Renyi bound (eps 2.543 at
    # 1e-5; the Gaussian mechanism of sensitivity sqrt(60) alone gives 54.05) proves 2.6
    one = RandomAllocation(235, Gaussian(1.1), epochs=60)
    assert assert_dp(one, 2.6, 1e-5).claims[0].verdict == "VERIFIED"
    for bad in ((10, 11, 1), (0, 1, 1), (10, 1, 0)):
        with pytest.raises(gaussaudit.InvalidArgument):
            RandomAllocation(bad[0], Gaussian(1.0), participations=bad[1], epochs=bad[2])


def test_event_trees_of_dp_accounting_and_opacus_histories_convert():
    """Objects named and shaped as dp_accounting's events (the library need not be present)
    and Opacus' history rows become the same composition as the events written directly;
    unknown events are refused by name."""
    from gaussaudit.accounting import (Accountant, Composed, FixedSizeSampled, Gaussian,
                                       PoissonSampled, SelfComposed, from_dp_event,
                                       from_opacus_history)

    def event(name, **fields):
        return type(name, (), fields)()

    g = event("GaussianDpEvent", noise_multiplier=1.1)
    tree = event("ComposedDpEvent", events=[
        event("SelfComposedDpEvent", count=30,
              event=event("PoissonSampledDpEvent", sampling_probability=0.2, event=g)),
        event("NoOpDpEvent"),
        event("SelfComposedDpEvent", count=10,
              event=event("SampledWithoutReplacementDpEvent", source_dataset_size=100,
                          sample_size=30, event=event("GaussianDpEvent", noise_multiplier=2.5)))])
    direct = Composed([SelfComposed(PoissonSampled(0.2, Gaussian(1.1)), 30),
                       SelfComposed(FixedSizeSampled(30, 100, Gaussian(2.5)), 10)])
    assert from_dp_event(tree).to_spec() == direct.to_spec()
    a = Accountant().compose(from_dp_event(tree)).get_delta(1.5)
    b = Accountant().compose(direct).get_delta(1.5)
    assert a == b
    hist = from_opacus_history([(1.1, 0.2, 30), (0.8, 0.3, 12)])
    spec = {"gaussaudit": 1, "name": "h",
            "mechanism": {"kind": "training", "opacus_history": [[1.1, 0.2, 30], [0.8, 0.3, 12]]},
            "claim": {"epsilon": 1.5, "delta": 0.9}}
    assert Accountant().compose(hist).get_delta(1.5) == gaussaudit.audit(spec).claims[0].exact
    for bad in (event("LaplaceDpEvent", parameter=1.0), event("GaussianDpEvent")):
        with pytest.raises(gaussaudit.InvalidArgument):
            from_dp_event(bad)
    with pytest.raises(gaussaudit.InvalidArgument):
        from_opacus_history([(1.1, 0.2)])


def test_assert_dp_takes_a_training_configuration():
    """A training spec (Opacus' history) and the same history as events: the eps an
    accountant would report passes when at or above the exact eps, fails below it with the
    exact delta, and the fixed-size sampler's Poisson number fails."""
    from gaussaudit.accounting import (Accountant, FixedSizeSampled, Gaussian,
                                       from_opacus_history)
    from gaussaudit.testing import assert_dp
    hist = [[1.1, 0.2, 30], [0.8, 0.3, 12]]
    spec = {"gaussaudit": 1, "name": "run", "mechanism": {"kind": "training", "opacus_history": hist}}
    exact = Accountant().compose(from_opacus_history(hist)).get_epsilon(1e-5)
    assert_dp(spec, float(exact) * 1.001, 1e-5)
    assert_dp(from_opacus_history(hist), float(exact) * 1.001, 1e-5)
    with pytest.raises(AssertionError, match="VIOLATION"):
        assert_dp(spec, float(exact) * 0.99, 1e-5)
    poisson = Accountant().compose(
        from_opacus_history([[1.1, 0.1, 100]])).get_epsilon(1e-5)
    with pytest.raises(AssertionError, match="VIOLATION"):
        assert_dp(Accountant().compose(FixedSizeSampled(100, 1000, Gaussian(1.1)), 100),
                  float(poisson), 1e-5)


def test_public_functions_carry_type_hints():
    import inspect
    import gaussaudit.accounting as acc
    for mod in (gaussaudit, acc):
        for name in mod.__all__:
            obj = getattr(mod, name)
            fns = [obj] if inspect.isfunction(obj) else \
                [f for n, f in vars(obj).items() if inspect.isfunction(f) and
                 not n.startswith("_")] if inspect.isclass(obj) else []
            for f in fns:
                sig = inspect.signature(f)
                assert sig.return_annotation is not inspect.Signature.empty, f
    assert os.path.exists(os.path.join(os.path.dirname(gaussaudit.__file__), "py.typed"))


def test_audit_result_renders_in_a_notebook():
    r = gaussaudit.audit(os.path.join(ROOT, "specs/examples/classic_gaussian_eps1.yaml"))
    html = r._repr_html_()
    assert r.verdict in html and "<html" not in html.lower()


def test_the_names_opacus_and_dp_accounting_use_are_aliases():
    a = gaussaudit.subsampled(rate=0.01, sigma=1.1, steps=100).epsilon(delta=1e-5)
    b = gaussaudit.subsampled(sample_rate=0.01, noise_multiplier=1.1, steps=100).epsilon(delta=1e-5)
    assert a == b
    with pytest.raises(gaussaudit.InvalidArgument, match="rate"):
        gaussaudit.subsampled(rate=0.01, sample_rate=0.01, sigma=1.1)
    with pytest.raises(gaussaudit.InvalidArgument, match="sigma"):
        gaussaudit.subsampled(rate=0.01)


def test_accountant_columns_are_those_of_each_claims_delta():
    """The RDP and PLD accountants' columns, computed once per delta and shared by the claims
    at that delta, are each claim's own (two deltas, three claims)."""
    spec = {"gaussaudit": 1, "name": "columns",
            "mechanism": {"kind": "subsampled_gaussian", "rate": 0.2, "sigma": 2.0, "steps": 25},
            "claim": {"epsilon": 3, "delta": 1e-5, "profile": [[2.9, 1e-5], [5, 1e-8]]}}
    claims = gaussaudit.audit(spec).json()["claims"]
    s = gaussaudit.subsampled(rate=0.2, sigma=2.0, steps=25)
    for c in claims:
        assert c["pld_accountant_epsilon"] == s.pld_accountant(delta=c["delta"]), c
        assert c["rdp_accountant_epsilon"] == s.rdp_accountant(delta=c["delta"])[0], c
    assert claims[0]["pld_accountant_epsilon"] != claims[2]["pld_accountant_epsilon"]
