/*
 * readfile.c - the one reader for untrusted files.
 *
 * A spec names files (CSV datasets); a spec from a stranger must not make the auditing
 * machine read its secrets, block on a FIFO, or fill its memory from /dev/zero. So:
 *   - the path is resolved (realpath: symlinks and ".." gone) and, when the policy names
 *     directories, must lie inside one of them;
 *   - it is stat'ed before it is opened: anything but a regular file is refused without
 *     opening it (a FIFO with no writer would block in open; a device may have side effects);
 *     it is then opened O_NONBLOCK and fstat'ed again (the file may have been swapped);
 *   - it is read with read(2) checked, and the byte and line-length caps are applied while
 *     reading, so a huge file costs at most the cap; it is read whole (ga_read_file) or in
 *     pieces (ga_file_read: a large spec is parsed as it is read, specs/doc.c);
 *   - messages name the path and the cap, never the file's contents.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "specs/readfile.h"
#include "gaussaudit.h"
#include "numerics/numerics.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ga_quote_token(char *dst, size_t n, const char *s, size_t maxchars)
{
    size_t k = 0, i = 0;
    if (!n)
        return;
    for (; s[i] && i < maxchars; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '\'' && ch != '"') {
            if (k + 2 > n)
                break;
            dst[k++] = (char)ch;
        } else {
            if (k + 5 > n)
                break;
            snprintf(dst + k, n - k, "\\x%02x", ch);
            k += 4;
        }
    }
    if (s[i] && k + 4 <= n) {
        memcpy(dst + k, "...", 3);
        k += 3;
    }
    dst[k] = 0;
}

int ga_path_inside(const char *resolved, const char *dir)
{
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
        l--;
    if (strncmp(resolved, dir, l))
        return 0;
    return resolved[l] == 0 || resolved[l] == '/' || (l == 1 && dir[0] == '/');
}

static const char *kind_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (pipe)";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* the caps on the bytes just read (f->n counts them): 0, or GA_EINVAL with a message */
static int check_caps(ga_file *f, const char *b, size_t r, char *msg, size_t msglen)
{
    const ga_read_policy *pol = f->pol;
    /* line by line (memchr: a large file is read at the speed of memory), f->linelen <=
     * max_line between calls */
    for (const char *p = b, *end = b + r; pol->max_line && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t seg = (size_t)((nl ? nl : end) - p);
        if (seg > pol->max_line - f->linelen) {
            ga_msg(msg, msglen, "%s '%s': line %zu is longer than the cap of %zu bytes",
                   f->what, f->qpath, f->lineno, pol->max_line);
            return GA_EINVAL;
        }
        if (nl) {
            f->linelen = 0;
            f->lineno++;
            p = nl + 1;
        } else {
            f->linelen += seg;
            p = end;
        }
    }
    f->n += r;
    if (f->n > pol->max_bytes) {
        ga_msg(msg, msglen, "%s '%s' has more than the cap of %zu bytes", f->what, f->qpath,
               pol->max_bytes);
        return GA_EINVAL;
    }
    return GA_OK;
}

static size_t piece_size = (size_t)1 << 20;

size_t ga_file_piece(void)
{
    return piece_size;
}

void ga_file_set_piece(size_t n)
{
    piece_size = n ? n : (size_t)1 << 20;
}

int ga_file_open(ga_file *f, const char *path, const ga_read_policy *pol, char *msg,
                 size_t msglen)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->pol = pol;
    f->what = pol->what ? pol->what : "file";
    f->lineno = 1;
    ga_quote_token(f->qpath, sizeof f->qpath, path, 160);
    const char *what = f->what, *qpath = f->qpath;
    int fd = -1, rc = GA_OK;
    /* the resolved path is what is checked and opened (no second lookup of a symlink) */
    char *real = pol->ndirs ? realpath(path, NULL) : strdup(path);
    if (!real) {
        ga_msg(msg, msglen, "cannot open %s '%s': %s", what, qpath, strerror(errno));
        return GA_EIO;
    }
    if (pol->ndirs) {
        int ok = 0;
        for (size_t i = 0; i < pol->ndirs && !ok; i++) {
            char *d = realpath(pol->dirs[i], NULL);
            ok = d && ga_path_inside(real, d);
            free(d);
        }
        if (!ok) {
            char qreal[200];
            ga_quote_token(qreal, sizeof qreal, real, 160);
            ga_msg(msg, msglen, "%s '%s' (resolved: '%s') is outside the spec's directory tree; "
                   "a spec reads only files inside its own directory unless --allow-path DIR "
                   "allows more", what, qpath, qreal);
            rc = GA_EINVAL;
            goto cleanup;
        }
    }
    struct stat st;
    if (stat(real, &st)) {
        ga_msg(msg, msglen, "cannot open %s '%s': %s", what, qpath, strerror(errno));
        rc = GA_EIO;
        goto cleanup;
    }
    int stream = pol->allow_stream && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
    if (!S_ISREG(st.st_mode) && !stream) {
        ga_msg(msg, msglen, "%s '%s' is %s; only regular files are read", what, qpath,
               kind_name(st.st_mode));
        rc = GA_EINVAL;
        goto cleanup;
    }
    fd = open(real, O_RDONLY | O_NOCTTY | O_CLOEXEC | (stream ? 0 : O_NONBLOCK));
    if (fd < 0 || fstat(fd, &st)) {
        ga_msg(msg, msglen, "cannot open %s '%s': %s", what, qpath, strerror(errno));
        rc = GA_EIO;
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode) && !(stream && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))) {
        ga_msg(msg, msglen, "%s '%s' is %s; only regular files are read", what, qpath,
               kind_name(st.st_mode));
        rc = GA_EINVAL;
        goto cleanup;
    }
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > pol->max_bytes) {
        ga_msg(msg, msglen, "%s '%s' has %lld bytes, more than the cap of %zu", what, qpath,
               (long long)st.st_size, pol->max_bytes);
        rc = GA_EINVAL;
        goto cleanup;
    }
    f->regular = S_ISREG(st.st_mode);
    f->size = f->regular ? (size_t)st.st_size : 0;
    f->mtime_s = (long long)st.st_mtim.tv_sec;
    f->mtime_ns = (long long)st.st_mtim.tv_nsec;
    f->fd = fd;
    fd = -1;
