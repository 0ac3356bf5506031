/* Picture and field writers. Each one writes "<path>.tmp-<pid>" and renames it
 * over <path> only when every byte made it, so readers never see half a file. */
#include "image_io.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include <stb/stb_image_write.h>

#include "kernels/common/tmpfiles.h"

const char *ks_image_format_ext(ks_image_format f)
{
    switch (f) {
    case KS_FMT_DEFAULT:
    case KS_FMT_PNG: return "png";
    case KS_FMT_PPM: return "ppm";
    default: return NULL;
    }
}

int ks_image_format_parse(const char *name, ks_image_format *f)
{
    if (name == NULL || f == NULL) return -1;
    if (strcasecmp(name, "png") == 0) {
        *f = KS_FMT_PNG;
        return 0;
    }
    if (strcasecmp(name, "ppm") == 0) {
        *f = KS_FMT_PPM;
        return 0;
    }
    return -1;
}

/* ---- atomic file: temporary name, commit by rename ---------------------- */

typedef struct atomic_file {
    const char *path; /* final name */
    char *tmp;        /* "<path>.tmp-<pid>", malloc'd */
    FILE *fp;
    int err;          /* first errno seen while writing; 0 = fine so far */
    int slot;         /* ks_tmpfiles slot of tmp, -1 when none */
} atomic_file;

