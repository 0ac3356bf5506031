/* Writing pictures and fields. Every writer goes to a temporary beside the
 * target first and renames on success (base/out_file.h: created
 * exclusively under a random name, never through a symlink; a replaced file
 * keeps its mode), so a failed or interrupted write leaves nothing. */
#ifndef KS_IMAGE_IO_H
#define KS_IMAGE_IO_H

#include <stddef.h>

#include "base/ks_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ks_image_format { KS_FMT_DEFAULT = 0 /* png */, KS_FMT_PNG, KS_FMT_PPM, KS_FMT_NUM } ks_image_format;

const char *ks_image_format_ext(ks_image_format f); /* "png" / "ppm" */
int ks_image_format_parse(const char *name, ks_image_format *f);
/* rgba: w*h*4 bytes, rows top-down. PNG keeps RGB (alpha dropped); PPM is binary P6. */
ks_status ks_image_write(const char *path, ks_image_format f, const unsigned char *rgba, int w,
                         int h);
/* NumPy .npy version 1.0, C order, shape given (ndim 1..3). data holds the
 * elements in host order (float, uint32_t, int64_t); the file has them
 * little-endian. The one .npy writer: --dump-field of every scene. */
typedef enum ks_npy_dtype {
    KS_NPY_F32 = 0, /* '<f4' (the default) */
    KS_NPY_U32,     /* '<u4' */
    KS_NPY_I64,     /* '<i8' */
    KS_NPY_DTYPE_NUM
} ks_npy_dtype;
ks_status ks_npy_write(const char *path, ks_npy_dtype dtype, const void *data, int ndim, const size_t *shape);
/* ks_npy_write of float32 data. */
ks_status ks_npy_write_f32(const char *path, const float *data, int ndim, const size_t *shape);
/* Writes len bytes of text (CSV etc.) atomically. */
ks_status ks_text_write(const char *path, const char *text, size_t len);
/* A text file written as a run goes (the timings CSV): its temporary gets every
 * write at once (no buffer); commit renames it over path, abort removes it. */
typedef struct ks_out_stream ks_out_stream;
ks_status ks_stream_open(const char *path, ks_out_stream **out);
ks_status ks_stream_write(ks_out_stream *s, const char *text, size_t len);
ks_status ks_stream_commit(ks_out_stream *s); /* frees s; NULL is fine */
void ks_stream_abort(ks_out_stream *s);       /* frees s; NULL is fine */
/* Checks, leaving nothing, that dir is a writable folder or could be created
 * (its nearest existing ancestor is a writable folder). Each check makes a
 * file and removes it: access() says yes to root where no file can be made. */
ks_status ks_output_dir_usable(const char *dir);
/* Checks, leaving nothing, that a file can be written at path (--dump-field, --record). */
ks_status ks_output_file_usable(const char *path);
/* Checks that dir exists (creating it if missing) and is writable; message says why not. */
ks_status ks_output_dir_check(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
