/*
 * support.h - helpers shared by the Criterion test files: the shared reference values,
 * the random-loop scale, seeded RNGs, and running the command-line tool.
 */
#ifndef GA_TESTS_SUPPORT_H
#define GA_TESTS_SUPPORT_H

#include "gaussaudit.h"
#include "specs/doc.h"

#include <arb.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_rng.h>
#include <stddef.h>

/* The directory of the reference values the repository carries (tests/data). */
const char *ga_test_refdir(void);
/* Load REFDIR/name into doc; aborts the test with a message on failure. */
void ga_test_load_ref(ga_doc *doc, const char *name);
/* delta(eps) of the Gaussian mechanism at mean shift mu (mu-GDP's curve), in double, written
 * independently of the library: Q(eps/mu - mu/2) - e^eps Q(eps/mu + mu/2), Q the normal's
 * upper tail from erfc; for mu = 0 (equal laws) max(0, 1 - e^eps). */
double ga_test_gdp_delta(double mu, double eps);
/* Number of random cases: base times GA_TEST_SCALE (default 1), at least 1. */
long ga_test_count(long base);
/* A seeded RNG (seed printed by failing tests); free with gsl_rng_free. */
gsl_rng *ga_test_rng(unsigned long seed);
/* Parse a list-of-numbers node into a malloc'ed array; returns its length. */
size_t ga_test_doubles(double **out, const ga_node *seq);
/* Number value of a scalar node that may be a quoted string ("0.123"). */
double ga_test_num(const ga_node *n);
/* The exact value of a plain decimal text as a normal form, sign, significant digits and
 * exponent ("-0.15e2" for -15.0; zero is "0"), written independently of base/decimal.c:
 * two texts denote the same number exactly when their forms are equal. */
void ga_test_decimal_normal(char *out, size_t n, const char *s);

/*
 * Run the gaussaudit binary (env GA_BIN, default build/gaussaudit) with the shell argument
 * string args; capture stdout and stderr into malloc'ed strings. Returns the exit status.
 */
int ga_test_run(const char *args, char **out, char **err);
/* The same with a shell prefix before the program (e.g. "VAR=value exec": with exec, no
 * shell stands between, so a signal is the program's own); returns system()'s raw status. */
int ga_test_spawn(const char *prefix, const char *args, char **out, char **err);

/* Write yaml to a new temporary file named by the mkstemp template path (e.g.
 * "/tmp/ga_specXXXXXX", filled in); aborts the test on failure. The caller unlinks it. */
void ga_test_temp_spec(char *path, const char *yaml);

/* Write text to DIR/NAME (aborts the test on failure). */
void ga_test_write(const char *dir, const char *name, const char *text);

/* DIR/NAME: a bayesian_logistic_regression spec over n rows, remove_one neighbours (many
 * cheap pairs, each a Newton solve over all rows: 20000 of them take seconds, the input the
 * --timeout tests stop between pairs; ridge kinds' neighbours are updates, too fast for it). */
void ga_test_write_many_pairs_spec(const char *dir, const char *name, int n);

/* Is s one valid JSON value (RFC 8259: objects, arrays, strings with escapes and no raw
 * control characters, numbers by the JSON grammar, true/false/null) followed only by
 * whitespace? 1 yes; 0 no, with the offset of the first error in *at. */
int ga_test_json_valid(const char *s, size_t *at);

/* The noncentral chi-square density (nu degrees of freedom, noncentrality lam) in its Bessel-I
 * form, e^{-(w + lam)/2} (w/lam)^{nu/4 - 1/2} I_{nu/2 - 1}(sqrt(lam w)) / 2 (GSL's scaled I;
 * nu = 1 through I_{-1/2}; nu > 300 as a Poisson mixture of chi-square densities): the
 * independent reference of the noncentral chi-square tests. */
double ga_test_ncx2_pdf(double nu, double lam, double w);

/* The density at x of S C, S ~ chi^2_d(lam) (ga_test_ncx2_pdf) and C ~ chi^2_m independent:
 * int f_S(x / c) g_m(c) / c dc with c = t^2 (g_1 is singular at 0), by GSL's qags on t in
 * [0, 1] and qagiu beyond, each to relative rtol with a workspace of 2000 intervals (GSL's
 * roundoff reports at that accuracy ignored: the value is still right to about it): the
 * independent reference of the synthetic-points tests. */
double ga_test_synth_pdf(double d, double m, double lam, double x, double rtol,
                         gsl_integration_workspace *w);

/* A masked pair (rows, sigma, |x|, |x'|) and a synthetic-points pair (dim, points, sigma,
 * |theta|, |theta'|) from the public makers, asserted to build. */
ga_pair *ga_test_masked_pair(double rows, double sigma, double nx, double ny);
ga_pair *ga_test_synth_pair(double dim, double points, double sigma, double nx, double ny);

/* The mu-GDP profile delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) at mu^2 =
 * mu2 (a ball), eps a decimal, in Arb at 400 bits: the closed form the certified Gaussian
 * intervals are checked against. */
void ga_test_gdp_arb(arb_t r, const arb_t mu2, const char *eps);
/* Do the outward decimal bounds [lo, hi] contain every point of the ball ref? Decided in Arb
 * (a double cannot see a miss of 1e-18 relative). */
int ga_test_decimals_contain(const char *lo, const char *hi, const arb_t ref);

/* delta of N(m, R) against N(0, 1) at eps in closed form (double, libm's erfc): the event
 * {loss > eps} from the log-likelihood ratio's quadratic (R - 1) x^2 + 2 m x - (m^2 + R log R
 * + 2 R eps) > 0, outside its roots (R > 1), between them (R < 1), a half-line (R = 1);
 * *err (if not NULL) a rounding error estimate (the subtracted tails' roundings, each a
 * relative 1e-14 (1 + x^2) at its argument x). */
double ga_test_normal_pair_delta(double m, double R, double eps, double *err);

#endif
