// The GPU JPEG encoder: our colour kernel, then nvJPEG's encoder, all on the
// encoder's stream; the bitstream comes back into a reused pinned buffer.
// Compiled to stubs that refuse with one line when the toolkit has no nvJPEG
// (KS_HAVE_NVJPEG=0, set by CMakeLists.txt).
#include "jpeg_gpu.h"

#if KS_HAVE_NVJPEG

#include <cuda_runtime.h>
#include <nvjpeg.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "base/cuda_check.h"

namespace {

const char *nvjpeg_status_text(nvjpegStatus_t s)
{
    switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "success";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG: return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "NVJPEG_STATUS_ALLOCATOR_FAILURE (out of memory)";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "NVJPEG_STATUS_ARCH_MISMATCH (GPU not supported)";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
    }
    return "unknown nvJPEG status";
}

} // namespace

#define KS_NVJPEG_TRY(call) KS_STATUS_TRY(nvjpegStatus_t, NVJPEG_STATUS_SUCCESS, nvjpeg_status_text, call, #call)

struct ks_jpeg_gpu {
    ks_jpeg_desc desc;            // defaults filled
    int device;                   // the CUDA device it was made on
    cudaStream_t stream;          // all of its work
    int own_stream;               // made here (desc.stream was NULL): destroyed here
    cudaEvent_t done;             // waited on by encode (blocking sync: the worker sleeps)
    nvjpegHandle_t handle;        // one per encoder: nothing shared between threads
    nvjpegEncoderState_t state;
    nvjpegEncoderParams_t params; // quality, 4:2:0, baseline
    uint8_t *planes;              // device: Y, Cb, Cr planes (YUV420) or RGB rows (RGBI)
    size_t pitch[3];              // bytes a row of each plane (one plane for RGBI)
    size_t offset[3];             // where each plane starts in planes
    size_t planes_bytes;
    uint8_t *bitstream;           // pinned host, bitstream_cap bytes
    size_t bitstream_cap;         // nvJPEG's bound for the largest picture
    uint8_t *staging;             // device: a host picture copied in (encode_host), made on first use
};

namespace {

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

// One thread per 2x2 block of the top-down picture: four lumas and the mean
// Cb, Cr of the block (fewer pixels at an odd right or top edge). Input row r
// of the output is row h-1-r of the bottom-up picture.
__global__ void jpeg_yuv420_kernel(const uchar4 *__restrict__ rgba, int w, int h, uint8_t *__restrict__ y,
                                   size_t y_pitch, uint8_t *__restrict__ cb, uint8_t *__restrict__ cr,
                                   size_t c_pitch)
{
    const int cx = blockIdx.x * blockDim.x + threadIdx.x;
    const int cy = blockIdx.y * blockDim.y + threadIdx.y;
    if (cx >= ks_jpeg_chroma_dim(w) || cy >= ks_jpeg_chroma_dim(h)) return;
    uint32_t sb = 0, sr = 0, n = 0;
    for (int dy = 0; dy < 2; ++dy) {
        const int row = 2 * cy + dy;
        if (row >= h) break;
        const uchar4 *src = rgba + (size_t)(h - 1 - row) * w;
        for (int dx = 0; dx < 2; ++dx) {
            const int x = 2 * cx + dx;
            if (x >= w) break;
            const uchar4 p = src[x];
            y[(size_t)row * y_pitch + x] = ks_jpeg_luma(p.x, p.y, p.z);
            sb += ks_jpeg_cb_fix(p.x, p.y, p.z);
            sr += ks_jpeg_cr_fix(p.x, p.y, p.z);
            ++n;
        }
    }
    cb[(size_t)cy * c_pitch + cx] = ks_jpeg_chroma_mean(sb, n);
    cr[(size_t)cy * c_pitch + cx] = ks_jpeg_chroma_mean(sr, n);
}

// One thread per pixel: RGBA bottom-up to interleaved RGB top-down.
__global__ void jpeg_rgbi_kernel(const uchar4 *__restrict__ rgba, int w, int h, uint8_t *__restrict__ rgb,
                                 size_t pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || row >= h) return;
    const uchar4 p = rgba[(size_t)(h - 1 - row) * w + x];
    uint8_t *o = rgb + (size_t)row * pitch + 3 * (size_t)x;
    o[0] = p.x;
    o[1] = p.y;
    o[2] = p.z;
}

