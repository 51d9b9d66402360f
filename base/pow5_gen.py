#!/usr/bin/env python3
"""pow5_gen.py - writes base/pow5.h, the table of powers of five base/decimal.c reads decimals
with: for each q in [-342, 308], 5^q = (T + f) 2^e with T a 128-bit integer in [2^127, 2^128)
and 0 <= f < 1 (T the truncation; exact, f = 0, for 0 <= q <= 55), stored as its high and
low 64 bits and e. Computed with Python's exact integers and fractions.

Run from the top directory: python3 base/pow5_gen.py (the output is committed, so building
needs no Python).
"""
from fractions import Fraction

QMIN, QMAX = -342, 308


def entry(q):
    v = Fraction(5) ** q
    # e with 2^127 <= v / 2^e < 2^128
    e = v.numerator.bit_length() - v.denominator.bit_length() - 127
    while v / Fraction(2) ** e >= 2 ** 128:
        e += 1
    while v / Fraction(2) ** e < 2 ** 127:
        e -= 1
    t = v / Fraction(2) ** e
    T = t.numerator // t.denominator
    assert 2 ** 127 <= T < 2 ** 128
    return T >> 64, T & (2 ** 64 - 1), e


def main():
    lines = [
        "/* pow5.h - written by base/pow5_gen.py (do not edit): for q = -342 .. 308,",
        " * 5^q = (T + f) 2^e with T = hi 2^64 + lo in [2^127, 2^128) and 0 <= f < 1, at",
        " * ga_pow5[q + 342]. */",
        "#define GA_POW5_QMIN (%d)" % QMIN,
        "#define GA_POW5_QMAX %d" % QMAX,
        "static const struct {",
        "    uint64_t hi, lo;",
        "    int e;",
        "} ga_pow5[%d] = {" % (QMAX - QMIN + 1),
    ]
    for q in range(QMIN, QMAX + 1):
        hi, lo, e = entry(q)
        lines.append("    {UINT64_C(0x%016x), UINT64_C(0x%016x), %d}," % (hi, lo, e))
    lines.append("};")
    with open("base/pow5.h", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
