#include "app/best_config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/image_io.h"

static const char ks_best_magic[] = "# kernelscope best-config v1";

ks_status ks_best_path(char *buf, size_t len)
{
    const char *explicit_path = getenv("KS_BEST_CONFIG");
    int n;
    if (explicit_path && *explicit_path) {
        n = snprintf(buf, len, "%s", explicit_path);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg) n = snprintf(buf, len, "%s/kernelscope/best-config.tsv", xdg);
        else if (home && *home) n = snprintf(buf, len, "%s/.cache/kernelscope/best-config.tsv", home);
        else return ks_fail(KS_ERR_IO, "no place for the best-config file (set HOME or KS_BEST_CONFIG)");
    }
    if (n < 0 || (size_t)n >= len) return ks_fail(KS_ERR_IO, "best-config path too long");
    return KS_OK;
}

enum {
    KS_BEST_FILE_MAX = 1 << 20, /* bytes: a store of KS_BEST_MAX entries is about 160 KiB */
    KS_BEST_DIM_MAX = 1 << 16,  /* grid points per axis, as on the command line */
};

/* Strict positive int: digits only (no sign, no spaces), in [lo, hi]. */
static int parse_dim(const char *text, long lo, long hi, int *out)
{
    if (*text < '0' || *text > '9') return 0;
    errno = 0;
    char *end = NULL;
    const long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

/* "AxBxC", each in [lo, hi]. */
static int parse_triple(const char *text, long lo, long hi, int out[3])
{
    char buf[64];
    if (strlen(text) >= sizeof buf) return 0;
    strcpy(buf, text);
    char *p = buf;
    for (int k = 0; k < 3; ++k) {
        char *x = k < 2 ? strchr(p, 'x') : NULL;
        if (k < 2 && !x) return 0;
        if (x) *x = '\0';
        if (!parse_dim(p, lo, hi, &out[k])) return 0;
        p = x ? x + 1 : p;
    }
    return 1;
}

/* One data line: device \t scene \t variant \t grid \t block \t ms \t gbs */
static int parse_line(char *line, ks_best_entry *e)
{
    char *fields[8];
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, "\t", &save); tok && n < 8; tok = strtok_r(NULL, "\t", &save))
        fields[n++] = tok;
    if (n != 7) return 0;
    if (strlen(fields[0]) >= sizeof e->device || strlen(fields[1]) >= sizeof e->scene ||
        strlen(fields[2]) >= sizeof e->variant)
        return 0;
    memset(e, 0, sizeof *e);
    strcpy(e->device, fields[0]);
    strcpy(e->scene, fields[1]);
    strcpy(e->variant, fields[2]);
    char *end;
    errno = 0;
    e->ms_per_iter = strtod(fields[5], &end);
    /* a nanosecond .. 11 days per iteration; 0 .. 1e9 GB/s: anything else is not a measurement */
    if (errno || end == fields[5] || *end || !(e->ms_per_iter >= 1e-6 && e->ms_per_iter <= 1e9)) return 0;
    errno = 0;
    e->t_eff_gbs = strtod(fields[6], &end);
    if (errno || end == fields[6] || *end || !(e->t_eff_gbs >= 0 && e->t_eff_gbs <= 1e9)) return 0;
    if (!parse_triple(fields[3], 1, KS_BEST_DIM_MAX, e->grid)) return 0;
    if ((double)e->grid[0] * e->grid[1] * e->grid[2] > 68719476736.0) return 0; /* 2^36 points */
    if (!parse_triple(fields[4], 1, 1024, e->block)) return 0;
    return (long)e->block[0] * e->block[1] * e->block[2] <= 1024;
}

/* Reads a regular file of at most KS_BEST_FILE_MAX bytes into a malloc'ed,
 * NUL-terminated buffer. Returns 1 with *text set, 0 when the file is absent
 * (no notice), -1 when it is ignored (notice written). Opened non-blocking,
 * so a FIFO or a device at the path cannot hang the app. */