// Plane layout for the largest picture, padded so that nvJPEG may read whole
// MCUs (16x16 luma, 8x8 chroma) and rows start 64-byte aligned.
void plan_planes(ks_jpeg_gpu *e)
{
    const size_t w = (size_t)e->desc.max_width, h = (size_t)e->desc.max_height;
    if (e->desc.input == KS_JPEG_INPUT_RGBI) {
        e->pitch[0] = round_up(round_up(w, 16) * 3, 64);
        e->offset[0] = 0;
        e->planes_bytes = e->pitch[0] * round_up(h, 16);
        return;
    }
    const size_t cw = (size_t)ks_jpeg_chroma_dim((int)w), ch = (size_t)ks_jpeg_chroma_dim((int)h);
    e->pitch[0] = round_up(round_up(w, 16), 64);
    e->pitch[1] = e->pitch[2] = round_up(round_up(cw, 8), 64);
    const size_t y_bytes = e->pitch[0] * round_up(h, 16), c_bytes = e->pitch[1] * round_up(ch, 8);
    e->offset[0] = 0;
    e->offset[1] = y_bytes;
    e->offset[2] = y_bytes + c_bytes;
    e->planes_bytes = y_bytes + 2 * c_bytes;
}

ks_status use_device(const ks_jpeg_gpu *e)
{
    int cur = -1;
    KS_CUDA_TRY(cudaGetDevice(&cur));
    if (cur != e->device) KS_CUDA_TRY(cudaSetDevice(e->device));
    return KS_OK;
}

ks_status wait_done(ks_jpeg_gpu *e)
{
    KS_CUDA_TRY(cudaEventRecord(e->done, e->stream));
    KS_CUDA_TRY(cudaEventSynchronize(e->done));
    return KS_OK;
}

ks_status launch_convert(ks_jpeg_gpu *e, const void *rgba, int w, int h)
{
    const uchar4 *src = static_cast<const uchar4 *>(rgba);
    if (e->desc.input == KS_JPEG_INPUT_RGBI) {
        const dim3 block(32, 8), grid((unsigned)(w + 31) / 32, (unsigned)(h + 7) / 8);
        jpeg_rgbi_kernel<<<grid, block, 0, e->stream>>>(src, w, h, e->planes, e->pitch[0]);
    } else {
        const int cw = ks_jpeg_chroma_dim(w), ch = ks_jpeg_chroma_dim(h);
        const dim3 block(32, 8), grid((unsigned)(cw + 31) / 32, (unsigned)(ch + 7) / 8);
        jpeg_yuv420_kernel<<<grid, block, 0, e->stream>>>(src, w, h, e->planes + e->offset[0], e->pitch[0],
                                                          e->planes + e->offset[1], e->planes + e->offset[2],
                                                          e->pitch[1]);
    }
    KS_CUDA_TRY_LAUNCH("JPEG colour kernel");
    return KS_OK;
}

// nvJPEG on what the colour kernel left in planes, then the bitstream to host.
ks_status encode_planes(ks_jpeg_gpu *e, int w, int h, const uint8_t **jpeg, size_t *bytes)
{
    nvjpegImage_t img;
    std::memset(&img, 0, sizeof img);
    if (e->desc.input == KS_JPEG_INPUT_RGBI) {
        img.channel[0] = e->planes;
        img.pitch[0] = e->pitch[0];
        KS_NVJPEG_TRY(nvjpegEncodeImage(e->handle, e->state, e->params, &img, NVJPEG_INPUT_RGBI, w, h, e->stream));
    } else {
        for (int p = 0; p < 3; ++p) {
            img.channel[p] = e->planes + e->offset[p];
            img.pitch[p] = e->pitch[p];
        }
        KS_NVJPEG_TRY(nvjpegEncodeYUV(e->handle, e->state, e->params, &img, NVJPEG_CSS_420, w, h, e->stream));
    }
    KS_TRY(wait_done(e));
    size_t len = 0;
    KS_NVJPEG_TRY(nvjpegEncodeRetrieveBitstream(e->handle, e->state, nullptr, &len, e->stream));
    if (len == 0 || len > e->bitstream_cap)
        return ks_fail(KS_ERR_CUDA, "GPU JPEG encoder: nvJPEG made %zu bytes for %dx%d, outside its own bound of %zu",
                       len, w, h, e->bitstream_cap);
    size_t got = e->bitstream_cap;
    KS_NVJPEG_TRY(nvjpegEncodeRetrieveBitstream(e->handle, e->state, e->bitstream, &got, e->stream));
    KS_TRY(wait_done(e)); // the copy into pinned memory may be asynchronous
    if (got != len)
        return ks_fail(KS_ERR_CUDA, "GPU JPEG encoder: nvJPEG said %zu bytes, then gave %zu", len, got);
    *jpeg = e->bitstream;
    *bytes = len;
    return KS_OK;
}

