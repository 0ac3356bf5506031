/* Byte histograms at memory speed (hist_fast.h). */
#include "hist_fast.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/common/cuda_check.h"

enum {
    KS_HF_T = 256,               /* threads per block; the counter layout needs exactly 256 */
    KS_HF_WORDS = 64 * KS_HF_T,  /* 4 bins of one thread per word */
    KS_HF_SMEM = KS_HF_WORDS * 4 /* 64 KiB */
};

/* Adds inc to the counter word at byte offset addr of the block's counters. */
template <bool ATOMIC>
__device__ __forceinline__ void ks_hf_add(unsigned char *cnt, unsigned addr, unsigned inc)
{
    unsigned *p = reinterpret_cast<unsigned *>(cnt + addr);
    if (ATOMIC)
        atomicAdd(p, inc);
    else
        *p += inc;
}

/* 1 << (amount mod 32): a funnel shift that wraps, so callers need not mask. */
__device__ __forceinline__ unsigned ks_hf_bit(unsigned amount)
{
    unsigned r;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(0u), "r"(1u), "r"(amount));
    return r;
}

/* The four bytes of x. Bin b of thread t is byte b % 4 of word (b / 4) 256 + t,
 * at byte offset (b & 0xfc) << 8 | 4 t: byte 0 of the offset is (4 t) & 0xff
 * (lo), byte 1 is (b & 0xfc) | t >> 6 (hi_t supplies t >> 6 in every byte), so
 * one byte permute makes each offset. The increment 1 << 8 (b % 4) is a funnel
 * shift of 1 by bits 3-4 of a shifted copy of x & 0x03030303 (it wraps mod 32). */
template <bool ATOMIC>
__device__ __forceinline__ void ks_hf_count_word(unsigned char *cnt, unsigned hi_t, unsigned lo, unsigned x)
{
    const unsigned o = (x & 0xfcfcfcfcu) | hi_t;
    const unsigned y = x & 0x03030303u;
    ks_hf_add<ATOMIC>(cnt, __byte_perm(o, lo, 0x5504), ks_hf_bit(y << 3));
    ks_hf_add<ATOMIC>(cnt, __byte_perm(o, lo, 0x5514), ks_hf_bit(y >> 5));
    ks_hf_add<ATOMIC>(cnt, __byte_perm(o, lo, 0x5524), ks_hf_bit(y >> 13));
    ks_hf_add<ATOMIC>(cnt, __byte_perm(o, lo, 0x5534), ks_hf_bit(y >> 21));
}

template <bool ATOMIC>
__device__ __forceinline__ void ks_hf_count16(unsigned char *cnt, unsigned hi_t, unsigned lo, const uint4 &a)
{
    /* 16 equal bytes (all-equal input, runs of padding): one add of 16; a
     * counter takes at most 240 + 2 between flushes, so 16 more cannot carry. */
    const unsigned rep = __byte_perm(a.x, 0u, 0x0000u);
    if (a.x == rep && a.y == rep && a.z == rep && a.w == rep) {
        const unsigned o = (rep & 0xfcfcfcfcu) | hi_t, y = rep & 0x03030303u;
        ks_hf_add<ATOMIC>(cnt, __byte_perm(o, lo, 0x5504), ks_hf_bit(y << 3) << 4);
        return;
    }
    ks_hf_count_word<ATOMIC>(cnt, hi_t, lo, a.x);
    ks_hf_count_word<ATOMIC>(cnt, hi_t, lo, a.y);
    ks_hf_count_word<ATOMIC>(cnt, hi_t, lo, a.z);
    ks_hf_count_word<ATOMIC>(cnt, hi_t, lo, a.w);
}

template <bool ATOMIC>
__device__ __forceinline__ void ks_hf_count_byte(unsigned char *cnt, unsigned hi_t, unsigned lo, unsigned b)
{
    const unsigned o = (b & 0xfcu) | hi_t, y = b & 3u;
    ks_hf_add<ATOMIC>(cnt, __byte_perm(o, lo, 0x5504), ks_hf_bit(y << 3));
}

/* Thread t = 4 w + q sums quarter q (64 threads' words) of word row w, clears
 * them, and with its three neighbours makes the totals of bins 4w..4w+3 since
 * the last flush; it keeps bin t's. Bytes are summed two at a time in 16-bit
 * halves (at most 4 x 64 x 255 < 65536). Eight 16-byte loads in flight, the
 * chunk order skewed by t so that each quarter-warp's loads use 32 banks. */
