"""The questions a DP-SGD user asks an accountant, asked of gaussaudit the way dp_accounting's
users write them (events, compose, get_epsilon), checked against closed forms. Runs against
the installed package (make test installs the wheel into a fresh venv and runs this folder).

dp_accounting:  PLDAccountant().compose(PoissonSampledDpEvent(q, GaussianDpEvent(s)), T)
                                .get_epsilon(delta)
gaussaudit:     Accountant().compose(PoissonSampled(q, Gaussian(s)), T).get_epsilon(delta)
"""
import math

import pytest

from gaussaudit import InvalidArgument
from gaussaudit.accounting import (Accountant, Composed, Gaussian, PoissonSampled, SelfComposed,
                                   calibrate_noise_multiplier)
from gaussaudit.testing import assert_dp

TOL_CLOSED = 1e-12   # relative, against the Gaussian closed form
TOL_EPS = 1e-8       # absolute, epsilon found by two routes


def phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


def gdp_delta(mu, eps):
    """delta(eps) of mu-GDP (Dong, Roth & Su 2022, Cor. 2.13; Balle & Wang 2018, Thm 8)."""
    return phi(-eps / mu + mu / 2) - math.exp(eps) * phi(-eps / mu - mu / 2)


def test_gaussian_steps_compose_to_the_gdp_closed_form():
    sigma, steps = 3.0, 9   # mu = sqrt(9) / 3 = 1
    acc = Accountant().compose(Gaussian(sigma), steps)
    for eps in (0.0, 0.5, 1.0, 2.5):
        d = acc.get_delta(eps)
        assert isinstance(d, float)
        assert abs(d - gdp_delta(1.0, eps)) <= TOL_CLOSED * gdp_delta(1.0, eps) + d.error, eps
        iv, ref = acc.get_delta(eps, certified=True), gdp_delta(1.0, eps)
        # (the closed form in doubles is itself off by a few units in the last place)
        assert iv.lo - 4e-16 * ref <= ref <= iv.hi + 4e-16 * ref, (iv, ref)


def test_heterogeneous_composition_adds_the_squared_mus():
    acc = Accountant().compose(Gaussian(2.0)).compose(Gaussian(sigma=4.0, sensitivity=2.0), 3)
    mu = math.sqrt(1 / 4 + 3 / 4)
    assert abs(acc.get_delta(1.0) - gdp_delta(mu, 1.0)) <= TOL_CLOSED
    eps = acc.get_epsilon(1e-5)
    assert abs(gdp_delta(mu, float(eps)) - 1e-5) <= 1e-5 * 1e-7


def test_a_sample_rate_of_one_is_the_gaussian_mechanism():
    a = Accountant().compose(PoissonSampled(1.0, Gaussian(2.0)), 4)
    b = Accountant().compose(Gaussian(noise_multiplier=2.0), 4)
    assert abs(a.get_epsilon(1e-5) - b.get_epsilon(1e-5)) <= TOL_EPS


def test_dp_sgd_epsilon_is_below_the_rdp_bound_and_the_pld_grid():
    import gaussaudit
    q, sigma, steps, delta = 0.01, 1.0, 1000, 1e-5
    eps = Accountant().compose(PoissonSampled(q, Gaussian(sigma)), steps).get_epsilon(delta)
    s = gaussaudit.subsampled(rate=q, sigma=sigma, steps=steps)
    rdp, _ = s.rdp_accountant(delta=delta)
    pld = s.pld_accountant(delta=delta)
    assert eps < rdp                        # RDP's conversion is an upper bound
    assert eps <= pld + 1e-9                # a pessimistic PLD grid is an upper bound, close
    assert pld - eps < 0.01 * eps


def test_certified_epsilon_encloses_the_estimate():
    acc = Accountant().compose(PoissonSampled(0.2, Gaussian(2.0)), 25)
    est = acc.get_epsilon(1e-6)
    iv = acc.get_epsilon(1e-6, certified=True)
    assert iv.lo - est.error <= est <= iv.hi + est.error, (est, iv)
    assert iv.hi - iv.lo < 1e-6


def test_calibrated_noise_multiplier_meets_the_target_and_no_less_does():
    q, steps, target = 0.2, 25, 2.0
    sigma = calibrate_noise_multiplier(target_epsilon=target, target_delta=1e-5,
                                       sample_rate=q, steps=steps)
    at = Accountant().compose(PoissonSampled(q, Gaussian(sigma)), steps).get_epsilon(1e-5)
    below = Accountant().compose(PoissonSampled(q, Gaussian(sigma * (1 - 1e-6))),
                                 steps).get_epsilon(1e-5)
    assert at <= target + 1e-7 < below + 1e-6


def test_assert_dp_takes_events_and_a_relative_tolerance():
    event = SelfComposed(PoissonSampled(0.2, Gaussian(2.0)), 25)
    eps = Accountant().compose(event).get_epsilon(1e-5)
    assert_dp(event, float(eps) * 1.001, 1e-5)          # a little above the exact eps: holds
    r = assert_dp(event, float(eps) * (1 - 1e-9), 1e-5, rtol=1e-6)
    assert "within rtol" in r.note
    with pytest.raises(AssertionError, match="exact delta"):
        assert_dp(event, float(eps) * 0.9, 1e-5)


def test_assert_dp_says_which_sigma_would_pass():
    with pytest.raises(AssertionError, match=r"smallest noise that passes: sigma = 3\.7306"):
        assert_dp((1.0, 3.0), 1.0, 1e-5)                  # (sensitivity, sigma)


@pytest.mark.parametrize("call", [
    lambda: Accountant().compose(Gaussian(1.0)).get_delta(-1.0),
    lambda: Accountant().compose(Gaussian(1.0)).get_epsilon(1.5),
    lambda: Accountant().compose(Gaussian(1.0)).get_epsilon(float("nan")),
    lambda: Accountant().compose(Gaussian(1.0), 2.5),
    lambda: PoissonSampled(0.0, Gaussian(1.0)),
    lambda: Gaussian(-1.0),
    lambda: Composed([]),
])
def test_arguments_out_of_range_are_refused_as_value_errors(call):
    with pytest.raises(ValueError) as e:
        call()
    assert isinstance(e.value, InvalidArgument)
