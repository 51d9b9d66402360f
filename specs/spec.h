/*
 * spec.h - the YAML spec language (DESIGN section 8; full reference in specs/README.md).
 * A spec describes one mechanism and the claim to audit; loading it yields the list of
 * neighbouring Gaussian pairs to audit, each with the exact decimal text of its numbers.
 */
#ifndef GA_SPECS_SPEC_H
#define GA_SPECS_SPEC_H

#include "gaussaudit.h"
#include "specs/doc.h"

#include <stddef.h>

/* One neighbouring pair: X = output on D, Y = output on the neighbour D'. */
typedef struct {
    char *name;
    size_t d;
    double columns;
    double *mu_x, *mu_y, *s_x, *s_y;        /* d, d, d*d, d*d (row-major) */
    const char **mu_x_txt, **mu_y_txt;      /* exact decimal text (into the doc) */
    const char **s_x_txt, **s_y_txt;
    int line;                               /* where the pair is defined */
    char where[160];                        /* "pairs[3] (line 12)" for messages */
} ga_spec_pair;

typedef struct {
    int has_eps_delta;
    double epsilon, delta;
    const char *epsilon_txt, *delta_txt;
    size_t nprofile;
    double *profile;   /* nprofile (eps, delta) pairs */
    size_t nrdp;
    double *rdp;       /* nrdp (alpha, eps_alpha) pairs */
    int has_zcdp, has_gdp;
    double zcdp_rho, gdp_mu;
} ga_spec_claim;

typedef struct {
    ga_doc doc;
    char *path;
    const char *name;      /* into the doc */
    const char *kind;      /* mechanism kind */
    size_t npairs;
    ga_spec_pair *pairs;
    ga_spec_claim claim;
} ga_spec;

/*
 * Load and validate a spec. On error returns GA_EINVAL (or GA_EIO, GA_ENOMEM) with a message
 * "FILE:LINE:COL: key.path: what is wrong" (unknown keys get a "did you mean" hint).
 */
int ga_spec_load(ga_spec *s, const char *path, char *msg, size_t msglen);
/* The same from text (name is used in messages). */
int ga_spec_parse(ga_spec *s, const char *text, size_t len, const char *name, char *msg,
                  size_t msglen);
void ga_spec_clear(ga_spec *s);

/* Input for ga_pair_reduce from a spec pair (field labels point into the pair). */
void ga_spec_pair_input(ga_pair_input *in, const ga_spec_pair *p, char labels[4][200]);

#endif
