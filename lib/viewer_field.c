/* A field shown (ks_viewer_show): its layout checked (strides in bytes,
 * broadcasts, a slice of a 3D field), the picture's size chosen and the slice
 * sampled into the picture's floats, on the caller's thread for host memory
 * (lib/viewer_sample.h) or on its stream for device memory (lib/viewer_gpu.h);
 * then handed to the viewer's thread, the newest field winning. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_error.h"
#include "lib/kernelscope.h"
#include "lib/viewer_gpu.h"
#include "lib/viewer_internal.h"
#include "lib/viewer_sample.h"

static size_t dtype_bytes(ks_viewer_dtype t)
{
    return t == KS_VIEWER_F64 ? 8 : t == KS_VIEWER_U8 ? 1 : 4;
}

/* |x| as an unsigned number (LLONG_MIN too). */
static unsigned long long magnitude(long long x)
{
    return x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
}

/* The field's strides in bytes (KS_VIEWER_BROADCAST as 0, a 0 as the axis before's stride times its
 * size), and a check that every point's address can be computed: the bytes the points reach below data
 * and above it, each |stride| * (size - 1) added up, span at most PTRDIFF_MAX bytes and stay inside
 * the address space. The library cannot know the buffer's size; it can refuse what no buffer could hold. */
static ks_status field_strides(const ks_viewer_field *f, long long elem, long long stride[3])
{
    unsigned long long below = 0, above = (unsigned long long)elem;
    for (int a = 0; a < f->dims; ++a) {
        long long st = f->stride[a];
        if (st == KS_VIEWER_BROADCAST) {
            st = 0;
        } else if (st == 0 && a > 0) {
            if (stride[a - 1] == 0)
                return ks_fail(KS_ERR_INVALID, "ks_viewer_show: stride[%d] is 0 (packed) after a broadcast axis: "
                                               "give it in bytes", a);
            if (__builtin_mul_overflow(stride[a - 1], f->size[a - 1], &st))
                return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the packed stride of axis %d overflows (sizes %lld x "
                                               "%lld x %lld)", a, f->size[0], f->size[1], f->size[2]);
        } else if (st == 0) {
            st = elem;
        }
        stride[a] = st;
        unsigned long long reach = 0;
        if (__builtin_mul_overflow(magnitude(st), (unsigned long long)(f->size[a] - 1), &reach) ||
            __builtin_add_overflow(st < 0 ? below : above, reach, st < 0 ? &below : &above) ||
            below > (unsigned long long)PTRDIFF_MAX || above > (unsigned long long)PTRDIFF_MAX ||
            below + above > (unsigned long long)PTRDIFF_MAX) /* each < 2^63 there: the sum cannot wrap */
            return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the field's extent overflows (size[%d] = %lld, stride "
                                           "%lld bytes)", a, f->size[a], st);
    }
    const uintptr_t at = (uintptr_t)f->data;
    if (at < below || UINTPTR_MAX - at < above)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the field runs off the address space (%llu bytes below data, "
                                       "%llu above)", below, above);
    if (f->memory == KS_VIEWER_DEVICE) { /* the kernel loads each point as its type: a misaligned one would fault */
        int aligned = at % (uintptr_t)elem == 0;
        for (int a = 0; a < f->dims; ++a) aligned = aligned && stride[a] % elem == 0;
        if (!aligned)
            return ks_fail(KS_ERR_INVALID, "ks_viewer_show: a field in device memory must be aligned: data and "
                                           "strides multiples of %lld bytes (make a contiguous copy)", elem);
    }
    return KS_OK;
}