__device__ __forceinline__ void ks_hf_flush(unsigned *cnt, unsigned t, unsigned &acc)
{
    uint4 *row = reinterpret_cast<uint4 *>(cnt + (t >> 2) * KS_HF_T + (t & 3u) * 64u);
    unsigned se = 0, so = 0; /* bins 4w+0 | 4w+2 << 16, and 4w+1 | 4w+3 << 16 */
#pragma unroll
    for (unsigned h = 0; h < 16u; h += 8u) {
        uint4 w[8];
#pragma unroll
        for (unsigned j = 0; j < 8u; ++j) w[j] = row[(h + j + t) & 15u];
#pragma unroll
        for (unsigned j = 0; j < 8u; ++j) row[(h + j + t) & 15u] = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (unsigned j = 0; j < 8u; ++j) {
            se += (w[j].x & 0x00ff00ffu) + (w[j].y & 0x00ff00ffu) + (w[j].z & 0x00ff00ffu) + (w[j].w & 0x00ff00ffu);
            so += __byte_perm(w[j].x, 0u, 0x4341u) + __byte_perm(w[j].y, 0u, 0x4341u) +
                  __byte_perm(w[j].z, 0u, 0x4341u) + __byte_perm(w[j].w, 0u, 0x4341u);
        }
    }
    se += __shfl_xor_sync(0xffffffffu, se, 1);
    so += __shfl_xor_sync(0xffffffffu, so, 1);
    se += __shfl_xor_sync(0xffffffffu, se, 2);
    so += __shfl_xor_sync(0xffffffffu, so, 2);
    const unsigned q = t & 3u;
    acc += ((q & 1u) ? so : se) >> ((q & 2u) * 8u) & 0xffffu;
}

template <bool ATOMIC, int LOADS>
__global__ void __launch_bounds__(KS_HF_T, 3)
    ks_hf_bytes_kernel(const unsigned char *__restrict__ base, size_t n, unsigned *scratch, unsigned *hist)
{
    constexpr int FLUSH_TILES = 240 / (16 * LOADS); /* tiles a thread counts between flushes */
    static_assert(FLUSH_TILES >= 1, "a tile fits under a flush");
    extern __shared__ uint4 ks_hf_dyn[];
    __shared__ unsigned ks_hf_last;
    unsigned *const cnt = reinterpret_cast<unsigned *>(ks_hf_dyn);
    unsigned char *const cb = reinterpret_cast<unsigned char *>(ks_hf_dyn);
    const unsigned t = threadIdx.x;
    for (unsigned i = t; i < KS_HF_WORDS / 4; i += KS_HF_T) ks_hf_dyn[i] = make_uint4(0u, 0u, 0u, 0u);
    __syncthreads();
    const unsigned hi_t = (t >> 6) * 0x01010101u, lo = (t * 4u) & 0xffu;

    size_t head = (16u - ((size_t)base & 15u)) & 15u;
    if (head > n) head = n;
    const size_t nv = (n - head) / 16;
    const uint4 *v = reinterpret_cast<const uint4 *>(base + head);
    const size_t tail0 = head + nv * 16;
    if (blockIdx.x == 0) { /* the unaligned head and tail, at most 15 bytes each */
        if (t < head) ks_hf_count_byte<ATOMIC>(cb, hi_t, lo, base[t]);
        if (t < n - tail0) ks_hf_count_byte<ATOMIC>(cb, hi_t, lo, base[tail0 + t]);
    }

    const size_t per_tile = (size_t)KS_HF_T * LOADS;
    const size_t ntiles = (nv + per_tile - 1) / per_tile;
    unsigned acc = 0;
    uint4 a[LOADS];
    size_t tile = blockIdx.x;
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const size_t k = tile * per_tile + (size_t)i * KS_HF_T + t;
        a[i] = k < nv ? __ldcs(v + k) : make_uint4(0u, 0u, 0u, 0u);
    }
    int since = 0; /* the same in every thread: the loop bounds depend on blockIdx only */
    for (; tile < ntiles; tile += gridDim.x) {
        const size_t next = tile + gridDim.x;
        uint4 b[LOADS];
#pragma unroll
        for (int i = 0; i < LOADS; ++i) { /* the next tile's loads in flight while this one is counted */
            const size_t k = next * per_tile + (size_t)i * KS_HF_T + t;
            b[i] = next < ntiles && k < nv ? __ldcs(v + k) : make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
        for (int i = 0; i < LOADS; ++i)
            if (tile * per_tile + (size_t)i * KS_HF_T + t < nv) ks_hf_count16<ATOMIC>(cb, hi_t, lo, a[i]);
#pragma unroll
        for (int i = 0; i < LOADS; ++i) a[i] = b[i];
        if (++since == FLUSH_TILES) {
            since = 0;
            __syncthreads();
            ks_hf_flush(cnt, t, acc);
            __syncthreads();
        }
    }
    __syncthreads();
    ks_hf_flush(cnt, t, acc);

    /* Merge: this block's totals into the scratch; the last block to arrive
     * (each one's adds made visible by its fence before its ticket) moves the
     * scratch into hist and leaves it cleared for the next launch. */
    if (acc) atomicAdd(scratch + t, acc);
    __threadfence();
    __syncthreads();
    if (t == 0) ks_hf_last = atomicAdd(scratch + 256, 1u) == gridDim.x - 1;
    __syncthreads();
    if (ks_hf_last) {
        hist[t] = atomicExch(scratch + t, 0u);
        if (t == 0) atomicExch(scratch + 256, 0u);
    }
}

