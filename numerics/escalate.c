/*
 * escalate.c - the one precision-escalation loop of the certified computations.
 *
 * In the manner of FLINT/Arb's accuracy-checking wrappers: a ball computation is run at a
 * working precision, its result's accuracy is checked, and the precision is doubled until the
 * result is accurate enough, the computation reports that more precision cannot help (its
 * width is set by something else: a linear-algebra widening, a tail bound), the precision cap
 * of the options is passed, or the deadline of the options passes. Every result computed on
 * the way is an enclosure, so stopping early (cap, deadline) never invalidates what the caller
 * keeps; it only widens it. Every certified module calls this loop, so the options (cap,
 * deadline) are honoured in one place.
 */
#include "numerics/arb.h"

int ga_arb_escalate(slong *used, ga_arb_step step, void *ctx, slong start, slong cap,
                    double deadline)
{
    int rc = GA_EPREC;
    if (start < 2)
        start = 2;
    for (slong prec = start; prec <= cap; prec *= 2) {
        if (ga_expired(deadline))
            return GA_ETIME;
        if (used)
            *used = prec;
        rc = ga_arb_guarded(step, ctx, prec); /* (FLINT out of memory: GA_ENOMEM) */
        if (rc == GA_EPREC)
            continue;
        return rc == GA_ARB_STALLED ? GA_EPREC : rc;
    }
    return ga_expired(deadline) ? GA_ETIME : GA_EPREC;
}

int ga_arb_stalled(slong *best, int *stalls, const arb_t v)
{
    if (!arb_is_finite(v))
        return 0;
    slong bits = arb_rel_accuracy_bits(v);
    if (bits > *best) {
        *best = bits;
        *stalls = 0;
    } else {
        ++*stalls;
    }
    return *stalls >= 2;
}
