/*
 * floor.h - the reading floor shared by the bench programs (bench_scale, bench_spec): the
 * file read whole and every number in it scanned with strtod, the least a reader of decimal
 * text can do. Included, not linked: each bench is one program.
 */
#ifndef GA_BENCH_FLOOR_H
#define GA_BENCH_FLOOR_H

#include <stdio.h>
#include <stdlib.h>

/* Read path whole and add up every number strtod finds (into *sum, so the scan cannot be
 * optimised away). Returns the file's length, or -1 when it cannot be read. */
static long strtod_floor(const char *path, double *sum)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
        free(text);
        fclose(f);
        return -1;
    }
    text[len] = 0;
    fclose(f);
    for (const char *s = text; *s;) {
        if ((*s >= '0' && *s <= '9') || *s == '-') {
            char *e;
            *sum += strtod(s, &e);
            s = e > s ? e : s + 1;
        } else {
            s++;
        }
    }
    free(text);
    return len;
}

#endif