static int read_store(const char *path, const char *shown, char **text, size_t *text_len,
                      char *notice, size_t notice_len)
{
    *text = NULL;
    *text_len = 0;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT) return 0; /* nothing measured yet */
        snprintf(notice, notice_len, "best-config '%s': cannot open (%s); ignoring it", shown,
                 errno == ELOOP ? "a loop of symbolic links" : strerror(errno));
        return -1;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0) why = strerror(errno);
    else if (!S_ISREG(st.st_mode)) why = "not a regular file";
    else if (st.st_size == 0) why = "empty file";
    else if (st.st_size > KS_BEST_FILE_MAX) why = "larger than 1 MiB";
    if (why) {
        close(fd);
        snprintf(notice, notice_len, "best-config '%s': %s; ignoring it", shown, why);
        return -1;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t len = 0;
    while (buf && len < (size_t)st.st_size) {
        const ssize_t got = read(fd, buf + len, (size_t)st.st_size - len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; /* error, or the file shrank while read */
        len += (size_t)got;
    }
    close(fd);
    if (!buf || len == 0) {
        free(buf);
        snprintf(notice, notice_len, "best-config '%s': cannot read it; ignoring it", shown);
        return -1;
    }
    buf[len] = '\0';
    *text = buf;
    *text_len = len;
    return 1;
}

void ks_best_load(const char *path, ks_best_store *store, char *notice, size_t notice_len)
{
    store->count = 0;
    notice[0] = '\0';
    char shown[KS_QUOTE_MAX];
    ks_quote(path, shown, sizeof shown);
    char *text = NULL;
    size_t text_len = 0;
    if (read_store(path, shown, &text, &text_len, notice, notice_len) <= 0) return;
    int lineno = 0, dropped = 0, entries = 0;
    const char *const text_end = text + text_len;
    for (char *line = text, *next; line < text_end; line = next) {
        char *nl = memchr(line, '\n', (size_t)(text_end - line));
        next = nl ? nl + 1 : (char *)text_end;
        if (nl) *nl = '\0';
        ++lineno;
        size_t len = strlen(line);
        if (len != (size_t)((nl ? nl : text_end) - line) || len >= 1024) goto corrupt; /* a NUL byte, or too long */
        while (len && line[len - 1] == '\r') line[--len] = '\0';
        if (lineno == 1) {
            if (strcmp(line, ks_best_magic) != 0) goto corrupt;
            continue;
        }
        if (len == 0 || line[0] == '#') continue;
        ks_best_entry e;
        if (!parse_line(line, &e)) goto corrupt;
        if (store->known && !store->known(e.scene, e.variant)) {
            ++dropped; /* stale: a variant this build no longer has */
            continue;
        }
        ++entries;
        if (store->count < KS_BEST_MAX) store->entries[store->count++] = e;
    }
    free(text);
    if (entries > KS_BEST_MAX)
        snprintf(notice, notice_len,
                 "best-config '%s': %d entries, kept the first %d (%d lines read)%s", shown,
                 entries, KS_BEST_MAX, lineno, dropped ? "; stale entries ignored too" : "");
    else if (dropped)
        snprintf(notice, notice_len, "best-config '%s': ignored %d stale entr%s (unknown kernels)",
                 shown, dropped, dropped == 1 ? "y" : "ies");
    return;
corrupt:
    free(text);
    store->count = 0;
    snprintf(notice, notice_len,
             "best-config '%s': line %d is not in the expected format; ignoring the file (delete it "
             "or re-run kernelscope bench)",
             shown, lineno);
}

static double grid_distance(const int a[3], const int b[3])
{
    const double pa = (double)a[0] * a[1] * a[2], pb = (double)b[0] * b[1] * b[2];
    return fabs(log(pa / pb));
}

const ks_best_entry *ks_best_find(const ks_best_store *store, const char *device,
                                  const char *scene, const char *variant, const int grid[3])
{
    const ks_best_entry *best = NULL;
    double best_dist = INFINITY;
    for (int i = 0; i < store->count; ++i) {
        const ks_best_entry *e = &store->entries[i];
        if (strcmp(e->device, device) || strcmp(e->scene, scene)) continue;
        if (variant && strcmp(e->variant, variant)) continue;
        const double d = grid_distance(e->grid, grid);
        /* nearest grid first; among equals, the fastest per iteration */
        if (!best || d < best_dist - 1e-9 ||
            (fabs(d - best_dist) <= 1e-9 && e->ms_per_iter < best->ms_per_iter)) {
            best = e;
            best_dist = d;
        }
    }
    return best;
}

void ks_best_put(ks_best_store *store, const ks_best_entry *entry)
{
    for (int i = 0; i < store->count; ++i) {
        ks_best_entry *e = &store->entries[i];
        if (!strcmp(e->device, entry->device) && !strcmp(e->scene, entry->scene) &&
            !strcmp(e->variant, entry->variant) && !memcmp(e->grid, entry->grid, sizeof e->grid)) {
            *e = *entry;
            return;
        }
    }
    if (store->count < KS_BEST_MAX) store->entries[store->count++] = *entry;
}

static ks_status make_parent_dir(const char *path)
{
    char dir[1024];
    if (strlen(path) >= sizeof dir) return ks_fail(KS_ERR_IO, "best-config path too long");
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return KS_OK;
    *slash = '\0';
    for (char *p = dir + 1; *p; ++p) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return ks_fail(KS_ERR_IO, "cannot create '%s': %s", KS_QUOTED(dir), strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return ks_fail(KS_ERR_IO, "cannot create '%s': %s", KS_QUOTED(dir), strerror(errno));
    return KS_OK;
}

ks_status ks_best_save(const char *path, const ks_best_store *store)
{
    KS_TRY(make_parent_dir(path));
    const size_t cap = 128 + (size_t)store->count * 512; /* a line is at most ~372 bytes */
    char *text = malloc(cap);
    if (!text) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    size_t used = (size_t)snprintf(text, cap, "%s\n# device\tscene\tvariant\tgrid\tblock\tms_per_iter\tt_eff_gbs\n",
                                   ks_best_magic);
    for (int i = 0; i < store->count; ++i) {
        const ks_best_entry *e = &store->entries[i];
        used += (size_t)snprintf(text + used, cap - used, "%s\t%s\t%s\t%dx%dx%d\t%dx%dx%d\t%.9g\t%.9g\n",
                                 e->device, e->scene, e->variant, e->grid[0], e->grid[1], e->grid[2],
                                 e->block[0], e->block[1], e->block[2], e->ms_per_iter, e->t_eff_gbs);
    }
    ks_status st = ks_text_write(path, text, used);
    free(text);
    return st;
}
