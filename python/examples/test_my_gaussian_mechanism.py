"""An example pytest test a DP library could keep: its Gaussian mechanism's calibration checked
against gaussaudit's exact profile. Run: pytest python/examples (with gaussaudit importable)."""
import math

import pytest

from gaussaudit.testing import assert_dp


def classic_sigma(eps, delta, sensitivity):
    """The library under test: the classic calibration (Dwork & Roth 2014, Thm A.1)."""
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
def test_classic_calibration_is_dp_where_it_is_stated(eps):
    sigma = classic_sigma(eps, 1e-5, sensitivity=1.0)
    # neighbouring outputs f(D) = 0 and f(D') = 1 with noise N(0, sigma^2)
    assert_dp(([0.0], [[sigma ** 2]], [1.0], [[sigma ** 2]]), eps, 1e-5)


def test_classic_calibration_fails_beyond_its_range():
    sigma = classic_sigma(10.0, 1e-5, sensitivity=1.0)
    with pytest.raises(AssertionError, match="VIOLATION"):
        assert_dp(([0.0], [[sigma ** 2]], [1.0], [[sigma ** 2]]), 10.0, 1e-5)
