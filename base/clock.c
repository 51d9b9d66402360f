/*
 * clock.c - the monotonic clock that --timeout deadlines are measured on: a deadline is a
 * time in these seconds (0: none), so a deadline set by one layer is checked by any other.
 */
#include "base/base.h"

#include <time.h>

double ga_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ga_expired(double deadline)
{
    return deadline > 0 && ga_monotonic() > deadline;
}
