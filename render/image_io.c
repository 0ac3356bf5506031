/* Picture and field writers. Each one writes a temporary beside <path>
 * (base/out_file.h) and renames it over <path> only when every byte
 * made it, so readers never see half a file. */
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

#include "base/out_file.h"

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

/* ---- whole files: base/out_file.h -------------------------------- */

/* A failed write is not reported here: the file keeps the first failure, and
 * ks_out_file_commit reports it (and removes the temporary). */
static void sink_write(ks_out_file *f, const void *data, size_t len)
{
    (void)ks_out_file_write(f, data, len);
}

static ks_status out_open(const char *path, ks_out_file **f)
{
    return ks_out_file_open(&(ks_out_file_desc){.path = path}, f);
}

/* ---- pictures ----------------------------------------------------------- */

static void png_sink(void *ctx, void *data, int size)
{
    sink_write(ctx, data, (size_t)size);
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

    ks_out_file *out = NULL;
    ks_status st = out_open(path, &out);
    if (st != KS_OK) {
        free(rgb);
        return st;
    }
    if (f == KS_FMT_PNG) {
        /* to_func so that our own error tracking sees every write */
        if (!stbi_write_png_to_func(png_sink, out, w, h, 3, rgb, w * 3))
            ks_out_file_set_error(out, ENOMEM); /* stb only fails on allocation */
    } else {
        char head[64];
        int n = snprintf(head, sizeof head, "P6\n%d %d\n255\n", w, h);
        sink_write(out, head, (size_t)n);
        sink_write(out, rgb, npix * 3);
    }
    free(rgb);
    return ks_out_file_commit(out);
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

    ks_out_file *out = NULL;
    KS_TRY(out_open(path, &out));
    sink_write(out, header, total);
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
            sink_write(out, buf, fill);
            fill = 0;
        }
    }
    sink_write(out, buf, fill);
    return ks_out_file_commit(out);
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
    ks_out_file *out = NULL;
    KS_TRY(out_open(path, &out));
    sink_write(out, text, len);
    return ks_out_file_commit(out);
}

/* ---- streamed file ------------------------------------------------------- */

struct ks_out_stream {
    ks_out_file *file;
};

ks_status ks_stream_open(const char *path, ks_out_stream **out)
{
    *out = NULL;
    ks_out_stream *s = malloc(sizeof *s);
    if (s == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", KS_QUOTED(path));
    ks_status st = out_open(path, &s->file);
    if (st != KS_OK) {
        free(s);
        return st;
    }
    *out = s;
    return KS_OK;
}

/* No buffer of ours: each row is in the file as soon as it is written. */
ks_status ks_stream_write(ks_out_stream *s, const char *text, size_t len)
{
    return ks_out_file_write(s->file, text, len);
}

ks_status ks_stream_commit(ks_out_stream *s)
{
    if (s == NULL) return KS_OK;
    ks_status st = ks_out_file_commit(s->file);
    free(s);
    return st;
}

void ks_stream_abort(ks_out_stream *s)
{
    if (s == NULL) return;
    ks_out_file_abort(s->file);
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

/* A file made in dir and removed: a real try, since access(W_OK) says yes to
 * root on sysfs. 0, or an errno value. */
static int probe_folder(const char *dir)
{
    const size_t n = strlen(dir) + sizeof "/.kernelscope-probe";
    char *probe = malloc(n);
    if (probe == NULL) return ENOMEM;
    snprintf(probe, n, "%s/.kernelscope-probe", dir);
    const int e = ks_out_file_probe(probe);
    free(probe);
    return e;
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

    const int e = probe_folder(dir);
    if (e != 0) return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(e));
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
    /* the folder itself, or the one the missing ones would be made in, must take a file */
    const int e = S_ISDIR(sb.st_mode) ? probe_folder(p) : ENOTDIR;
    free(p);
    if (e != 0) return ks_fail(KS_ERR_IO, "cannot write to '%s': %s", KS_QUOTED(dir), strerror(e));
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
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) { /* the rename at the end would fail */
        free(dir);
        return ks_fail(KS_ERR_INVALID, "'%s' is a folder, not a file", KS_QUOTED(path));
    }
    int e = 0;
    if (stat(dir, &sb) != 0) e = errno;
    else if (!S_ISDIR(sb.st_mode)) e = ENOTDIR;
    else e = ks_out_file_probe(path); /* where the writer's own temporary will go */
    ks_status st = e ? ks_fail(KS_ERR_IO, "cannot write '%s': folder '%s': %s", KS_QUOTED(path), KS_QUOTED(dir),
                               strerror(e))
                     : KS_OK;
    free(dir);
    return st;
}
