/* Reduce: the GPU context (reduce.h): creation, input, run dispatch, results
 * and timing. The kernels are in reduce_sum.cu, reduce_scan.cu and
 * reduce_picture.cu; reduce_gpu_internal.h is what they share. */
#include "base/l2_flush.h"
#include "reduce_gpu_internal.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "base/cuda_device.h"
#include "reduce_input.h"

/* ---- input ---- */

__global__ void ks_rd_fill_kernel(float *x, long long n, int integer, unsigned seed)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = ks_reduce_value(integer, seed, i);
}

/* ---- context ---- */

extern "C" void ks_reduce_gpu_destroy(ks_reduce_gpu *g)
{
    if (!g) return;
    if (g->stream) cudaStreamSynchronize(g->stream);
    cudaFree(g->x);
    cudaFree(g->y);
    cudaFree(g->result);
    cudaFree(g->partials);
    cudaFree(g->user_partials);
    cudaFree(g->blk_sums);
    cudaFree(g->status);
    cudaFree(g->cub_tmp);
    cudaFree(g->lv_dev);
    cudaFree(g->lv_max);
    ks_l2_flush_destroy(g->flush);
    cudaFree(g->lut);
    if (g->e0) cudaEventDestroy(g->e0);
    if (g->e1) cudaEventDestroy(g->e1);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

ks_status ks_rd_dev_alloc(void **p, size_t bytes, const char *what)
{
    const cudaError_t err = cudaMalloc(p, bytes ? bytes : 4);
    if (err != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return ks_fail(err == cudaErrorMemoryAllocation ? KS_ERR_OUT_OF_MEMORY : KS_ERR_CUDA,
                       "reduce: cannot allocate %s (%.1f MiB): %s", what, bytes / 1048576.0, cudaGetErrorString(err));
    }
    return KS_OK;
}

/* Floats of block sums scan_blocks needs: ceil(n/B) + ceil(ceil(n/B)/B) + ... while a level has > 1 block. */
static long long blk_sums_len(long long n, int block)
{
    long long total = 0;
    for (long long m = (n + block - 1) / block;; m = (m + block - 1) / block) {
        total += m;
        if (m <= 1) break;
    }
    return total;
}

static ks_status gpu_init(ks_reduce_gpu *g)
{
    const long long n = g->d.n;
    const int block = g->d.block;
    KS_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    KS_CUDA_TRY(cudaEventCreate(&g->e0));
    KS_CUDA_TRY(cudaEventCreate(&g->e1));
    int dev = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&g->sm_count, cudaDevAttrMultiProcessorCount, dev));
    KS_TRY(ks_rd_sum_grids(g, block));
    /* At most 1024 threads per SM: on the H100 at 2^28 floats, 1024 resident threads
     * per SM read 0.3-0.5 % faster than a full SM (2048), and 512 were slower (measured). */
    for (int v = KS_REDUCE_SUM_ATOMIC; v <= KS_REDUCE_SUM_ONEPASS; ++v) {
        const int cap = g->sm_count * (1024 / block > 0 ? 1024 / block : 1);
        if (g->grid_sum[v] > cap) g->grid_sum[v] = cap;
    }
    /* no more blocks than there are float4 to read */
    const long long need = ((n >> 2) + block - 1) / block;
    int max_grid = 1;
    for (int v = KS_REDUCE_SUM_ATOMIC; v <= KS_REDUCE_SUM_ONEPASS; ++v) {
        if (g->grid_sum[v] > need) g->grid_sum[v] = need > 0 ? (int)need : 1;
        if (g->grid_sum[v] > max_grid) max_grid = g->grid_sum[v];
    }
    const long long tiles = (n + 16LL * block - 1) / (16LL * block); /* scan_shuffle */
    const long long lb_tiles = ks_rd_lookback_tiles(n);
    KS_TRY(ks_rd_dev_alloc((void **)&g->x, (size_t)n * 4, "the input"));
    KS_TRY(ks_rd_dev_alloc((void **)&g->y, (size_t)n * 4, "the scan output"));
    KS_TRY(ks_rd_dev_alloc((void **)&g->result, 16, "the sum"));
    g->counter = reinterpret_cast<unsigned *>(g->result + 1);
    KS_TRY(ks_rd_dev_alloc((void **)&g->partials, (size_t)(tiles > max_grid ? tiles : max_grid) * 4, "partial sums"));
    KS_TRY(ks_rd_dev_alloc((void **)&g->blk_sums, (size_t)blk_sums_len(n, block) * 4, "block sums"));
    KS_TRY(ks_rd_dev_alloc((void **)&g->status, (size_t)lb_tiles * 8, "tile status"));
    KS_TRY(ks_rd_dev_alloc((void **)&g->lv_max, KS_REDUCE_MAX_LEVELS * 4, "level maxima"));
    KS_TRY(ks_rd_dev_alloc((void **)&g->lut, 256 * 4, "colour table"));
    KS_CUDA_TRY(cudaMemsetAsync(g->result, 0, 16, g->stream));
    KS_CUDA_TRY(cudaMemsetAsync(g->status, 0, (size_t)lb_tiles * 8, g->stream));
    g->epoch = 0;
    size_t a = 0, b = 0;
    KS_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, a, g->x, g->result, (int)n, g->stream));
    KS_CUDA_TRY(cub::DeviceScan::InclusiveSum(nullptr, b, g->x, g->y, (int)n, g->stream));
    g->cub_tmp_size = a > b ? a : b;
    KS_TRY(ks_rd_dev_alloc(&g->cub_tmp, g->cub_tmp_size, "CUB temporary storage"));
    return ks_reduce_gpu_fill(g, g->d.input, g->d.seed);
}

