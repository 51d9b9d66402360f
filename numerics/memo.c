/*
 * memo.c - a thread's memory of recent results of expensive pure computations.
 *
 * An audit asks the same value more than once (a claim's verdict, its witness and its table
 * row at the same eps; the pairs of the add and the remove relation, whose losses are one
 * another's reverse), and some values cost a convolution of half a million points. The memo
 * lives in the per-thread workspace (no locks) and keeps the last GA_MEMO_SLOTS results, keyed
 * by the bytes of everything the result depends on: recalling one is exactly computing it
 * again, so results do not depend on --jobs or on the order of evaluations.
 */
#include "numerics/numerics.h"

#include <string.h>

int ga_memo_get(double *val, size_t nval, int *status, const ga_memo *m, const void *key,
                size_t klen)
{
    if (klen == 0 || klen > GA_MEMO_KEY || nval > 4)
        return 0;
    for (size_t i = 0; i < GA_MEMO_SLOTS; i++)
        if (m->klen[i] == klen && memcmp(m->key[i], key, klen) == 0) {
            memcpy(val, m->val[i], nval * sizeof *val);
            *status = m->status[i];
            return 1;
        }
    return 0;
}

void ga_memo_put(ga_memo *m, const void *key, size_t klen, const double *val, size_t nval,
                 int status)
{
    if (klen == 0 || klen > GA_MEMO_KEY || nval > 4)
        return;
    size_t i = 0;
    while (i < GA_MEMO_SLOTS && !(m->klen[i] == klen && memcmp(m->key[i], key, klen) == 0))
        i++;
    if (i == GA_MEMO_SLOTS) { /* a new key: in the oldest slot */
        i = m->next;
        m->next = (i + 1) % GA_MEMO_SLOTS;
    }
    memcpy(m->key[i], key, klen);
    m->klen[i] = klen;
    memset(m->val[i], 0, sizeof m->val[i]);
    memcpy(m->val[i], val, nval * sizeof *val);
    m->status[i] = status;
}
