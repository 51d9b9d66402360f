"""Monte-Carlo reference for the propose-test-release sketch (mechanism.ptr) of
tests/catalogue/test_mechanisms.c, ptr_bounds_against_simulation: the dataset of that test,
r = 3 columns, test_sigma 1, margin 0.5, target 3, scale 1, eps 0.3, remove_one. It simulates
the mechanism with numpy (the test's value, the ridge, the columns from the full 2 x 2
covariances) and prints, per removed row,
  - the upper bound: E_P[(1 - e^(eps - L))_+], L the log-likelihood ratio of (the ridge level,
    the columns) from the Gaussian densities (no chi-square reduction), both directions;
  - the best threshold on T = sum_j (u^T m_j)^2, u = (G' + rho0 I)^-1 x, over a grid: the
    lower bound's event, direction XY.
Run: python3 tests/tools/ptr_mc.py ROW (0-based); seed 12345, 2e6 releases per law.
"""
import math
import sys

import numpy as np

rng = np.random.default_rng(12345)
D = np.array([[1, 0.2], [0.3, 0.9], [0.5, -0.4], [-0.7, 0.6]])
r, tau, alpha, g, c, eps = 3, 1.0, 0.5, 3.0, 1.0, 0.3
row = int(sys.argv[1]) if len(sys.argv) > 1 else 0
Dp = np.delete(D, row, axis=0)
GB, GS = D.T @ D, Dp.T @ Dp
mB, mS = np.linalg.eigvalsh(GB)[0], np.linalg.eigvalsh(GS)[0]
N = 2_000_000


def rho(y):
    return c * np.maximum(g - np.maximum(y - alpha, 0), 0)


def Phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


def sample(G, m):
    y = m + tau * rng.standard_normal(N)
    R = rho(y)
    w, V = np.linalg.eigh(G)
    Z = rng.standard_normal((N, r, 2))
    sd = np.sqrt(np.maximum(w[None, :] + R[:, None], 0))
    return y, R, (Z * sd[:, None, :]) @ V.T


def logpdf(M, G, R):
    w, V = np.linalg.eigh(G)
    C = M @ V
    var = w[None, :] + R[:, None]
    return -0.5 * np.sum(C**2 / var[:, None, :], axis=(1, 2)) - 0.5 * r * np.sum(np.log(var), axis=1)


def loss(y, R, M, GP, mP, GQ, mQ):
    L1 = ((y - mQ)**2 - (y - mP)**2) / (2 * tau * tau)
    a_lo = math.log(Phi((alpha - mP) / tau) / Phi((alpha - mQ) / tau))
    a_hi = math.log(Phi(-(alpha + g - mP) / tau) / Phi(-(alpha + g - mQ) / tau))
    L1 = np.where(y <= alpha, a_lo, np.where(y >= alpha + g, a_hi, L1))
    return L1 + logpdf(M, GP, R) - logpdf(M, GQ, R)


for name, (GP, mP, GQ, mQ) in [("xy", (GB, mB, GS, mS)), ("yx", (GS, mS, GB, mB))]:
    y, R, M = sample(GP, mP)
    v = np.maximum(1 - np.exp(eps - loss(y, R, M, GP, mP, GQ, mQ)), 0)
    print(name, "upper %.5f +- %.5f" % (v.mean(), v.std() / math.sqrt(N)))
x = D[row]
u = np.linalg.solve(GS + float(rho(np.array([mB]))[0]) * np.eye(2), x)
_, _, MB = sample(GB, mB)
_, _, MS = sample(GS, mS)
TB, TS = np.sum((MB @ u)**2, axis=1), np.sum((MS @ u)**2, axis=1)
t0 = x @ u
best = max((np.mean(TB > cc) - math.exp(eps) * np.mean(TS > cc), cc)
           for cc in np.linspace(0.01, 20, 400) * t0)
pB, pS = np.mean(TB > best[1]), np.mean(TS > best[1])
se = math.sqrt(pB * (1 - pB) / N + math.exp(2 * eps) * pS * (1 - pS) / N)
print("lower xy best threshold %.5f +- %.5f" % (best[0], se))
