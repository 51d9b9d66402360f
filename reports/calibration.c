/*
 * calibration.c - the calibration result (verdict/calibrate.c) as text or JSON.
 */
#include "reports/report.h"
#include "verdict/calibrate.h"
#include "numerics/numerics.h"

#include <math.h>
#include <stdio.h>

/* Are all the audited pairs lower bounds of a release's (post-processings, no proven worst
 * case)? Then the value found is necessary, not sufficient. */
static int all_lower(const ga_pairset *set)
{
    if (set->verified || set->fam.n || !set->npairs)
        return 0;
    for (size_t i = 0; i < set->npairs; i++)
        if (!set->pairs[i].lower)
            return 0;
    return 1;
}

static void cal_json(FILE *out, const ga_calibration *c)
{
    const ga_spec *sp = &c->spec;
    ga_jw j;
    ga_jw_init(&j, out);
    ga_jw_obj(&j, NULL);
    ga_jw_str(&j, "spec", sp->path);
    ga_jw_str(&j, "kind", sp->kind);
    ga_jw_str(&j, "knob", c->knob);
    ga_jw_num(&j, "epsilon", c->eps);
    ga_jw_num(&j, "delta", c->delta);
    ga_jw_num(&j, "value", c->value);
    ga_jw_str(&j, "scope", c->set.verified ? (c->set.verified_bound ? "upper bound" : "proven worst case")
                           : all_lower(&c->set) ? "lower bounds"
                                                : "audited pairs");
    ga_jw_bool(&j, "certified", c->certified);
    ga_jw_obj(&j, "check");
    ga_jw_num(&j, "upper_at_value", c->ub);
    ga_jw_num(&j, "lower_below", c->lb);
    ga_jw_obj_end(&j);
    ga_jw_arr(&j, "published");
    for (size_t i = 0; i < c->np; i++) {
        const ga_mech_published *pv = &c->pv[i];
        ga_jw_obj(&j, NULL);
        ga_jw_str(&j, "name", pv->name);
        ga_jw_num(&j, "value", pv->value);
        if (!isnan(pv->leverage)) {
            ga_jw_num(&j, "leverage", pv->leverage);
            ga_jw_num(&j, "exact_leverage", pv->exact_leverage);
        }
        ga_jw_obj_end(&j);
    }
    ga_jw_arr_end(&j);
    ga_jw_obj_end(&j);
}

static void cal_text(FILE *out, const ga_calibration *c)
{
    const ga_spec *sp = &c->spec;
    ga_calibration_info info;
    ga_calibration_get(&info, c);
    /* the value to the last digit of its double (shortest round trip): a value cut to fewer
     * digits may fall below the certified one, and the claim then fails at the printed value */
    char vs[40], ls[40];
    ga_fmt_shortest(vs, sizeof vs, c->value);
    ga_fmt_shortest(ls, sizeof ls, c->value * (1 - 1e-6));
    fprintf(out, "spec: %s (%s)\nsmallest %s for (%g, %g)-DP on %s: %s\n", sp->name, sp->kind,
            c->knob, c->eps, c->delta,
            c->set.verified ? (c->set.verified_bound ? "an upper bound of every neighbour "
                                                 "(sufficient; the exact smallest may be lower)"
                                               : "the proven worst case (so every neighbour)")
                         : all_lower(&c->set) ? "the audited lower bounds (necessary: below it a "
                                                "neighbour attains more; the exact smallest may be "
                                                "higher)"
                                              : "the audited pairs",
            vs);
    if (c->certified && c->value == 0) {
        char bu[32];
        ga_fmt_bound(bu, sizeof bu, c->ub, 1, 10);
        fprintf(out, "certified: delta <= %s with no noise at all\n", bu);
    } else if (c->certified) {
        char bu[32], bl[32];
        ga_fmt_bound(bu, sizeof bu, c->ub, 1, 10); /* outward: still bounds as printed */
        ga_fmt_bound(bl, sizeof bl, c->lb, 0, 10);
        fprintf(out, "certified: delta <= %s at %s = %s, delta >= %s at %s (1e-6 lower)\n",
                bu, c->knob, vs, bl, ls);
    } else {
        fprintf(out, "not certified (%s); the value is an estimate\n", info.note);
    }
    if (c->pub[0])
        fprintf(out, "published calibrations:\n%s", c->pub);
}

int ga_calibration_write(FILE *out, const ga_calibration *c, int format)
{
    if (format == GA_FORMAT_JSON)
        cal_json(out, c);
    else if (format == GA_FORMAT_TEXT)
        cal_text(out, c);
    else
        return GA_EINVAL;
    return ferror(out) ? GA_EIO : GA_OK;
}
