/*
 * msg.c - the one way a message reaches the caller's buffer: every function that can fail
 * takes (msg, msglen) and fills it with this, so a NULL or empty buffer is always allowed.
 */
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>

void ga_msg(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || msglen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}