ks_status setup(ks_jpeg_gpu *e)
{
    KS_CUDA_TRY(cudaGetDevice(&e->device));
    if (e->stream == nullptr) {
        KS_CUDA_TRY(cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking));
        e->own_stream = 1;
    }
    KS_CUDA_TRY(cudaEventCreateWithFlags(&e->done, cudaEventDisableTiming | cudaEventBlockingSync));
    KS_NVJPEG_TRY(nvjpegCreateSimple(&e->handle));
    KS_NVJPEG_TRY(nvjpegEncoderStateCreate(e->handle, &e->state, e->stream));
    KS_NVJPEG_TRY(nvjpegEncoderParamsCreate(e->handle, &e->params, e->stream));
    KS_NVJPEG_TRY(nvjpegEncoderParamsSetQuality(e->params, e->desc.quality, e->stream));
    KS_NVJPEG_TRY(nvjpegEncoderParamsSetSamplingFactors(e->params, NVJPEG_CSS_420, e->stream));
    KS_NVJPEG_TRY(nvjpegEncoderParamsSetEncoding(e->params, NVJPEG_ENCODING_BASELINE_DCT, e->stream));
    KS_NVJPEG_TRY(nvjpegEncoderParamsSetOptimizedHuffman(e->params, 0, e->stream));

    plan_planes(e);
    KS_CUDA_TRY(cudaMalloc(&e->planes, e->planes_bytes));
    KS_CUDA_TRY(cudaMemsetAsync(e->planes, 0, e->planes_bytes, e->stream)); // also the padding, once
    KS_NVJPEG_TRY(nvjpegEncodeGetBufferSize(e->handle, e->params, e->desc.max_width, e->desc.max_height,
                                            &e->bitstream_cap));
    KS_CUDA_TRY(cudaMallocHost(&e->bitstream, e->bitstream_cap));

    // A black picture of the largest size: nvJPEG allocates its work buffers
    // now, once, and never inside a later encode.
    const uint8_t *jpeg = nullptr;
    size_t bytes = 0;
    KS_TRY(encode_planes(e, e->desc.max_width, e->desc.max_height, &jpeg, &bytes));
    return KS_OK;
}

} // namespace

extern "C" int ks_jpeg_gpu_built(void) { return 1; }

extern "C" ks_status ks_jpeg_gpu_create(const ks_jpeg_desc *desc, ks_jpeg_gpu **out)
{
    *out = nullptr;
    const ks_jpeg_desc d = ks_jpeg_desc_defaults(desc);
    KS_TRY(ks_jpeg_desc_check(&d));
    ks_jpeg_gpu *e = static_cast<ks_jpeg_gpu *>(std::calloc(1, sizeof *e));
    if (!e) return ks_fail(KS_ERR_OUT_OF_MEMORY, "GPU JPEG encoder: out of host memory");
    e->desc = d;
    e->stream = static_cast<cudaStream_t>(d.stream);
    const ks_status st = setup(e);
    if (st != KS_OK) {
        ks_error_prefix("GPU JPEG encoder for %dx%d", d.max_width, d.max_height);
        ks_jpeg_gpu_destroy(e);
        return st;
    }
    *out = e;
    return KS_OK;
}

extern "C" void ks_jpeg_gpu_destroy(ks_jpeg_gpu *e)
{
    if (!e) return;
    // Teardown: nothing may still read the buffers (an encode that failed
    // half-way can leave work queued on the stream).
    if (e->stream) cudaStreamSynchronize(e->stream);
    if (e->bitstream) cudaFreeHost(e->bitstream);
    if (e->planes) cudaFree(e->planes);
    if (e->staging) cudaFree(e->staging);
    if (e->params) nvjpegEncoderParamsDestroy(e->params);
    if (e->state) nvjpegEncoderStateDestroy(e->state);
    if (e->handle) nvjpegDestroy(e->handle);
    if (e->done) cudaEventDestroy(e->done);
    if (e->own_stream) cudaStreamDestroy(e->stream);
    std::free(e);
}

static ks_status check_input(const ks_jpeg_gpu *e, const void *rgba, int w, int h)
{
    KS_TRY(ks_jpeg_frame_check(&e->desc, rgba, w, h, "GPU JPEG encoder"));
    if (reinterpret_cast<uintptr_t>(rgba) % 4 != 0)
        return ks_fail(KS_ERR_INVALID, "GPU JPEG encoder: the picture at %p is not 4-byte aligned", rgba);
    return use_device(e);
}