extern "C" ks_status ks_reduce_gpu_create(const ks_reduce_desc *d, ks_reduce_gpu **out)
{
    *out = NULL;
    KS_TRY(ks_reduce_desc_check(d));
    ks_device_info dev;
    KS_TRY(ks_cuda_probe(&dev));
    if (!dev.present) return ks_fail(KS_ERR_NO_DEVICE, "reduce: no CUDA device");
    ks_reduce_gpu *g = (ks_reduce_gpu *)calloc(1, sizeof *g);
    if (!g) return ks_fail(KS_ERR_OUT_OF_MEMORY, "reduce: out of host memory");
    g->d = ks_reduce_desc_defaults(d);
    const ks_status st = gpu_init(g);
    if (st != KS_OK) {
        ks_reduce_gpu_destroy(g);
        return st;
    }
    *out = g;
    return KS_OK;
}

extern "C" void *ks_reduce_gpu_stream(ks_reduce_gpu *g)
{
    return g ? (void *)g->stream : NULL;
}

extern "C" ks_reduce_desc ks_reduce_gpu_desc(const ks_reduce_gpu *g)
{
    return g->d;
}

extern "C" const float *ks_reduce_gpu_scan_output(ks_reduce_gpu *g)
{
    return g->y;
}

extern "C" const float *ks_reduce_gpu_input(ks_reduce_gpu *g)
{
    return g->x;
}

