/* support.c - see support.h. */
#include "tests/support.h"
#include "gaussaudit.h"

#include <arb_hypgeom.h>
#include <ctype.h>

#include <criterion/criterion.h>
#include <errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *ga_test_refdir(void)
{
    return "tests/data"; /* (the repository's own copies, with their provenance there) */
}

void ga_test_load_ref(ga_doc *doc, const char *name)
{
    char path[1024], msg[512];
    snprintf(path, sizeof path, "%s/%s", ga_test_refdir(), name);
    if (ga_doc_load(doc, path, msg, sizeof msg))
        cr_assert_fail("cannot load reference file: %s", msg);
}

double ga_test_gdp_delta(double mu, double eps)
{
    if (!(mu > 0))
        return fmax(0, -expm1(eps));
    return 0.5 * erfc((eps / mu - mu / 2) / M_SQRT2) -
           exp(eps) * 0.5 * erfc((eps / mu + mu / 2) / M_SQRT2);
}

long ga_test_count(long base)
{
    const char *s = getenv("GA_TEST_SCALE");
    double f = s ? atof(s) : 1.0;
    long n = (long)(base * f);
    return n < 1 ? 1 : n;
}

gsl_rng *ga_test_rng(unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    cr_assert(r != NULL);
    gsl_rng_set(r, seed);
    return r;
}

double ga_test_num(const ga_node *n)
{
    cr_assert(n && n->kind == GA_NODE_SCALAR, "expected a number in the reference file");
    char *end;
    double v = strtod(n->text, &end);
    cr_assert(*end == 0, "bad number '%s' at line %d", n->text, n->line);
    return v;
}

void ga_test_decimal_normal(char *out, size_t n, const char *s)
{
    int neg = 0;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    char dig[1200];
    size_t nd = 0;
    long point = -1, ex = 0;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            point = (long)nd;
            continue;
        }
        if (nd < sizeof dig - 1)
            dig[nd++] = *s;
    }
    if (point < 0)
        point = (long)nd;
    if (*s)
        ex = strtol(s + 1, NULL, 10);
    size_t a = 0;
    while (a < nd && dig[a] == '0')
        a++;
    while (nd > a && dig[nd - 1] == '0')
        nd--;
    if (a == nd) {
        snprintf(out, n, "0");
        return;
    }
    dig[nd] = 0;
    snprintf(out, n, "%s0.%se%ld", neg ? "-" : "", dig + a, point - (long)a + ex);
}

size_t ga_test_doubles(double **out, const ga_node *seq)
{
    cr_assert(ga_node_is_list(seq), "expected a list in the reference file");
    double *v = malloc((seq->n ? seq->n : 1) * sizeof *v);
    cr_assert(v != NULL);
    for (size_t i = 0; i < seq->n; i++)
        v[i] = seq->kind == GA_NODE_NUMS ? seq->nums->v[i] : ga_test_num(seq->kids[i]);
    *out = v;
    return seq->n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (n + 1 >= cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb)
                break;
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b)
        b[n] = 0;
    return b;
}

int ga_test_spawn(const char *prefix, const char *args, char **out, char **err)
{
    const char *bin = getenv("GA_BIN");
    if (!bin || !*bin)
        bin = "build/gaussaudit";
    char o[] = "/tmp/ga_test_outXXXXXX", e[] = "/tmp/ga_test_errXXXXXX";
    int fo = mkstemp(o), fe = mkstemp(e);
    cr_assert(fo >= 0 && fe >= 0, "mkstemp failed");
    close(fo);
    close(fe);
    size_t len = strlen(prefix) + strlen(bin) + strlen(args) + 2 * sizeof o + 32;
    char *cmd = malloc(len);
    cr_assert(cmd != NULL);
    snprintf(cmd, len, "%s%s%s %s >%s 2>%s </dev/null", prefix, *prefix ? " " : "", bin, args, o, e);
    int st = system(cmd);
    free(cmd);
    *out = slurp(o);
    *err = slurp(e);
    unlink(o);
    unlink(e);
    cr_assert(st != -1, "could not run: %s %s %s", prefix, bin, args);
    return st;
}

int ga_test_run(const char *args, char **out, char **err)
{
    int st = ga_test_spawn("", args, out, err);
    cr_assert(WIFEXITED(st), "did not exit: %s (status %#x)", args, st);
    return WEXITSTATUS(st);
}