static ks_status atomic_open(atomic_file *af, const char *path)
{
    memset(af, 0, sizeof *af);
    af->slot = -1;
    if (path == NULL || path[0] == '\0') return ks_fail(KS_ERR_INVALID, "empty output path");
    af->path = path;
    size_t n = strlen(path) + 32;
    af->tmp = malloc(n);
    if (af->tmp == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", KS_QUOTED(path));
    snprintf(af->tmp, n, "%s.tmp-%ld", path, (long)getpid());
    af->slot = ks_tmpfiles_add(af->tmp); /* before it exists: a quit in between unlinks nothing */
    af->fp = fopen(af->tmp, "wb");
    if (af->fp == NULL) {
        int e = errno;
        ks_tmpfiles_remove(af->slot);
        free(af->tmp);
        af->tmp = NULL;
        return ks_fail(KS_ERR_IO, "cannot write '%s': %s", KS_QUOTED(path), strerror(e));
    }
    return KS_OK;
}

static void atomic_write(atomic_file *af, const void *data, size_t len)
{
    if (af->err != 0 || len == 0) return;
    errno = 0;
    if (fwrite(data, 1, len, af->fp) != len) af->err = errno != 0 ? errno : EIO;
}

/* Drops the temporary file; used on every failure path. */
static void atomic_abort(atomic_file *af)
{
    if (af->fp != NULL) fclose(af->fp);
    if (af->tmp != NULL) unlink(af->tmp);
    ks_tmpfiles_remove(af->slot);
    af->slot = -1;
    free(af->tmp);
    af->fp = NULL;
    af->tmp = NULL;
}

static ks_status atomic_commit(atomic_file *af)
{
    int e = af->err;
    if (e == 0 && fflush(af->fp) != 0) e = errno;
    if (e == 0 && ferror(af->fp)) e = EIO;
    /* fclose can be where a full disk shows up (delayed write) */
    int closed = fclose(af->fp);
    af->fp = NULL;
    if (e == 0 && closed != 0) e = errno;
    if (e == 0 && rename(af->tmp, af->path) != 0) e = errno;
    if (e != 0) {
        atomic_abort(af);
        return ks_fail(KS_ERR_IO, "cannot write '%s': %s", KS_QUOTED(af->path), strerror(e));
    }
    ks_tmpfiles_remove(af->slot);
    af->slot = -1;
    free(af->tmp);
    af->tmp = NULL;
    return KS_OK;
}

/* ---- pictures ----------------------------------------------------------- */

static void png_sink(void *ctx, void *data, int size)
{
    atomic_write(ctx, data, (size_t)size);
}

ks_status ks_image_write(const char *path, ks_image_format f, const unsigned char *rgba, int w,
                         int h)
{
    if (rgba == NULL || w <= 0 || h <= 0)
        return ks_fail(KS_ERR_INVALID, "cannot write '%s': empty image (%d x %d)",
                       KS_QUOTED(path ? path : "(null)"), w, h);
    /* stb takes the row stride as int */
    if ((size_t)w > (size_t)INT_MAX / 4 / (size_t)h)
        return ks_fail(KS_ERR_INVALID, "cannot write '%s': image too large (%d x %d)",
                       KS_QUOTED(path ? path : "(null)"), w, h);
    if (f == KS_FMT_DEFAULT) f = KS_FMT_PNG;
    if (f != KS_FMT_PNG && f != KS_FMT_PPM)
        return ks_fail(KS_ERR_INVALID, "cannot write '%s': unknown image format %d",
                       KS_QUOTED(path ? path : "(null)"), (int)f);

    size_t npix = (size_t)w * (size_t)h;
    unsigned char *rgb = malloc(npix * 3);
    if (rgb == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", KS_QUOTED(path));
    for (size_t i = 0; i < npix; ++i) memcpy(rgb + 3 * i, rgba + 4 * i, 3);

    atomic_file af;
    ks_status st = atomic_open(&af, path);
    if (st != KS_OK) {
        free(rgb);
        return st;
    }
    if (f == KS_FMT_PNG) {
        /* to_func so that our own error tracking sees every write */
        if (!stbi_write_png_to_func(png_sink, &af, w, h, 3, rgb, w * 3) && af.err == 0)
            af.err = ENOMEM; /* stb only fails on allocation */
    } else {
        char head[64];
        int n = snprintf(head, sizeof head, "P6\n%d %d\n255\n", w, h);
        atomic_write(&af, head, (size_t)n);
        atomic_write(&af, rgb, npix * 3);
    }
    free(rgb);
    return atomic_commit(&af);
}

/* ---- NumPy -------------------------------------------------------------- */

ks_status ks_npy_write(const char *path, ks_npy_dtype dtype, const void *data, int ndim, const size_t *shape)
{
    static const struct {
        const char *descr;
        size_t size;
    } types[KS_NPY_DTYPE_NUM] = {[KS_NPY_F32] = {"<f4", 4}, [KS_NPY_U32] = {"<u4", 4}, [KS_NPY_I64] = {"<i8", 8}};
    if ((unsigned)dtype >= KS_NPY_DTYPE_NUM || ndim < 1 || ndim > 3 || shape == NULL || data == NULL)
        return ks_fail(KS_ERR_INVALID, "cannot write '%s': bad array (dtype %d, ndim %d)",
                       KS_QUOTED(path ? path : "(null)"), (int)dtype, ndim);
    const size_t es = types[dtype].size;
    size_t count = 1;
    for (int i = 0; i < ndim; ++i) {
        if (shape[i] != 0 && count > SIZE_MAX / es / shape[i])
            return ks_fail(KS_ERR_INVALID, "cannot write '%s': array too large", KS_QUOTED(path));
        count *= shape[i];
    }

    /* dict text; a 1-D shape needs the trailing comma to be a Python tuple */
    char dims[96];
    if (ndim == 1)
        snprintf(dims, sizeof dims, "(%zu,)", shape[0]);
    else if (ndim == 2)
        snprintf(dims, sizeof dims, "(%zu, %zu)", shape[0], shape[1]);
    else
        snprintf(dims, sizeof dims, "(%zu, %zu, %zu)", shape[0], shape[1], shape[2]);
    char dict[256];
    int dlen = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                        types[dtype].descr, dims);

    /* magic(6) + version(2) + length(2) + dict + padding + '\n' = multiple of 64 */
    enum { PREAMBLE = 10, ALIGN = 64 };
    size_t total = ((size_t)PREAMBLE + (size_t)dlen + 1 + ALIGN - 1) / ALIGN * ALIGN;
    size_t hlen = total - PREAMBLE;
    unsigned char header[PREAMBLE + sizeof dict + ALIGN];
    memcpy(header, "\x93NUMPY", 6);
    header[6] = 1;
    header[7] = 0;
    header[8] = (unsigned char)(hlen & 0xff);
    header[9] = (unsigned char)(hlen >> 8);
    memcpy(header + PREAMBLE, dict, (size_t)dlen);
    memset(header + PREAMBLE + dlen, ' ', hlen - (size_t)dlen - 1);
    header[total - 1] = '\n';

    atomic_file af;
    KS_TRY(atomic_open(&af, path));
    atomic_write(&af, header, total);
    /* explicit little-endian bytes, whatever the host order */
    const unsigned char *in = data;
    unsigned char buf[4096];
    size_t fill = 0;
    for (size_t i = 0; i < count; ++i, in += es) {
        uint64_t u = 0;
        if (es == 4) {
            uint32_t v;
            memcpy(&v, in, 4);
            u = v;
        } else {
            memcpy(&u, in, 8);
        }
        for (size_t b = 0; b < es; ++b) buf[fill++] = (unsigned char)(u >> (8 * b));
        if (fill == sizeof buf) {
            atomic_write(&af, buf, fill);
            fill = 0;
        }
    }
    atomic_write(&af, buf, fill);
    return atomic_commit(&af);
}

ks_status ks_npy_write_f32(const char *path, const float *data, int ndim, const size_t *shape)
{
    return ks_npy_write(path, KS_NPY_F32, data, ndim, shape);
}

/* ---- text --------------------------------------------------------------- */

ks_status ks_text_write(const char *path, const char *text, size_t len)
{
    if (text == NULL && len > 0)
        return ks_fail(KS_ERR_INVALID, "cannot write '%s': no text", KS_QUOTED(path ? path : "(null)"));
    atomic_file af;
    KS_TRY(atomic_open(&af, path));
    atomic_write(&af, text, len);
    return atomic_commit(&af);
}

/* ---- streamed file ------------------------------------------------------- */

struct ks_out_stream {
    atomic_file af;
};

ks_status ks_stream_open(const char *path, ks_out_stream **out)
{
    *out = NULL;
    ks_out_stream *s = malloc(sizeof *s);
    if (s == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", path);
    ks_status st = atomic_open(&s->af, path);
    if (st != KS_OK) {
        free(s);
        return st;
    }
    *out = s;
    return KS_OK;
}

ks_status ks_stream_write(ks_out_stream *s, const char *text, size_t len)
{
    atomic_write(&s->af, text, len);
    if (s->af.err == 0 && fflush(s->af.fp) != 0) s->af.err = errno != 0 ? errno : EIO;
    if (s->af.err != 0)
        return ks_fail(KS_ERR_IO, "cannot write '%s': %s", s->af.path, strerror(s->af.err));
    return KS_OK;
}

ks_status ks_stream_commit(ks_out_stream *s)
{
    if (s == NULL) return KS_OK;
    ks_status st = atomic_commit(&s->af);
    free(s);
    return st;
}

void ks_stream_abort(ks_out_stream *s)
{
    if (s == NULL) return;
    atomic_abort(&s->af);
    free(s);
}

/* ---- output directory ---------------------------------------------------- */

/* mkdir -p: creates each missing component of dir. */
static int make_dirs(const char *dir)
{
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (p == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (p[i] != '/' && p[i] != '\0') continue;
        char saved = p[i];
        p[i] = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            free(p);
            errno = e;
            return -1;
        }
        p[i] = saved;
    }
    free(p);
    return 0;
}

ks_status ks_output_dir_check(const char *dir)
{
    if (dir == NULL || dir[0] == '\0') return ks_fail(KS_ERR_INVALID, "empty output directory");
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT) return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(errno));
        if (make_dirs(dir) != 0)
            return ks_fail(KS_ERR_IO, "cannot create '%s': %s", KS_QUOTED(dir), strerror(errno));
        if (stat(dir, &sb) != 0)
            return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(errno));
    }
    if (!S_ISDIR(sb.st_mode)) return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(ENOTDIR));

    /* a real probe: access(W_OK) says yes to root on read-only mounts and sysfs */
    size_t n = strlen(dir) + 48;
    char *probe = malloc(n);
    if (probe == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory checking '%s'", KS_QUOTED(dir));
    snprintf(probe, n, "%s/.kernelscope-probe-%ld", dir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        int e = errno;
        free(probe);
        return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(e));
    }
    close(fd);
    unlink(probe);
    free(probe);
    return KS_OK;
}

