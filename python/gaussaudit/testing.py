"""gaussaudit.testing: assertions for the test suites of DP libraries (pytest or any runner).

    from gaussaudit.testing import assert_dp
    def test_my_gaussian_mechanism():
        sigma = my_library.calibrate_gaussian(eps=1.0, delta=1e-5, sensitivity=1.0)
        assert_dp(([0.0], [[sigma ** 2]], [1.0], [[sigma ** 2]]), 1.0, 1e-5)
"""
import gaussaudit


def _pair_spec(pair, columns=1):
    mean_x, cov_x, mean_y, cov_y = pair

    def plain(v):
        return v.tolist() if hasattr(v, "tolist") else v
    return {"gaussaudit": 1, "name": "pair under test", "mechanism": {"kind": "gaussian_pair"},
            "pairs": [{"name": "X vs Y", "x": {"mean": plain(mean_x), "cov": plain(cov_x)},
                       "y": {"mean": plain(mean_y), "cov": plain(cov_y)},
                       "columns": columns}]}


def assert_dp(spec_or_pair, eps, delta, *, allow_inconclusive=False, certified=False,
              columns=1):
    """Assert (eps, delta)-DP of a spec (path, YAML text or dict: its mechanism and pairs; its
    own claim is replaced) or of one pair (mean_x, cov_x, mean_y, cov_y). VIOLATION fails with
    the report's reason; VERIFIED and NO VIOLATION FOUND pass; INCONCLUSIVE fails with its
    reason unless allow_inconclusive. Returns the AuditResult."""
    spec = spec_or_pair
    if isinstance(spec_or_pair, (tuple, list)) and len(spec_or_pair) == 4:
        spec = _pair_spec(spec_or_pair, columns)
    claim = "{epsilon: %r, delta: %r}" % (float(eps), float(delta))
    r = gaussaudit.audit(spec, claim=claim, certified=certified)
    c = r.claims[0]
    if c.verdict == "VIOLATION" or (c.verdict == "INCONCLUSIVE" and not allow_inconclusive):
        raise AssertionError("%s: (%g, %g)-DP: %s: %s" % (r.name, eps, delta, c.verdict, c.reason))
    return r