/* ------------------------------------------------------------ a strict JSON checker */

static const char *j_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static const char *j_value(const char *p, int depth);

static const char *j_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (c == 0 || c < 0x20)
            return NULL;
        if (c == '"')
            return p + 1;
        if (c == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 5;
                continue;
            }
            if (!strchr("\"\\/bfnrt", *p) || !*p)
                return NULL;
        }
        p++;
    }
}

static const char *j_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (isdigit((unsigned char)*p))
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p;
}

static const char *j_value(const char *p, int depth)
{
    if (depth > 200)
        return NULL;
    p = j_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int obj = *p == '{';
        p = j_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = j_string(j_ws(p));
                if (!p)
                    return NULL;
                p = j_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = j_value(p, depth + 1);
            if (!p)
                return NULL;
            p = j_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return j_string(p);
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    if (!strncmp(p, "null", 4))
        return p + 4;
    return j_number(p);
}

int ga_test_json_valid(const char *s, size_t *at)
{
    const char *e = j_value(s, 0);
    if (e)
        e = j_ws(e);
    if (e && *e == 0)
        return 1;
    if (at)
        *at = e ? (size_t)(e - s) : 0;
    return 0;
}

/* every test binary links this file: the library's process set-up, once */
__attribute__((constructor)) static void test_init(void)
{
    ga_init();
}

void ga_test_write(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(f != NULL, "cannot write %s", p);
    fputs(text, f);
    cr_assert(fclose(f) == 0, "cannot write %s", p);
}

void ga_test_write_many_pairs_spec(const char *dir, const char *name, int n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(f != NULL, "cannot write %s", p);
    fputs("gaussaudit: 1\nname: op\nmechanism: {kind: bayesian_logistic_regression, lambda: 1, "
          "sigma: 1}\ndataset: {rows: [", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s[%.4f, %.4f, %d]", i ? ", " : "", (i % 101) / 101.0, (i % 17) / 17.0 - 0.5,
                i % 3 == 0);
    fputs("]}\nneighbours: remove_one\nclaim: {epsilon: 1, delta: 1.0e-5}\n", f);
    cr_assert(fclose(f) == 0, "cannot write %s", p);
}