/* The loads of ks_hf_bytes_kernel without the counting. */
template <int LOADS>
__global__ void __launch_bounds__(KS_HF_T) ks_hf_read_kernel(const unsigned char *__restrict__ base, size_t n,
                                                            unsigned *sink)
{
    const unsigned t = threadIdx.x;
    const size_t nv = n / 16;
    const uint4 *v = reinterpret_cast<const uint4 *>(base);
    const size_t per_tile = (size_t)KS_HF_T * LOADS;
    const size_t ntiles = (nv + per_tile - 1) / per_tile;
    unsigned x = 0;
    for (size_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        uint4 a[LOADS];
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const size_t k = tile * per_tile + (size_t)i * KS_HF_T + t;
            a[i] = k < nv ? __ldcs(v + k) : make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
        for (int i = 0; i < LOADS; ++i) x ^= a[i].x ^ a[i].y ^ a[i].z ^ a[i].w;
    }
    if (x == 0x9e3779b9u) *sink = x; /* keeps the loads; almost never taken */
}

typedef void (*ks_hf_fn)(const unsigned char *, size_t, unsigned *, unsigned *);

#define KS_HF_KINDS(X)                                                                                  \
    X("rmw5", "read-add-write of own 8-bit counters, 5 x 16-byte loads in flight", false, 5)            \
    X("rmw4", "read-add-write of own 8-bit counters, 4 x 16-byte loads in flight", false, 4)            \
    X("rmw3", "read-add-write of own 8-bit counters, 3 x 16-byte loads in flight", false, 3)            \
    X("rmw7", "read-add-write of own 8-bit counters, 7 x 16-byte loads in flight", false, 7)            \
    X("atom5", "shared atomicAdd on own 8-bit counters, 5 x 16-byte loads in flight", true, 5)

#define KS_HF_ROW(name, summary, atomic, loads) {name, summary, atomic ? 1 : 0, loads},
static const ks_hist_fast_kind ks_hf_kinds[] = {KS_HF_KINDS(KS_HF_ROW)};
#undef KS_HF_ROW
#define KS_HF_FN(name, summary, atomic, loads) ks_hf_bytes_kernel<atomic, loads>,
static const ks_hf_fn ks_hf_fns[] = {KS_HF_KINDS(KS_HF_FN)};
#undef KS_HF_FN
enum { KS_HF_COUNT = (int)(sizeof ks_hf_kinds / sizeof ks_hf_kinds[0]), KS_HF_FLOOR_LOADS = 5 };

struct ks_hist_fast {
    int sm_count;
    int per_sm[KS_HF_COUNT]; /* resident blocks per SM */
    int floor_per_sm;
    unsigned *scratch;       /* 256 totals + the block ticket, zero between launches */
};

extern "C" int ks_hist_fast_count(void) { return KS_HF_COUNT; }

extern "C" const ks_hist_fast_kind *ks_hist_fast_get(int i)
{
    return i >= 0 && i < KS_HF_COUNT ? &ks_hf_kinds[i] : NULL;
}

extern "C" int ks_hist_fast_find(const char *name)
{
    for (int i = 0; i < KS_HF_COUNT; ++i)
        if (strcmp(ks_hf_kinds[i].name, name) == 0) return i;
    return -1;
}

