/* The CPU JPEG encoder: one TurboJPEG compressor and one output buffer of the
 * worst-case size, both made at create. */
#include "jpeg_cpu.h"

#include <stdlib.h>

#include <turbojpeg.h>

struct ks_jpeg_cpu {
    ks_jpeg_desc desc;       /* defaults filled */
    tjhandle tj;             /* compressor; not to be shared between threads */
    unsigned char *out;      /* tjAlloc'd, out_cap bytes */
    unsigned long out_cap;   /* tjBufSize of the largest picture at 4:2:0 */
};

ks_status ks_jpeg_cpu_create(const ks_jpeg_desc *desc, ks_jpeg_cpu **out)
{
    *out = NULL;
    const ks_jpeg_desc d = ks_jpeg_desc_defaults(desc);
    KS_TRY(ks_jpeg_desc_check(&d));
    ks_jpeg_cpu *e = calloc(1, sizeof *e);
    if (!e) return ks_fail(KS_ERR_OUT_OF_MEMORY, "CPU JPEG encoder: out of host memory");
    e->desc = d;
    e->tj = tjInitCompress();
    if (!e->tj) {
        free(e);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "CPU JPEG encoder: tjInitCompress failed: %s",
                       tjGetErrorStr2(NULL));
    }
    e->out_cap = tjBufSize(d.max_width, d.max_height, TJSAMP_420);
    e->out = e->out_cap != (unsigned long)-1 ? tjAlloc((int)e->out_cap) : NULL;
    if (!e->out) {
        const unsigned long cap = e->out_cap;
        ks_jpeg_cpu_destroy(e);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "CPU JPEG encoder: cannot allocate its %lu-byte output buffer", cap);
    }
    *out = e;
    return KS_OK;
}

void ks_jpeg_cpu_destroy(ks_jpeg_cpu *e)
{
    if (!e) return;
    if (e->out) tjFree(e->out);
    if (e->tj) tjDestroy(e->tj);
    free(e);
}

ks_status ks_jpeg_cpu_encode(ks_jpeg_cpu *e, const void *rgba, int w, int h, const uint8_t **jpeg, size_t *bytes)
{
    *jpeg = NULL;
    *bytes = 0;
    KS_TRY(ks_jpeg_frame_check(&e->desc, rgba, w, h, "CPU JPEG encoder"));
    unsigned char *buf = e->out;
    unsigned long size = e->out_cap;
    /* NOREALLOC: the buffer was sized for the worst case; BOTTOMUP: our rows run bottom-up. */
    if (tjCompress2(e->tj, (const unsigned char *)rgba, w, w * 4, h, TJPF_RGBA, &buf, &size, TJSAMP_420,
                    e->desc.quality, TJFLAG_BOTTOMUP | TJFLAG_NOREALLOC) != 0)
        return ks_fail(KS_ERR_INVALID, "CPU JPEG encoder: tjCompress2 (%dx%d) failed: %s", w, h,
                       tjGetErrorStr2(e->tj));
    if (buf != e->out || size == 0 || size > e->out_cap)
        return ks_fail(KS_ERR_INVALID, "CPU JPEG encoder: libjpeg-turbo returned %lu bytes for a %lu-byte buffer",
                       size, e->out_cap);
    *jpeg = e->out;
    *bytes = size;
    return KS_OK;
}
