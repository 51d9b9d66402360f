#!/usr/bin/env python3
"""Reference values of delta(eps) for compositions of Poisson-subsampled Gaussian steps.

Written for the test suite, independently of the library (mpmath, 40 digits), by two routes:

  bromwich  delta_{X,Y}(eps) = (1/pi) int_0^inf Re G(c + i t) dt with
              G(z) = M(z)^T e^{(1 - z) eps} / (z (z - 1)),  c > 1   (X = P^T, Y = Q^T),
            delta_{Y,X}(eps) = (1/pi) int_0^inf Re H(c + i t) dt with
              H(z) = M(z)^T e^{z eps} / (z (z - 1)),        c < 0,
            where M(z) = E[(1 - q + q e^{m x - m^2/2})^z], x ~ N(0, 1), m = 1/sigma, is
            E_Y[e^{z L}] of one step (an mpmath quadrature in x for each z), and c minimises
            the integrand's modulus on the real axis (a saddle point);
  nested    (T = 2 only) delta_{X,Y}(eps) = int p(x) d1(eps - l(x)) dx and
            delta_{Y,X}(eps) = int phi(x) e1(eps + l(x)) dx with the one-step closed forms
            d1, e1 at any real argument (threshold events of the increasing loss l).

Usage: python3 tests/data/ploss_reference.py > tests/data/ploss_reference.h (the two-step
grid, by the nested route, about 10 s); with --long it adds the longer compositions by the
Bromwich route (minutes per value; not in the checked-in table). With --grid it writes
tests/data/ploss_grid.h instead: one and two steps over the grid of rates {0.001, 0.01, 0.1,
0.5}, noise multipliers {0.5, 0.6, 1, 5} and eps {0.1, 1, 3, 8} (T = 1 the closed form; T = 2
the nested route twice, with two sets of breakpoints, their relative disagreement in agree;
about two minutes).
The header lists each case with both directions of the remove pair (the add pair's
directions are the same two values swapped), the route of the value (N nested, B Bromwich; NB:
both routes, the nested value given) and the two routes' relative disagreement.
"""
import sys
from multiprocessing import Pool
from mpmath import mp, mpf, mpc, exp, log, quad, pi, re, sqrt, erfc, inf, ncdf

mp.dps = 40

# T = 2: the nested route; the grid of rates, noise multipliers and eps
CASES = [(q, s, 2, e) for q in ("0.01", "0.1", "0.5") for s in ("0.6", "1", "2")
         for e in ("0.1", "1", "3")]
# with --long, longer compositions whose integrand decays fast (T q >= 10): the Bromwich route
LONG_CASES = [("0.1", "5", 1000, "0.5"), ("0.1", "5", 1000, "0.05"), ("0.05", "1.5", 200, "1")]


def step_mgf(q, m, z):
    """E[(1 - q + q e^{m x - m^2/2})^z], x ~ N(0, 1)"""
    l1q = log(1 - q)

    def f(x):
        u = log(q) + m * x - m * m / 2
        l = u + log(1 + exp(l1q - u)) if u > l1q else l1q + log(1 + exp(u - l1q))
        return exp(-x * x / 2 + z * l) / sqrt(2 * pi)
    peak = re(z) * m
    pts = sorted({-inf, -12, min(peak, 0) - 6, 0, peak, max(peak, 0) + 6, max(peak, 0) + 12, inf})
    return quad(f, pts)


def one_step(q, m, e, dirn):
    """closed forms of one step at any real e: dirn 0 E_P[(1 - e^{e - l})_+], dirn 1
    E_Q[(1 - e^{e + l})_+]"""
    Qb = lambda x: erfc(x / sqrt(2)) / 2
    if dirn == 0:
        r = exp(e) - 1 + q
        if r <= 0:
            return 1 - exp(e)
        tau = (log(r / q) + m * m / 2) / m
        return q * Qb(tau - m) - r * Qb(tau)
    r = exp(-e) - 1 + q
    if r <= 0:
        return mpf(0)
    tau = (log(r / q) + m * m / 2) / m
    return ncdf(tau) - exp(e) * ((1 - q) * ncdf(tau) + q * ncdf(tau - m))


def loss(q, m, x):
    return log(1 - q + q * exp(m * x - m * m / 2))


def loss_inverse(q, m, v):
    """the x with l(x) = v (v > log(1 - q))"""
    return (log((exp(v) - 1 + q) / q) + m * m / 2) / m


def nested(q, m, eps, dirn):
    phi = lambda x: exp(-x * x / 2) / sqrt(2 * pi)
    if dirn == 0:
        f = lambda x: ((1 - q) * phi(x) + q * phi(x - m)) * one_step(q, m, eps - loss(q, m, x), 0)
        kink = eps - log(1 - q)          # the one-step form switches where e^{eps - l} = 1 - q
    else:
        f = lambda x: phi(x) * one_step(q, m, eps + loss(q, m, x), 1)
        kink = -log(1 - q) - eps         # ... where e^{-(eps + l)} = 1 - q
    pts = {-inf, -10, -3, 0, m, 3, 10, inf}
    if kink > log(1 - q):                # the integrand has a kink there: a breakpoint
        pts.add(loss_inverse(q, m, kink))
    return quad(f, sorted(pts))