static ks_status hist_fast_init(ks_hist_fast *h)
{
    int dev = 0, optin = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&h->sm_count, cudaDevAttrMultiProcessorCount, dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (optin < KS_HF_SMEM)
        return ks_fail(KS_ERR_UNSUPPORTED, "histogram: %d bytes of shared memory per block, these kernels need %d",
                       optin, (int)KS_HF_SMEM);
    for (int i = 0; i < KS_HF_COUNT; ++i) {
        KS_CUDA_TRY(cudaFuncSetAttribute((const void *)ks_hf_fns[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         KS_HF_SMEM));
        KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&h->per_sm[i], (const void *)ks_hf_fns[i], KS_HF_T,
                                                                  KS_HF_SMEM));
        if (h->per_sm[i] < 1)
            return ks_fail(KS_ERR_UNSUPPORTED, "histogram: %s leaves no block resident", ks_hf_kinds[i].name);
    }
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &h->floor_per_sm, (const void *)ks_hf_read_kernel<KS_HF_FLOOR_LOADS>, KS_HF_T, 0));
    KS_CUDA_TRY(cudaMalloc((void **)&h->scratch, 257 * sizeof(unsigned)));
    KS_CUDA_TRY(cudaMemset(h->scratch, 0, 257 * sizeof(unsigned)));
    KS_CUDA_TRY(cudaDeviceSynchronize());
    return KS_OK;
}

extern "C" ks_status ks_hist_fast_create(ks_hist_fast **out)
{
    *out = NULL;
    ks_hist_fast *h = (ks_hist_fast *)calloc(1, sizeof *h);
    if (!h) return ks_fail(KS_ERR_OUT_OF_MEMORY, "histogram: no host memory");
    const ks_status st = hist_fast_init(h);
    if (st != KS_OK) {
        ks_hist_fast_destroy(h);
        return st;
    }
    *out = h;
    return KS_OK;
}

extern "C" void ks_hist_fast_destroy(ks_hist_fast *h)
{
    if (!h) return;
    cudaFree(h->scratch);
    free(h);
}

extern "C" ks_status ks_hist_fast_attrs(const ks_hist_fast *h, int i, int *blocks_per_sm, int *regs,
                                        int *local_bytes)
{
    if (i < 0 || i >= KS_HF_COUNT) return ks_fail(KS_ERR_INVALID, "histogram: no candidate %d", i);
    cudaFuncAttributes fa;
    KS_CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)ks_hf_fns[i]));
    *blocks_per_sm = h->per_sm[i];
    *regs = fa.numRegs;
    *local_bytes = (int)fa.localSizeBytes;
    return KS_OK;
}

static unsigned hist_fast_grid(const ks_hist_fast *h, int per_sm, size_t n, int loads)
{
    const size_t tiles = (n / 16 + (size_t)KS_HF_T * loads - 1) / ((size_t)KS_HF_T * loads);
    size_t g = (size_t)h->sm_count * (size_t)per_sm; /* one wave of resident blocks */
    if (g > tiles) g = tiles;
    return g ? (unsigned)g : 1u;
}

extern "C" ks_status ks_hist_fast_run(ks_hist_fast *h, int i, const unsigned char *data, size_t n, unsigned *hist,
                                      void *stream)
{
    if (i < 0 || i >= KS_HF_COUNT) return ks_fail(KS_ERR_INVALID, "histogram: no candidate %d", i);
    if (n >= ((size_t)1 << 32)) return ks_fail(KS_ERR_INVALID, "histogram: %zu bytes (fewer than 2^32)", n);
    const unsigned grid = hist_fast_grid(h, h->per_sm[i], n, ks_hf_kinds[i].loads);
    ks_hf_fns[i]<<<grid, KS_HF_T, KS_HF_SMEM, (cudaStream_t)stream>>>(data, n, h->scratch, hist);
    KS_CUDA_TRY_LAUNCH("histogram fast");
    return KS_OK;
}

extern "C" ks_status ks_hist_fast_read_floor(ks_hist_fast *h, const unsigned char *data, size_t n, unsigned *sink,
                                             void *stream)
{
    if ((uintptr_t)data & 15u) return ks_fail(KS_ERR_INVALID, "histogram read floor: data must be 16-byte aligned");
    const unsigned grid = hist_fast_grid(h, h->floor_per_sm, n, KS_HF_FLOOR_LOADS);
    ks_hf_read_kernel<KS_HF_FLOOR_LOADS><<<grid, KS_HF_T, 0, (cudaStream_t)stream>>>(data, n, sink);
    KS_CUDA_TRY_LAUNCH("histogram read floor");
    return KS_OK;
}
