"""gaussaudit.testing: assertions for the test suites of DP libraries (pytest or any runner).

    from gaussaudit.testing import assert_dp
    from gaussaudit.accounting import Gaussian, PoissonSampled, SelfComposed

    def test_my_gaussian_mechanism():
        sigma = my_library.calibrate_gaussian(eps=1.0, delta=1e-5, sensitivity=1.0)
        assert_dp((1.0, sigma), 1.0, 1e-5)                      # (sensitivity, sigma)

    def test_my_dp_sgd_accountant():
        eps = my_library.epsilon(q=0.01, sigma=1.0, steps=1000, delta=1e-5)
        assert_dp(SelfComposed(PoissonSampled(0.01, Gaussian(1.0)), 1000), eps, 1e-5,
                  rtol=1e-6)

What is audited: a spec (path, YAML text or dict: its mechanism and neighbours; its own claim
is replaced), one pair (mean_x, cov_x, mean_y, cov_y), the Gaussian mechanism as
(sensitivity, sigma), an accounting Event or Accountant, or a callable taking no argument
that returns any of these (a mechanism's factory).
"""
import math
from typing import Any, Optional, Union

import gaussaudit
from gaussaudit import accounting

Real = Union[int, float, str]


def _pair_spec(pair, columns=1):
    mean_x, cov_x, mean_y, cov_y = pair

    def plain(v):
        return v.tolist() if hasattr(v, "tolist") else v
    return {"gaussaudit": 1, "name": "pair under test", "mechanism": {"kind": "gaussian_pair"},
            "pairs": [{"name": "X vs Y", "x": {"mean": plain(mean_x), "cov": plain(cov_x)},
                       "y": {"mean": plain(mean_y), "cov": plain(cov_y)},
                       "columns": columns}]}


def _spec_of(what: Any, columns: int):
    """(spec, whether calibrate applies) of what assert_dp was given"""
    if callable(what) and not isinstance(what, (accounting.Event, accounting.Accountant)):
        what = what()
    if isinstance(what, accounting.Accountant):
        what = what.event
    if isinstance(what, accounting.Event):
        return what.to_spec(name="events under test"), True
    if isinstance(what, (tuple, list)) and len(what) == 4:
        return _pair_spec(what, columns), False
    if isinstance(what, (tuple, list)) and len(what) == 2:
        sens, sigma = what
        return accounting.Gaussian(sigma, sens).to_spec(name="Gaussian mechanism under test"), True
    return what, True


def _calibrated(spec, eps, delta) -> Optional[str]:
    """"knob = value" of the smallest noise that passes, when calibrate applies (else None)"""
    try:
        c = gaussaudit.calibrate(spec, eps, delta, timeout=60)
    except gaussaudit.GaussauditError:
        return None
    return "%s = %.10g" % (c.knob, c.value) if math.isfinite(c.value) else None


def assert_dp(spec_or_pair: Any, eps: Real, delta: Real, *, rtol: float = 0.0,
              allow_inconclusive: bool = False, certified: bool = False,
              columns: int = 1) -> "gaussaudit.AuditResult":
    """Assert (eps, delta)-DP (see the module's text for what may be audited).

    VERIFIED and NO VIOLATION FOUND pass; VIOLATION fails with the exact delta at eps, the
    slack, the witness and, where the noise can be calibrated, the smallest noise parameter
    that passes; with rtol > 0 a claim whose delta is within rtol of the exact delta (exact
    <= delta (1 + rtol)) passes, and the result says so (its .note). INCONCLUSIVE fails with
    its reason unless allow_inconclusive. Returns the AuditResult."""
    __tracebackhide__ = True  # pytest: the failure points at the caller's line
    gaussaudit._real("eps", eps, 0)
    gaussaudit._delta_arg(delta)
    rtol = gaussaudit._real("rtol", rtol, 0, 1)
    spec, calibrates = _spec_of(spec_or_pair, columns)
    claim = "{epsilon: %s, delta: %s}" % (gaussaudit._decimal(eps), gaussaudit._decimal(delta))
    r = gaussaudit.audit(spec, claim=claim, certified=certified)
    c = r.claims[0]
    r.note = ""
    exact = float(c.exact)
    if c.verdict in ("VIOLATION", "INCONCLUSIVE") and rtol > 0 and \
            exact + c.exact.error <= float(delta) * (1 + rtol):
        r.note = ("passes within rtol = %g: the exact delta at eps = %s is %.10g, %.3g above "
                  "the claimed %s" % (rtol, eps, exact, exact / float(delta) - 1, delta))
        return r
    if c.verdict == "VIOLATION" or (c.verdict == "INCONCLUSIVE" and not allow_inconclusive):
        lines = ["%s: (%s, %s)-DP: %s" % (r.name, eps, delta, c.verdict),
                 "  exact delta at eps = %s: %s (the claim is %s)" % (eps, c.exact, delta)]
        if math.isfinite(exact) and exact > 0:
            lines.append("  slack: the claimed delta is %.6g times the exact one" %
                         (float(delta) / exact))
        lines.append("  reason: %s" % c.reason)
        if c.witness:
            lines.append("  witness: %s" % (c.witness,))
        if c.verdict == "VIOLATION" and calibrates:
            v = _calibrated(spec, eps, delta)
            if v is not None:
                lines.append("  the smallest noise that passes: %s (gaussaudit calibrate)" % v)
        raise AssertionError("\n".join(lines))
    return r


__all__ = ["assert_dp"]