ga_pair *ga_test_masked_pair(double rows, double sigma, double nx, double ny)
{
    ga_masked_input in = {rows, sigma, nx, ny, NULL, NULL, NULL};
    ga_pair *p;
    char msg[256];
    cr_assert(ga_pair_reduce_masked(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

ga_pair *ga_test_synth_pair(double dim, double points, double sigma, double nx, double ny)
{
    ga_synthetic_input in = {dim, points, sigma, nx, ny, NULL, NULL, NULL, 0, 0};
    ga_pair *p;
    char msg[256];
    cr_assert(ga_pair_reduce_synthetic(&p, &in, msg, sizeof msg) == GA_OK, "%s", msg);
    return p;
}

typedef struct {
    double d, m, lam, x;
} synth_pdf_t;

static double synth_pdf_in(double t, void *v)
{
    const synth_pdf_t *p = v;
    double c = t * t, f = c > 0 ? ga_test_ncx2_pdf(p->d, p->lam, p->x / c) : 0;
    return f > 0 ? f * gsl_ran_chisq_pdf(c, p->m) * 2 / t : 0; /* (0 * inf at t -> 0) */
}

double ga_test_synth_pdf(double d, double m, double lam, double x, double rtol,
                         gsl_integration_workspace *w)
{
    synth_pdf_t p = {d, m, lam, x};
    gsl_function F = {synth_pdf_in, &p};
    double a, b, err;
    gsl_integration_qags(&F, 0, 1, 0, rtol, 2000, w, &a, &err);
    gsl_integration_qagiu(&F, 1, 0, rtol, 2000, w, &b, &err);
    return a + b;
}

double ga_test_ncx2_pdf(double nu, double lam, double w)
{
    if (!(w > 0))
        return 0;
    if (lam == 0)
        return gsl_ran_chisq_pdf(w, nu);
    if (nu > 300) { /* GSL's I_v fails at large orders: the Poisson mixture, summed here */
        double s = 0, mu = 0.5 * lam;
        for (int k = 0; k < 400; k++)
            s += gsl_ran_poisson_pdf((unsigned)k, mu) * gsl_ran_chisq_pdf(w, nu + 2 * k);
        return s;
    }
    double v = 0.5 * nu - 1, z = sqrt(lam * w);
    double iv = v >= 0 ? gsl_sf_bessel_Inu_scaled(v, z) : sqrt(2 / (M_PI * z)) * 0.5 * (1 + exp(-2 * z));
    return 0.5 * exp(-0.5 * (w + lam) + z + 0.5 * v * log(w / lam)) * iv;
}

void ga_test_temp_spec(char *path, const char *yaml)
{
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp %s", path);
    FILE *f = fdopen(fd, "w");
    cr_assert(f != NULL);
    fputs(yaml, f);
    cr_assert(fclose(f) == 0, "writing %s", path);
}

void ga_test_gdp_arb(arb_t r, const arb_t mu2, const char *eps)
{
    arb_t m, e, a, b, t;
    arb_init(m); arb_init(e); arb_init(a); arb_init(b); arb_init(t);
    arb_sqrt(m, mu2, 400);
    arb_set_str(e, eps, 400);
    arb_div(t, e, m, 400);
    arb_mul_2exp_si(b, m, -1);
    arb_sub(a, t, b, 400);
    arb_add(b, t, b, 400);
    arb_sqrt_ui(t, 2, 400);
    arb_div(a, a, t, 400);
    arb_div(b, b, t, 400);
    arb_hypgeom_erfc(a, a, 400);
    arb_hypgeom_erfc(b, b, 400);
    arb_exp(t, e, 400);
    arb_mul(b, b, t, 400);
    arb_sub(r, a, b, 400);
    arb_mul_2exp_si(r, r, -1);
    arb_clear(m); arb_clear(e); arb_clear(a); arb_clear(b); arb_clear(t);
}

int ga_test_decimals_contain(const char *lo, const char *hi, const arb_t ref)
{
    arb_t l, h;
    arb_init(l);
    arb_init(h);
    int ok = !arb_set_str(l, lo, 400) && !arb_set_str(h, hi, 400) && arb_le(l, ref) &&
             arb_le(ref, h);
    arb_clear(l);
    arb_clear(h);
    return ok;
}

static double upper_normal(double x) /* P[Z > x] */
{
    return 0.5 * erfc(x / M_SQRT2);
}

double ga_test_normal_pair_delta(double m, double R, double eps, double *err)
{
    double e0;
    if (!err)
        err = &e0;
    *err = 0;
    if (R == 1) {
        if (m == 0)
            return 0;
        double t = fabs(m) / 2 + eps / fabs(m), u = upper_normal(t - fabs(m)), w = exp(eps) * upper_normal(t);
        *err = 1e-14 * (1 + t * t) * (u + w);
        return fmax(u - w, 0);
    }
    double A = R - 1, B = 2 * m, C = -(m * m + R * log(R) + 2 * R * eps);
    double disc = B * B - 4 * A * C, sr = sqrt(R);
    if (disc <= 0)
        return A > 0 ? fmax(1 - exp(eps), 0) : 0;
    double r1 = (-B - sqrt(disc)) / (2 * A), r2 = (-B + sqrt(disc)) / (2 * A);
    double a = fmin(r1, r2), b = fmax(r1, r2);
    double px, py;
    if (A > 0) {
        px = (1 - upper_normal((a - m) / sr)) + upper_normal((b - m) / sr);
        py = exp(eps) * ((1 - upper_normal(a)) + upper_normal(b));
    } else {
        px = upper_normal((a - m) / sr) - upper_normal((b - m) / sr);
        py = exp(eps) * (upper_normal(a) - upper_normal(b));
    }
    /* (each tail rounded to a few ulps of itself, or of 1 where it is taken from 1; a
     * relative rounding u of a tail's argument x moves the tail by about x^2 u of itself) */
    double x2 = fmax(fmax(a * a, b * b), fmax((a - m) * (a - m), (b - m) * (b - m)) / R);
    *err = 1e-14 * (1 + x2) * (px + py) + (A > 0 ? 1e-16 * (1 + exp(eps)) : 0);
    return fmax(px - py, 0);
}