ks_status ks_output_dir_usable(const char *dir)
{
    if (dir == NULL || dir[0] == '\0') return ks_fail(KS_ERR_INVALID, "empty output directory");
    size_t n = strlen(dir);
    char *p = malloc(n + 1);
    if (p == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory checking '%s'", dir);
    memcpy(p, dir, n + 1);
    struct stat sb;
    /* walk up to the nearest folder that exists */
    while (stat(p, &sb) != 0) {
        if (errno != ENOENT) {
            int e = errno;
            free(p);
            return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(e));
        }
        char *slash = strrchr(p, '/');
        while (slash != NULL && slash > p && slash[1] == '\0') { /* trailing slashes */
            *slash = '\0';
            slash = strrchr(p, '/');
        }
        if (slash == NULL) {
            p[0] = '.';
            p[1] = '\0';
        } else if (slash == p) {
            p[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    int ok = S_ISDIR(sb.st_mode) && access(p, W_OK | X_OK) == 0;
    int e = S_ISDIR(sb.st_mode) ? errno : ENOTDIR;
    free(p);
    if (!ok) return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(e));
    return KS_OK;
}

ks_status ks_output_file_usable(const char *path)
{
    if (path == NULL || path[0] == '\0') return ks_fail(KS_ERR_INVALID, "empty output path");
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory checking '%s'", path);
    if (slash == NULL) memcpy(dir, ".", 2);
    else {
        memcpy(dir, slash == path ? "/" : path, n);
        dir[n] = '\0';
    }
    if (slash != NULL && slash[1] == '\0') {
        free(dir);
        return ks_fail(KS_ERR_INVALID, "'%s' names a folder, not a file", path);
    }
    struct stat sb;
    int e = 0;
    if (stat(dir, &sb) != 0) e = errno;
    else if (!S_ISDIR(sb.st_mode)) e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0) e = errno;
    ks_status st = e ? ks_fail(KS_ERR_IO, "cannot write '%s': folder '%s': %s", path, dir, strerror(e))
                     : KS_OK;
    free(dir);
    return st;
}