extern "C" ks_status ks_jpeg_gpu_encode(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg,
                                        size_t *bytes)
{
    *jpeg = nullptr;
    *bytes = 0;
    KS_TRY(check_input(e, rgba, w, h));
    KS_TRY(launch_convert(e, rgba, w, h));
    return encode_planes(e, w, h, jpeg, bytes);
}

extern "C" ks_status ks_jpeg_gpu_encode_host(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg,
                                             size_t *bytes)
{
    *jpeg = nullptr;
    *bytes = 0;
    if (!e) return ks_fail(KS_ERR_INVALID, "GPU JPEG encoder: no encoder");
    KS_TRY(ks_jpeg_frame_check(&e->desc, rgba, w, h, "GPU JPEG encoder"));
    KS_TRY(use_device(e));
    if (!e->staging) /* once, for the largest picture: no allocation per frame */
        KS_CUDA_TRY(cudaMalloc(&e->staging, (size_t)e->desc.max_width * e->desc.max_height * 4));
    KS_CUDA_TRY(cudaMemcpyAsync(e->staging, rgba, (size_t)w * h * 4, cudaMemcpyHostToDevice, e->stream));
    return ks_jpeg_gpu_encode(e, e->staging, w, h, jpeg, bytes);
}

extern "C" ks_status ks_jpeg_gpu_convert(ks_jpeg_gpu *e, const void *rgba, int w, int h, uint8_t *out)
{
    KS_TRY(check_input(e, rgba, w, h));
    if (!out) return ks_fail(KS_ERR_INVALID, "GPU JPEG encoder: no output for the converted picture");
    KS_TRY(launch_convert(e, rgba, w, h));
    if (e->desc.input == KS_JPEG_INPUT_RGBI) {
        KS_CUDA_TRY(cudaMemcpy2DAsync(out, (size_t)w * 3, e->planes, e->pitch[0], (size_t)w * 3, (size_t)h,
                                      cudaMemcpyDeviceToHost, e->stream));
    } else {
        const size_t cw = (size_t)ks_jpeg_chroma_dim(w), ch = (size_t)ks_jpeg_chroma_dim(h);
        uint8_t *y = out, *cb = y + (size_t)w * h, *cr = cb + cw * ch;
        KS_CUDA_TRY(cudaMemcpy2DAsync(y, (size_t)w, e->planes + e->offset[0], e->pitch[0], (size_t)w, (size_t)h,
                                      cudaMemcpyDeviceToHost, e->stream));
        KS_CUDA_TRY(cudaMemcpy2DAsync(cb, cw, e->planes + e->offset[1], e->pitch[1], cw, ch,
                                      cudaMemcpyDeviceToHost, e->stream));
        KS_CUDA_TRY(cudaMemcpy2DAsync(cr, cw, e->planes + e->offset[2], e->pitch[2], cw, ch,
                                      cudaMemcpyDeviceToHost, e->stream));
    }
    return wait_done(e);
}

#else // no nvJPEG in this CUDA Toolkit

#define KS_NO_NVJPEG "GPU JPEG encoder: kernelscope was built without nvJPEG (part of the CUDA Toolkit)"

extern "C" int ks_jpeg_gpu_built(void) { return 0; }

extern "C" ks_status ks_jpeg_gpu_create(const ks_jpeg_desc *desc, ks_jpeg_gpu **out)
{
    (void)desc;
    *out = nullptr;
    return ks_fail(KS_ERR_UNSUPPORTED, KS_NO_NVJPEG);
}

extern "C" void ks_jpeg_gpu_destroy(ks_jpeg_gpu *e) { (void)e; }

extern "C" ks_status ks_jpeg_gpu_encode(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg,
                                        size_t *bytes)
{
    (void)e, (void)rgba, (void)w, (void)h;
    *jpeg = nullptr;
    *bytes = 0;
    return ks_fail(KS_ERR_UNSUPPORTED, KS_NO_NVJPEG);
}

extern "C" ks_status ks_jpeg_gpu_convert(ks_jpeg_gpu *e, const void *rgba, int w, int h, uint8_t *out)
{
    (void)e, (void)rgba, (void)w, (void)h, (void)out;
    return ks_fail(KS_ERR_UNSUPPORTED, KS_NO_NVJPEG);
}

extern "C" ks_status ks_jpeg_gpu_encode_host(ks_jpeg_gpu *e, const void *rgba, int w, int h, const uint8_t **jpeg,
                                             size_t *bytes)
{
    (void)e, (void)rgba, (void)w, (void)h;
    *jpeg = nullptr;
    *bytes = 0;
    return ks_fail(KS_ERR_UNSUPPORTED, KS_NO_NVJPEG);
}

#endif
