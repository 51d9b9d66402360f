/*
 * mem.c - large arrays that are written in full right after they are allocated (a CSV
 * file's values, per-pair results), faulted in ahead; and arrays grown by doubling.
 *
 * Why: a fresh large block is mapped lazily, and its first write takes one page fault per
 * 4 KiB page. On a virtual machine a fault costs about 10 us (measured on the 2-core test
 * machine: 40 ms to touch 16 MB page by page), which was a tenth of the remove-one audit of a
 * 100,000 x 20 sketch. Asking the kernel to back the block with huge pages where it can
 * (MADV_HUGEPAGE: 2 MiB pages under the common "madvise" setting of transparent huge pages)
 * and to map it writable at once (MADV_POPULATE_WRITE, Linux 5.14) takes 2 to 5 ms for the
 * same 16 MB.
 *
 * Advice only: the block's contents and the program's results do not change; where the
 * kernel lacks either request, or refuses it, the pages fault one by one as before. Only
 * the whole pages inside the caller's block are advised, so the allocator's neighbouring
 * blocks and headers are not touched. The pages populated are those the caller is about to
 * write, so no memory is committed that would not be.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "base/base.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* below this, the block is likely in pages already faulted in (and a system call costs
 * more than the few faults saved) */
#define GA_MEM_PREFAULT_MIN ((size_t)256 << 10)

static void prefault(void *p, size_t bytes, int huge)
{
    if (!p || bytes < GA_MEM_PREFAULT_MIN)
        return;
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t pg = ps > 0 ? (uintptr_t)ps : 4096;
    uintptr_t a = ((uintptr_t)p + pg - 1) / pg * pg, e = ((uintptr_t)p + bytes) / pg * pg;
    if (e <= a)
        return;
#ifdef MADV_HUGEPAGE
    if (huge)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* (advice: a refusal changes nothing) */
#else
    (void)huge;
#endif
#ifdef MADV_POPULATE_WRITE
    (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#endif
}

void ga_mem_prefault(void *p, size_t bytes)
{
    prefault(p, bytes, 1);
}

void ga_mem_populate(void *p, size_t bytes)
{
    prefault(p, bytes, 0);
}

void *ga_grow(void *p, size_t *cap, size_t elem, size_t first)
{
    size_t n = *cap ? *cap : first;
    if (*cap && n > SIZE_MAX / 2 / elem)
        return NULL;
    n = *cap ? 2 * n : n;
    if (n == 0 || n > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, n * elem);
    if (q)
        *cap = n;
    return q;
}
