#!/usr/bin/env python3
"""The noise of the NDIS-calibrated mechanism (Wei, Lu, Magdon-Ismail & Zikas, 001, Figure 5),
computed independently of gaussaudit's C code: Definition 6's delta_LC with the sensitivities
of Proposition 8 (GP regression at one query point) or Proposition 7 (Bayesian logistic
regression, nu = d rho), every infimum by a dense grid refined by golden section (the s and u
infima numerically, not by their closed forms).

    python3 tests/tools/ndis_fig5.py gp KSS NOISE_VARIANCE LABEL_BOUND MAX_ROWS EPS DELTA
    python3 tests/tools/ndis_fig5.py blr ROW_NORM LAMBDA MAX_ROWS FEATURES EPS DELTA

prints the least standard deviation sigma (noise variance sigma^2) with delta_LC <= DELTA.
The values in tests/catalogue/test_envelope.c come from this script."""
import math
import sys


def phi_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def golden(f, lo, hi, it=200):
    g = (math.sqrt(5) - 1) / 2
    for _ in range(it):
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(x1) <= f(x2):
            hi = x2
        else:
            lo = x1
    return f(0.5 * (lo + hi))


def grid_min(f, lo, hi, n):
    xs = [lo + (hi - lo) * k / n for k in range(n + 1)]
    vs = [f(x) for x in xs]
    k = min(range(n + 1), key=lambda i: vs[i])
    return min(vs[k], golden(f, xs[max(k - 1, 0)], xs[min(k + 1, n)]))


def d_mean(e, d):
    return phi_cdf(d / 2 - e / d) - math.exp(e) * phi_cdf(-d / 2 - e / d)


def d_cov(e, rho, dim):
    if e >= dim * rho / 2:
        return 0.0
    a = lambda s: -2 * e * s + dim * (s * rho - 0.5 * math.log1p(2 * s * (1 - math.exp(-rho))))
    smax = 1.0
    while a(smax) < a(smax / 2):
        smax *= 2
    first = math.exp(min(0.0, grid_min(a, 0.0, smax, 2000)))
    k = 1 / (2 * math.expm1(rho))
    b = lambda u: 2 * e * u + dim * (-u * rho - 0.5 * math.log1p(-2 * u * math.expm1(rho)))
    second = math.exp(grid_min(b, k * 1e-12, k * (1 - 1e-9), 2000))
    return first - math.exp(e) * (1 - second)


def delta_lc(eps, d, rho, dim):
    f = lambda e1: d_mean(e1, d) + math.exp(e1) * d_cov(eps - e1, rho, dim)
    kink = eps - dim * rho / 2  # (the covariance term is 0 from here down)
    return min(grid_min(f, 0.0, eps, 4000), d_mean(kink, d) if kink >= 0 else math.inf)


def main():
    kind = sys.argv[1]
    a, b, c, dd, eps, delta = map(float, sys.argv[2:8])
    if kind == "gp":
        kss, nv, bound, n, dim = a, b, c, dd, 1
        env = lambda s: (math.sqrt(kss) * math.sqrt(n) * bound / (math.sqrt(nv) * s),
                         math.log1p(kss / (s * s)))
    else:
        l, lam, n, dim = a, b, c, dd
        lo_var = lambda s: s * s + 1 / (lam + n * l * l / 4)
        env = lambda s: (l / lam / math.sqrt(lo_var(s)), math.log((s * s + 1 / lam) / lo_var(s)))
    lo, hi = 1e-3, 1e3
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        if delta_lc(eps, *env(mid), dim) > delta:
            lo = mid
        else:
            hi = mid
    print("%.12g" % hi)


if __name__ == "__main__":
    main()
