#!/usr/bin/env python3
"""Reference deltas of the shared 2-D pair ("2-D, mean and covariance differ", delta.json) at
45 digits, computed directly: whiten by Cholesky of S_y, rotate to the eigenvectors of the
whitened S_x (mpmath, exact decimal inputs), then P[l > eps] under X and Y by integrating
over z1 the exact normal probability of the quadratic region in z2, split where the region
changes shape. delta = P_X[l > eps] - e^eps P_Y[l > eps]; yx swaps the laws.

Run: python3 tests/tools/ref2d.py (needs mpmath). The values are in tests/pair/test_pair.c
(refined_certificates_reach_the_width_asked): the shared file's values for this pair differ
from these (and from the certified intervals) by about 1.6e-16 relative."""
from mpmath import mp, mpf, matrix, cholesky, inverse, eigsy, sqrt, log, exp, ncdf, npdf, quad, inf, findroot

mp.dps = 45


def delta(Sx, Sy, mx, my, eps):
    Li = inverse(cholesky(Sy))
    P = Li * Sx * Li.T
    tau, V = eigsy(P)
    m = V.T * (Li * (mx - my))
    t1, t2, m1, m2 = tau[0], tau[1], m[0], m[1]

    def coef(z1):  # l = a z2^2 + b z2 + g for fixed z1
        a = (1 - 1 / t2) / 2
        b = m2 / t2
        g = -log(t1) / 2 - log(t2) / 2 - (z1 - m1) ** 2 / (2 * t1) + z1 ** 2 / 2 - m2 ** 2 / (2 * t2)
        return a, b, g - eps

    def region(z1, mean, sd):  # P[a z2^2 + b z2 + g > 0], z2 ~ N(mean, sd^2)
        a, b, g = coef(z1)
        D = b * b - 4 * a * g
        if D <= 0:
            return mpf(1) if a > 0 else mpf(0)
        r1, r2 = sorted([(-b - sqrt(D)) / (2 * a), (-b + sqrt(D)) / (2 * a)])
        inside = ncdf((r2 - mean) / sd) - ncdf((r1 - mean) / sd)
        return 1 - inside if a > 0 else inside

    def disc(z1):
        a, b, g = coef(z1)
        return b * b - 4 * a * g

    xs = [mpf(-40) + mpf(k) / 50 for k in range(4001)]
    cuts = [findroot(disc, (x0, x1), solver='anderson') for x0, x1 in zip(xs, xs[1:])
            if disc(x0) * disc(x1) < 0]
    px = quad(lambda z: npdf(z, m1, sqrt(t1)) * region(z, m2, sqrt(t2)), [-inf] + cuts + [inf])
    py = quad(lambda z: npdf(z) * region(z, 0, 1), [-inf] + cuts + [inf])
    return px - exp(eps) * py


Sx = matrix([[mpf('1'), mpf('0.2')], [mpf('0.2'), mpf('0.8')]])
Sy = matrix([[mpf('1.3'), mpf('-0.1')], [mpf('-0.1'), mpf('0.6')]])
mx = matrix([mpf(0), mpf(0)])
my = matrix([mpf('0.5'), mpf('-0.3')])
for e in ['0.5', '1']:
    print(e, mp.nstr(delta(Sx, Sy, mx, my, mpf(e)), 25), mp.nstr(delta(Sy, Sx, my, mx, mpf(e)), 25))