static ks_status check_field(const ks_viewer_field *f, ks_vslice *s)
{
    if (!f) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: no field");
    if (f->memory != KS_VIEWER_HOST && f->memory != KS_VIEWER_DEVICE) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: unknown memory kind %d", (int)f->memory);
    if (f->dtype < KS_VIEWER_F32 || f->dtype > KS_VIEWER_I32)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: unknown dtype %d", (int)f->dtype);
    if (f->dims != 2 && f->dims != 3) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: dims must be 2 or 3, not %d", f->dims);
    if (!f->data) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: the field has no data");
    for (int a = 0; a < f->dims; ++a)
        if (f->size[a] < 1 || f->size[a] > (1LL << 31))
            return ks_fail(KS_ERR_INVALID, "ks_viewer_show: size[%d] = %lld (1 .. 2^31)", a, f->size[a]);
    long long stride[3] = {0, 0, 0};
    KS_TRY(field_strides(f, (long long)dtype_bytes(f->dtype), stride));
    const unsigned char *base = f->data;
    const int t = (int)f->dtype;
    if (f->dims == 2) {
        *s = (ks_vslice){base, f->size[0], f->size[1], stride[0], stride[1], t};
        return KS_OK;
    }
    if (f->slice_axis < 0 || f->slice_axis > 2)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: slice_axis %d (0: z, 1: x, 2: y)", f->slice_axis);
    const int across = f->slice_axis == 0 ? 2 : f->slice_axis == 1 ? 0 : 1; /* the axis the slice cuts */
    const long long n = f->size[across];
    if (f->slice < 0 || f->slice > n)
        return ks_fail(KS_ERR_INVALID, "ks_viewer_show: slice %lld of %lld (counted from 1; 0: the middle)", f->slice, n);
    const long long index = f->slice ? f->slice - 1 : n / 2;
    base += index * stride[across]; /* inside the reach checked above */
    if (across == 2) *s = (ks_vslice){base, f->size[0], f->size[1], stride[0], stride[1], t};
    else if (across == 0) *s = (ks_vslice){base, f->size[1], f->size[2], stride[1], stride[2], t};
    else *s = (ks_vslice){base, f->size[0], f->size[2], stride[0], stride[2], t};
    return KS_OK;
}

/* The picture's size for a slice of w x h cells: the whole slice when it
 * fits, else scaled down to fit, the aspect kept. */
static void picture_size(const ks_viewer *v, long long w, long long h, int *pw, int *ph)
{
    double scale = 1.0;
    if (w > v->max_w) scale = (double)v->max_w / (double)w;
    if (h * scale > v->max_h) scale = (double)v->max_h / (double)h;
    *pw = (int)fmax(1.0, floor((double)w * scale + 0.5));
    *ph = (int)fmax(1.0, floor((double)h * scale + 0.5));
    if (*pw > w) *pw = (int)w;
    if (*ph > h) *ph = (int)h;
}

/* One picture pixel's cells along an axis: [lo, end) (ks_vslice_pixel's rule). */
typedef struct cell_span {
    long long lo, end;
} cell_span;

static cell_span span_of(long long cells, int pixels, int p, long long step)
{
    const long long lo = (long long)p * cells / pixels, hi = (long long)(p + 1) * cells / pixels;
    return (cell_span){lo, step == 0 || hi <= lo ? lo + 1 : hi};
}

/* A row of w cells, one a pixel (the picture is the slice's own size): the
 * mean of one cell, 0.0 + its value (as the sum starts: -0 becomes +0). */
static void copy_row(const unsigned char *p, long long step, int dtype, int w, float *out)
{
    if (dtype == KS_VIEWER_F32) { /* the common case, without the type's switch in the loop */
        for (int x = 0; x < w; ++x, p += step) {
            float f;
            memcpy(&f, p, sizeof f);
            out[x] = (float)(0.0 + (double)f);
        }
        return;
    }
    for (int x = 0; x < w; ++x, p += step) out[x] = (float)(0.0 + ks_vslice_value(p, dtype));
}

/* The host's picture of s: ks_vslice_pixel's value for every pixel (lib/viewer_sample.h: the same
 * cells, summed in the same order), with each column's cells found once rather than per pixel and
 * a slice of the picture's own size copied row by row, so that a 1024^2 field costs its caller a
 * copy rather than four divisions a pixel. */