cleanup:
    if (fd >= 0)
        close(fd);
    free(real);
    return rc;
}

int ga_file_read(ga_file *f, char *buf, size_t cap, size_t *got, char *msg, size_t msglen)
{
    *got = 0;
    for (;;) {
        ssize_t r = read(f->fd, buf, cap);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            ga_msg(msg, msglen, "%s '%s': read error: %s", f->what, f->qpath, strerror(errno));
            return GA_EIO;
        }
        *got = (size_t)r;
        return check_caps(f, buf, (size_t)r, msg, msglen);
    }
}

int ga_file_rewind(ga_file *f, char *msg, size_t msglen)
{
    if (!f->regular || lseek(f->fd, 0, SEEK_SET) != 0) {
        ga_msg(msg, msglen, "%s '%s': cannot read it again from the start", f->what, f->qpath);
        return GA_EIO;
    }
    f->n = f->linelen = 0;
    f->lineno = 1;
    return GA_OK;
}

int ga_file_changed(const ga_file *f, char *msg, size_t msglen)
{
    struct stat st;
    if (!f->regular)
        return GA_OK;
    if (fstat(f->fd, &st)) {
        ga_msg(msg, msglen, "%s '%s': %s", f->what, f->qpath, strerror(errno));
        return GA_EIO;
    }
    if ((size_t)st.st_size != f->size || (long long)st.st_mtim.tv_sec != f->mtime_s ||
        (long long)st.st_mtim.tv_nsec != f->mtime_ns) {
        ga_msg(msg, msglen, "%s '%s' changed while it was read (its size or modification "
               "time): read it again once it is written", f->what, f->qpath);
        return GA_EINVAL;
    }
    return GA_OK;
}

void ga_file_close(ga_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

int ga_file_slurp(char **buf, size_t *len, ga_file *f, char *msg, size_t msglen)
{
    /* the size is a hint only (the file may grow while it is read): the caps are checked on
     * the bytes actually read */
    const ga_read_policy *pol = f->pol;
    size_t cap = f->size + 1 < 65536 ? 65536 : f->size + 1, n = 0;
    int rc = GA_OK;
    char *b = malloc(cap);
    *buf = NULL;
    *len = 0;
    if (!b) {
        ga_msg(msg, msglen, "%s '%s': out of memory for %zu bytes", f->what, f->qpath, cap);
        return GA_ENOMEM;
    }
    for (;;) {
        if (n + 1 >= cap) {
            size_t nc = cap > pol->max_bytes / 2 ? pol->max_bytes + 2 : 2 * cap;
            char *nb = realloc(b, nc);
            if (!nb) {
                ga_msg(msg, msglen, "%s '%s': out of memory for %zu bytes", f->what, f->qpath,
                       nc);
                rc = GA_ENOMEM;
                goto cleanup;
            }
            b = nb;
            cap = nc;
        }
        size_t r;
        if ((rc = ga_file_read(f, b + n, cap - n - 1, &r, msg, msglen)))
            goto cleanup;
        if (r == 0)
            break;
        n += r;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    b = NULL;
cleanup:
    free(b);
    return rc;
}

int ga_read_file(char **buf, size_t *len, const char *path, const ga_read_policy *pol,
                 char *msg, size_t msglen)
{
    ga_file f;
    *buf = NULL;
    *len = 0;
    int rc = ga_file_open(&f, path, pol, msg, msglen);
    if (rc == GA_OK)
        rc = ga_file_slurp(buf, len, &f, msg, msglen);
    ga_file_close(&f);
    return rc;
}
