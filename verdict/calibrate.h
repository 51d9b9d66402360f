/*
 * calibrate.h - the calibration result behind gaussaudit.h's ga_calibration (verdict layer;
 * rendered by reports/calibration.c).
 */
#ifndef GA_VERDICT_CALIBRATE_H
#define GA_VERDICT_CALIBRATE_H

#include "catalogue/catalogue.h"

#define GA_CAL_MAX_PUBLISHED 8

struct ga_calibration {
    ga_spec spec;         /* the loaded spec */
    ga_pairset set;       /* its pairs (rebuilt at the published values' needs) */
    const char *knob;     /* the kind table's noise parameter (as displayed) */
    char knob_text[96];   /* "parts[K].sigma" when one part is tuned */
    double eps, delta, value, ub, lb;
    size_t part;          /* the composition part tuned (0: every part, one factor) */
    int certified;
    int cerr;             /* 0, 1 (the certified check did not confirm), 2 (too many pairs),
                             3 (the deadline passed before the check) */
    char pub[2048];       /* the published calibrations as text lines */
    ga_mech_published pv[GA_CAL_MAX_PUBLISHED];
    size_t np;
};

#endif
