/*
 * readfile.h - the one file reader for untrusted inputs (specs and the files they name) and
 * the digest of the bytes read. A file is read with checked I/O, whole or in pieces, under a
 * policy: a size cap and a line-length cap enforced while reading, only regular files
 * (devices, FIFOs, sockets and directories are refused before they are opened blocking), and
 * optionally only inside given directory trees (symlinks resolved, then checked).
 */
#ifndef GA_SPECS_READFILE_H
#define GA_SPECS_READFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t max_bytes;          /* refuse larger files (checked while reading) */
    size_t max_line;           /* refuse lines longer than this (0: no cap) */
    int allow_stream;          /* also read a FIFO or character device (a spec given on the
                                  command line as /dev/stdin); blocking, still capped */
    const char *what;          /* "CSV file", "spec": used in messages */
    /* containment: the resolved path must lie inside one of these directories (none given:
     * no containment check) */
    const char *const *dirs;
    size_t ndirs;
} ga_read_policy;

/*
 * Read the whole file at path into a malloc'ed, NUL-terminated buffer (*buf, *len without the
 * NUL). Returns 0 on success; otherwise GA_EIO (cannot open/read), GA_EINVAL (refused by the
 * policy: not a regular file, outside the allowed directories, a cap exceeded) or GA_ENOMEM,
 * with a message naming the path and the reason; *buf is then NULL. File contents never
 * appear in messages.
 */
int ga_read_file(char **buf, size_t *len, const char *path, const ga_read_policy *pol,
                 char *msg, size_t msglen);

/*
 * The same in pieces. ga_file_open applies the policy (containment, the kind of file, the
 * size cap) and opens the file; ga_file_read reads at most cap bytes (*got = 0 at the end),
 * checking the caps on what it read; ga_file_rewind starts again from the first byte (regular
 * files only: GA_EIO otherwise); ga_file_slurp reads the rest into a malloc'ed NUL-terminated
 * buffer; ga_file_close may be called after a failed open. Returns and messages as above.
 */
typedef struct ga_file {
    int fd;
    int regular;                 /* a regular file (it can be rewound) */
    size_t size;                 /* its size when opened (a hint: it may change) */
    long long mtime_s, mtime_ns; /* its modification time when opened */
    size_t n, linelen, lineno;   /* bytes read since the start; the line-length cap's state */
    const ga_read_policy *pol;
    const char *what;
    char qpath[200];             /* the path, quoted for messages */
} ga_file;
int ga_file_open(ga_file *f, const char *path, const ga_read_policy *pol, char *msg,
                 size_t msglen);
int ga_file_read(ga_file *f, char *buf, size_t cap, size_t *got, char *msg, size_t msglen);
int ga_file_rewind(ga_file *f, char *msg, size_t msglen);
/* Whether a regular file's size or modification time is no longer what they were when it was
 * opened (it was written to while it was read): GA_OK when they are the same (and for a
 * stream), GA_EINVAL with a message when not, GA_EIO when they cannot be read */
int ga_file_changed(const ga_file *f, char *msg, size_t msglen);
int ga_file_slurp(char **buf, size_t *len, ga_file *f, char *msg, size_t msglen);
void ga_file_close(ga_file *f);
/* The size of the pieces the readers that read in pieces ask for (specs: doc.c; CSV:
 * spec.c). 1 MiB; tests set a few bytes so that lines, lists, numbers and multi-byte
 * characters straddle pieces (0 restores the default). Per process. */
size_t ga_file_piece(void);
void ga_file_set_piece(size_t n);

/* SHA-256 of data fed in pieces: init, update any number of times, then the hex digest. */
typedef struct {
    uint32_t K[64], h[8];
    unsigned char buf[64];
    size_t nbuf;
    uint64_t len;
    int portable;
} ga_sha256;
void ga_sha256_init(ga_sha256 *s);
void ga_sha256_update(ga_sha256 *s, const void *data, size_t len);
void ga_sha256_final(ga_sha256 *s, char out[65]);

/* Is the resolved path inside the resolved directory dir? (1 yes, 0 no) */
int ga_path_inside(const char *resolved, const char *dir);

/* SHA-256 of data as 64 lowercase hex digits and a NUL. */
void ga_sha256_hex(char out[65], const unsigned char *data, size_t len);
/* The same without the processor's SHA instructions (for the test that compares the two). */
void ga_sha256_hex_portable(char out[65], const unsigned char *data, size_t len);

/* Copy at most maxchars characters of s into dst (size n), non-printable bytes, quotes and
 * backslashes as \xNN escapes, "..." when cut: a token from an untrusted file, safe to quote
 * in a message. */
void ga_quote_token(char *dst, size_t n, const char *s, size_t maxchars);

#endif