static void sample(ks_vslice s, int pw, int ph, float *out)
{
    cell_span *cols = malloc((size_t)pw * sizeof *cols);
    if (!cols) { /* no room for the table: pixel by pixel */
        for (int py = 0; py < ph; ++py)
            for (int px = 0; px < pw; ++px) out[(size_t)py * (size_t)pw + (size_t)px] = ks_vslice_pixel(s, pw, ph, px, py);
        return;
    }
    int one_cell = 1;
    for (int px = 0; px < pw; ++px) {
        cols[px] = span_of(s.w, pw, px, s.step_x);
        one_cell &= cols[px].lo == px && cols[px].end == px + 1;
    }
    const unsigned char *base = (const unsigned char *)s.base;
    for (int py = 0; py < ph; ++py) {
        const cell_span rows = span_of(s.h, ph, ph - 1 - py, s.step_y); /* y grows upward */
        float *row = out + (size_t)py * (size_t)pw;
        if (one_cell && rows.end == rows.lo + 1) {
            copy_row(base + rows.lo * s.step_y, s.step_x, s.dtype, pw, row);
            continue;
        }
        for (int px = 0; px < pw; ++px) {
            const cell_span c = cols[px];
            double sum = 0.0;
            for (long long y = rows.lo; y < rows.end; ++y)
                for (long long x = c.lo; x < c.end; ++x) sum += ks_vslice_value(base + x * s.step_x + y * s.step_y, s.dtype);
            row[px] = (float)(sum / (double)((rows.end - rows.lo) * (c.end - c.lo)));
        }
    }
    free(cols);
}

/* The newest field for the thread (lock held): a host field's floats, or a device field's slot. What it
 * supersedes is dropped: a host picture freed, a device slot marked for the thread to wait for, then free. */
static void hand_over(ks_viewer *v, float *host, int dev_slot, int pw, int ph)
{
    free(v->pending);
    v->pending = host;
    if (v->dev_pending >= 0) v->dev_stale |= 1u << v->dev_pending; /* its copy may still be in flight */
    v->dev_pending = dev_slot;
    v->pending_w = pw;
    v->pending_h = ph;
    ++v->shown;
    pthread_cond_signal(&v->wake);
}

/* A field in device memory: its picture sampled and copied on the caller's
 * stream, into a free slot; with none free the field is dropped. */
static ks_status show_device(ks_viewer *v, const ks_viewer_field *f, ks_vslice s, int pw, int ph)
{
    const ks_vgpu_job job = {s, pw, ph, f->stream};
    pthread_mutex_lock(&v->lock);
    ks_status st = v->gpu ? KS_OK : ks_vgpu_create(&v->gpu);
    int slot = -1;
    if (st == KS_OK) st = ks_vgpu_enqueue(v->gpu, &job, &slot);
    if (st == KS_OK && slot >= 0) hand_over(v, NULL, slot, pw, ph);
    pthread_mutex_unlock(&v->lock);
    return st;
}

static ks_status show(ks_viewer *v, const ks_viewer_field *f)
{
    if (!v) return ks_fail(KS_ERR_INVALID, "ks_viewer_show: no viewer");
    ks_vslice s = {0};
    KS_TRY(check_field(f, &s));
    int pw, ph;
    picture_size(v, s.w, s.h, &pw, &ph);
    if (f->memory == KS_VIEWER_DEVICE) return show_device(v, f, s, pw, ph);
    const size_t n = (size_t)pw * (size_t)ph;
    float *buf = malloc(n * sizeof *buf);
    if (!buf) return ks_fail(KS_ERR_OUT_OF_MEMORY, "ks_viewer_show: out of host memory for a %d x %d picture", pw, ph);
    sample(s, pw, ph, buf);
    pthread_mutex_lock(&v->lock);
    hand_over(v, buf, -1, pw, ph); /* a field not yet drawn is dropped: the newest wins */
    pthread_mutex_unlock(&v->lock);
    return KS_OK;
}

int ks_viewer_show(ks_viewer *v, const ks_viewer_field *field) { return ks_vw_result(show(v, field)); }
