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
 * A block can be faulted in by parts, one per thread (ga_mem_populate_part: the parts' bounds
 * are multiples of 2 MiB, so each maps whole huge pages of a block advised at once): a fresh
 * page of a virtual machine can also cost a fault of its host, and the threads share them.
 *
 * Advice only: the block's contents and the program's results do not change; where the
 * kernel lacks either request, or refuses it, the pages fault one by one as written. Only
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

/* huge pages' size on x86-64 and arm64 (4 KiB base pages), the parts' boundaries */
#define GA_MEM_HUGE ((uintptr_t)2 << 20)

/* the whole pages inside [p, p + bytes): [*a, *e), 0 when there are none or the block is
 * smaller than the advice is worth */
static int whole_pages(const void *p, size_t bytes, uintptr_t *a, uintptr_t *e)
{
    if (!p || bytes < GA_MEM_PREFAULT_MIN)
        return 0;
    long ps = sysconf(_SC_PAGESIZE);
    uintptr_t pg = ps > 0 ? (uintptr_t)ps : 4096;
    *a = ((uintptr_t)p + pg - 1) / pg * pg;
    *e = ((uintptr_t)p + bytes) / pg * pg;
    return *e > *a;
}

void ga_mem_advise_huge(void *p, size_t bytes)
{
    uintptr_t a, e;
    if (!whole_pages(p, bytes, &a, &e))
        return;
#ifdef MADV_HUGEPAGE
    (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* (advice: a refusal changes nothing) */
#endif
}

void ga_mem_populate(void *p, size_t bytes)
{
    uintptr_t a, e;
    if (!whole_pages(p, bytes, &a, &e))
        return;
#ifdef MADV_POPULATE_WRITE
    (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#endif
}

void ga_mem_prefault(void *p, size_t bytes)
{
    ga_mem_advise_huge(p, bytes);
    ga_mem_populate(p, bytes);
}

size_t ga_mem_parts(size_t bytes, size_t most)
{
    size_t n = bytes / GA_MEM_HUGE;
    n = n < most ? n : most;
    return n ? n : 1;
}

void ga_mem_populate_part(void *p, size_t bytes, size_t i, size_t n)
{
    if (i >= n)
        return;
    uintptr_t a = (uintptr_t)p, e = a + bytes, huge = (e - a) / n / GA_MEM_HUGE;
    /* part i: from the i-th boundary (a multiple of 2 MiB) to the next, the last to the end */
    uintptr_t lo = i ? (a + i * huge * GA_MEM_HUGE) / GA_MEM_HUGE * GA_MEM_HUGE : a;
    uintptr_t hi = i + 1 < n ? (a + (i + 1) * huge * GA_MEM_HUGE) / GA_MEM_HUGE * GA_MEM_HUGE : e;
    if (hi > lo)
        ga_mem_populate((void *)lo, (size_t)(hi - lo));
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
