/*
 * type_product.c - the product type: independent blocks released together (a composition),
 * each a Gaussian pair. The privacy loss is the sum of the blocks' losses, so delta and its
 * certificate work on the summed loss forms as for one Gaussian pair (type_gaussian.c);
 * Renyi divergences, and their certified enclosures, are the sums of the blocks'.
 */
#include "pair/cert_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the divergences of independent blocks add */
static int product_renyi(ga_result *xy, ga_result *yx, const ga_pair *p, double alpha)
{
    xy->val = yx->val = xy->err = yx->err = 0;
    for (size_t b = 0; b < p->nblocks; b++) {
        ga_result bx, by;
        ga_pair_renyi(&bx, &by, p->blocks[b], alpha);
        xy->val += bx.val;
        yx->val += by.val;
        xy->err += bx.err + 2 * DBL_EPSILON * fabs(xy->val);
        yx->err += by.err + 2 * DBL_EPSILON * fabs(yx->val);
    }
    if (!isfinite(xy->val))
        xy->err = 0;
    if (!isfinite(yx->val))
        yx->err = 0;
    return GA_OK;
}

/* a product's divergences are the sums of its blocks': the enclosures are summed with the
 * rounding of the double sums bounded (n terms: relative (n + 1) eps, the terms >= 0) */
static int renyi_cert_product(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                              const ga_pair_input *in, const ga_pair_text *txt,
                              const char *alpha_txt, const ga_cert_opts *opts)
{
    double lx = 0, hx = 0, ly = 0, hy = 0;
    int rc = GA_OK;
    for (size_t b = 0; b < p->nblocks; b++) {
        ga_interval bx, by;
        int st = ga_pair_renyi_cert(&bx, &by, p->blocks[b], in + b, txt ? txt + b : NULL,
                                    alpha_txt, opts);
        if (st != GA_OK && st != GA_EPREC && st != GA_ETIME)
            return st;
        if (st != GA_OK && rc == GA_OK)
            rc = st;
        lx += fmax(bx.lo, 0);
        hx += bx.hi;
        ly += fmax(by.lo, 0);
        hy += by.hi;
    }
    double f = (double)(p->nblocks + 1) * DBL_EPSILON;
    xy->lo = lx * (1 - f);
    yx->lo = ly * (1 - f);
    xy->hi = hx * (1 + f);
    yx->hi = hy * (1 + f);
    return rc;
}

static int product_renyi_cert(ga_interval *xy, ga_interval *yx, const ga_pair *p,
                              const ga_pair_input *in, const ga_pair_text *txt,
                              const char *alpha_txt, const ga_cert_opts *opts)
{
    if (p->support != GA_SUPPORT_FULL)
        return GA_EDOM;
    return renyi_cert_product(xy, yx, p, in, txt, alpha_txt, opts);
}

static void product_free(ga_pair *p)
{
    for (size_t b = 0; b < p->nblocks; b++)
        ga_pair_free(p->blocks[b]);
    free(p->blocks);
}

const ga_pair_type ga_pair_type_product = {
    "product", pr_gaussian_delta, product_renyi, pr_gaussian_delta_cert, product_renyi_cert,
    pr_gaussian_event, product_free, NULL, NULL, PR_METHODS_GAUSS, NULL,
    NULL,
    0,
};