extern "C" ks_status ks_reduce_gpu_fill(ks_reduce_gpu *g, ks_reduce_input kind, unsigned seed)
{
    if ((int)kind < 0 || kind >= KS_REDUCE_INPUT_NUM)
        return ks_fail(KS_ERR_INVALID, "reduce: unknown input kind %d", (int)kind);
    if (kind == KS_REDUCE_INPUT_DEFAULT) kind = KS_REDUCE_INPUT_RANDOM;
    if (seed == 0) seed = KS_REDUCE_DEFAULT_SEED;
    ks_rd_fill_kernel<<<g->sm_count * 8, 256, 0, g->stream>>>(g->x, g->d.n, kind == KS_REDUCE_INPUT_INTEGER, seed);
    KS_CUDA_TRY_LAUNCH("fill");
    g->d.input = kind;
    g->d.seed = seed;
    g->have_levels = 0;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_upload(ks_reduce_gpu *g, const float *x, long long n)
{
    if (n != g->d.n) return ks_fail(KS_ERR_INVALID, "reduce: %lld values given for a context of %lld", n, g->d.n);
    KS_CUDA_TRY(cudaMemcpyAsync(g->x, x, (size_t)n * 4, cudaMemcpyHostToDevice, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    g->have_levels = 0;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_poison(ks_reduce_gpu *g)
{
    KS_CUDA_TRY(cudaMemsetAsync(g->y, 0xFF, (size_t)g->d.n * 4, g->stream));
    KS_CUDA_TRY(cudaMemsetAsync(g->result, 0xFF, 4, g->stream));
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_run(ks_reduce_gpu *g, ks_reduce_variant v)
{
    const long long n = g->d.n;
    cudaStream_t s = g->stream;
    switch (v) {
    case KS_REDUCE_SUM_ATOMIC:
        KS_CUDA_TRY(cudaMemsetAsync(g->result, 0, 4, s));
        ks_rd_sum_launch(g, v);
        break;
    case KS_REDUCE_SUM_TREE:
    case KS_REDUCE_SUM_SHUFFLE:
    case KS_REDUCE_SUM_ONEPASS: ks_rd_sum_launch(g, v); break;
    case KS_REDUCE_SUM_CUB: {
        size_t bytes = g->cub_tmp_size;
        KS_CUDA_TRY(cub::DeviceReduce::Sum(g->cub_tmp, bytes, g->x, g->result, (int)n, s));
        break;
    }
    case KS_REDUCE_SCAN_BLOCKS: KS_TRY(ks_rd_scan_blocks(g, g->x, g->y, n, g->blk_sums)); break;
    case KS_REDUCE_SCAN_SHUFFLE: ks_rd_scan_shuffle_launch(g); break;
    case KS_REDUCE_SCAN_LOOKBACK: KS_TRY(ks_rd_scan_lookback(g, g->y)); break;
    case KS_REDUCE_SCAN_CUB: {
        size_t bytes = g->cub_tmp_size;
        KS_CUDA_TRY(cub::DeviceScan::InclusiveSum(g->cub_tmp, bytes, g->x, g->y, (int)n, s));
        break;
    }
    default: return ks_fail(KS_ERR_INVALID, "reduce: unknown variant %d", (int)v);
    }
    KS_CUDA_TRY_LAUNCH("reduce");
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_sum_result(ks_reduce_gpu *g, double *sum)
{
    float f = 0.0f;
    KS_CUDA_TRY(cudaMemcpyAsync(&f, g->result, 4, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    *sum = f;
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_scan_download(ks_reduce_gpu *g, float *y)
{
    KS_CUDA_TRY(cudaMemcpyAsync(y, g->y, (size_t)g->d.n * 4, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

extern "C" ks_status ks_reduce_gpu_scan_read(ks_reduce_gpu *g, long long i, float *value)
{
    if (i < 0 || i >= g->d.n) return ks_fail(KS_ERR_INVALID, "reduce: no element %lld of %lld", i, g->d.n);
    KS_CUDA_TRY(cudaMemcpyAsync(value, g->y + i, 4, cudaMemcpyDeviceToHost, g->stream));
    KS_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return KS_OK;
}

static ks_status time_span(ks_reduce_gpu *g, ks_rd_run_fn run, const void *what, int k, double *ms)
{
    KS_CUDA_TRY(cudaEventRecord(g->e0, g->stream));
    for (int i = 0; i < k; ++i) KS_TRY(run(g, what));
    KS_CUDA_TRY(cudaEventRecord(g->e1, g->stream));
    KS_CUDA_TRY(cudaEventSynchronize(g->e1));
    float f = 0.0f;
    KS_CUDA_TRY(cudaEventElapsedTime(&f, g->e0, g->e1));
    *ms = f;
    return KS_OK;
}

typedef struct rd_timed {
    ks_reduce_gpu *g;
    ks_rd_run_fn run;
    const void *what;
    int k; /* runs a sample */
} rd_timed;

static ks_status rd_sample(void *ctx, double *ms)
{
    const rd_timed *t = (const rd_timed *)ctx;
    return time_span(t->g, t->run, t->what, t->k, ms);
}

static ks_status rd_flush(void *ctx)
{
    ks_reduce_gpu *g = ((const rd_timed *)ctx)->g;
    return ks_l2_flush_run(&g->flush, g->stream);
}

ks_status ks_rd_time_runs(ks_reduce_gpu *g, ks_rd_run_fn run, const void *what, double span_ms, double working_set,
                          const ks_timing_opts *o, ks_reduce_timing *out)
{
    if (span_ms <= 0) span_ms = 20.0;
    double l2 = 0.0;
    KS_TRY(ks_cuda_l2_bytes(&l2));
    ks_timing_opts opts = o ? *o : ks_timing_opts{};
    opts.cache = ks_cache_policy_resolve(opts.cache, working_set, l2, 1);
    if (opts.warmup == 0) opts.warmup = 3;
    rd_timed t = {g, run, what, 1};
    if (opts.cache == KS_CACHE_WARM) { /* K runs a sample, about span_ms of them */
        for (int i = 0; i < 3; ++i) KS_TRY(run(g, what));
        double one = 0.0;
        KS_TRY(time_span(g, run, what, 1, &one));
        double k = one > 0 ? ceil(span_ms / one) : 100000.0;
        t.k = (int)(k < 1 ? 1 : k > 100000 ? 100000 : k);
    }
    const ks_timing_run tr = {rd_sample, rd_flush, &t, working_set, l2};
    KS_TRY(ks_timing_measure(&tr, &opts, &out->timing));
    out->median_ms = out->timing.median_ms / t.k;
    out->min_ms = out->timing.min_ms / t.k;
    out->launches = t.k;
    out->reps = out->timing.reps;
    return KS_OK;
}

static ks_status run_ours(ks_reduce_gpu *g, const void *what)
{
    return ks_reduce_gpu_run(g, *(const ks_reduce_variant *)what);
}

extern "C" ks_status ks_reduce_gpu_time(ks_reduce_gpu *g, ks_reduce_variant v, double span_ms, const ks_timing_opts *o,
                                        ks_reduce_timing *out)
{
    const ks_reduce_variant_info *vi = ks_reduce_variant_get(v);
    if (!vi) return ks_fail(KS_ERR_INVALID, "reduce: unknown variant %d", (int)v);
    const double ws = (vi->op == KS_REDUCE_OP_SUM ? 4.0 : 8.0) * (double)g->d.n; /* a scan writes its output too */
    return ks_rd_time_runs(g, run_ours, &v, span_ms, ws, o, out);
}