def nested_fine(q, m, eps, dirn):
    """the nested route with breakpoints also where the step's loss reaches eps/2, eps and
    2 eps (where the integrand's mass sits far in the tail) and beyond 10"""
    phi = lambda x: exp(-x * x / 2) / sqrt(2 * pi)
    if dirn == 0:
        f = lambda x: ((1 - q) * phi(x) + q * phi(x - m)) * one_step(q, m, eps - loss(q, m, x), 0)
        kink = eps - log(1 - q)
    else:
        f = lambda x: phi(x) * one_step(q, m, eps + loss(q, m, x), 1)
        kink = -log(1 - q) - eps
    pts = {-inf, -40, -20, -10, -5, -3, -1, 0, 1, m, 3, 5, 10, 20, 40, 80, inf}
    for v in (kink, eps / 2, eps, 2 * eps, -eps / 2, -eps):
        if v > log(1 - q):
            x = loss_inverse(q, m, v)
            pts |= {x - 1, x, x + 1}
    return quad(f, sorted(pts), maxdegree=10)


GRID = [(q, s, T, e) for T in (1, 2) for q in ("0.001", "0.01", "0.1", "0.5")
        for s in ("0.5", "0.6", "1", "5") for e in ("0.1", "1", "3", "8")]


def grid_work(case):
    qs, ss, T, es = case
    q, m, eps = mpf(qs), 1 / mpf(ss), mpf(es)
    out = []
    for dirn in (0, 1):
        if T == 1:
            v = one_step(q, m, eps, dirn)
            out.append((max(v, mpf(0)), 0.0))
        else:
            a, b = nested(q, m, eps, dirn), nested_fine(q, m, eps, dirn)
            out.append((b, float(abs(a - b) / abs(b)) if b != 0 else float(abs(a))))
    return case, out


def print_header(comment, extra, name):
    """the generated header's comment (its first line after the script's name) and struct"""
    print("/* Generated by tests/data/ploss_reference.py " + comment[0])
    for line in comment[1:]:
        print(line)
    print("static const struct {")
    print("    const char *q, *sigma;")
    print("    double T;")
    print("    const char *eps, *xy, *yx%s;" % extra)
    print("    double agree;")
    print("} %s[] = {" % name)


def grid_main():
    with Pool(2) as pool:
        res = pool.map(grid_work, GRID)
    print_header(["--grid (mpmath, 40 digits): delta of T",
                  " * Poisson-subsampled Gaussian steps, remove pair, both directions; T = 1 the closed",
                  " * form, T = 2 the nested route (agree: the relative disagreement of two quadratures,",
                  " * or their absolute one where the value is 0). */"], "", "ploss_grid")
    for (qs, ss, T, es), ((vx, ax), (vy, ay)) in res:
        print('    {"%s", "%s", %d, "%s", "%s", "%s", %.2g},' % (
            qs, ss, T, es, mp.nstr(vx, 30), mp.nstr(vy, 30), max(ax, ay)))
    print("};")


def bromwich(q, m, T, eps, dirn):
    logint = lambda c: T * log(step_mgf(q, m, c)) + ((1 - c) * eps if dirn == 0 else c * eps) \
        - log(c * (c - 1))
    # golden-section search for the saddle point on the real axis
    lo, hi = (mpf(1) + mpf(10) ** -6, mpf(60)) if dirn == 0 else (mpf(-60), -mpf(10) ** -6)
    g = (sqrt(5) - 1) / 2
    a, b = lo, hi
    for _ in range(80):
        x1, x2 = b - g * (b - a), a + g * (b - a)
        if logint(x1) < logint(x2):
            b = x2
        else:
            a = x1
    c = (a + b) / 2

    def G(t):
        z = mpc(c, t)
        w = T * log(step_mgf(q, m, z)) + ((1 - z) * eps if dirn == 0 else z * eps)
        return re(exp(w) / (z * (z - 1))) / pi
    # the scale of t: 1/sqrt(K''(c)), K'' ~ T times one step's loss variance
    sc = 1 / sqrt(T * m * m * max(q, mpf(10) ** -3) + mpf(10) ** -6)
    pts = [0] + [sc * k for k in (0.5, 1, 2, 4, 8, 16, 32, 64)] + [inf]
    return quad(G, pts)


def work(case):
    qs, ss, T, es = case
    q, m, eps = mpf(qs), 1 / mpf(ss), mpf(es)
    out = []
    for dirn in (0, 1):
        n = nested(q, m, eps, dirn) if T == 2 else None
        # the Bromwich route where its integrand decays fast (the longer compositions)
        b = bromwich(q, m, T, eps, dirn) if T > 2 else None
        out.append((b, n))
    return case, out


def main():
    if "--grid" in sys.argv[1:]:
        return grid_main()
    cases = CASES + (LONG_CASES if "--long" in sys.argv[1:] else [])
    with Pool(2) as pool:
        res = pool.map(work, cases)
    print_header(["(mpmath, 40 digits): delta of T",
                  " * Poisson-subsampled Gaussian steps, remove pair, both directions. route: N nested",
                  " * quadrature, B Bromwich, NB both (their relative disagreement in agree). */"],
                 ", *route", "ploss_ref")
    for (qs, ss, T, es), out in res:
        (bx, nx), (by, ny) = out
        agree = 0.0
        if nx is not None and bx is not None:
            for b, n in ((bx, nx), (by, ny)):
                if n != 0:
                    agree = max(agree, float(abs(b - n) / abs(n)))
        vx, vy = (nx, ny) if nx is not None else (bx, by)
        route = ("N" if nx is not None else "") + ("B" if bx is not None else "")
        print('    {"%s", "%s", %d, "%s", "%s", "%s", "%s", %.2g},' % (
            qs, ss, T, es, mp.nstr(vx, 30), mp.nstr(vy, 30), route, agree))
    print("};")


if __name__ == "__main__":
    main()
