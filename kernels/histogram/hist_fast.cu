/* Byte histograms at memory speed (hist_fast.h). */
#include "hist_fast.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cuda_check.h"

enum {
    KS_HF_T = 256,                 /* threads per block */
    KS_HF_OWN8_WORDS = 64 * KS_HF_T, /* own8: one 8-bit counter per bin per thread, 4 a word */
    KS_HF_OWN8_SMEM = KS_HF_OWN8_WORDS * 4, /* 64 KiB */
    KS_HF_OWN8_LOADS = 5,
};

/* ---- what every kernel shares: the unaligned ends, the tiles of 16-byte loads ---- */

/* The bytes before the first 16-byte boundary and after the last whole word:
 * head bytes [0, head), the aligned words [head, head + 16 nv), the tail. */
struct ks_hf_span {
    size_t head, nv, tail0;
    const uint4 *v;
};

__device__ __forceinline__ ks_hf_span ks_hf_span_of(const unsigned char *base, size_t n)
{
    ks_hf_span s;
    s.head = (16u - ((size_t)base & 15u)) & 15u;
    if (s.head > n) s.head = n;
    s.nv = (n - s.head) / 16;
    s.v = reinterpret_cast<const uint4 *>(base + s.head);
    s.tail0 = s.head + s.nv * 16;
    return s;
}

/* 16 equal bytes (all-equal input, runs of padding): the byte, else -1. */
__device__ __forceinline__ int ks_hf_uniform16(const uint4 &a)
{
    const unsigned rep = __byte_perm(a.x, 0u, 0x0000u);
    return a.x == rep && a.y == rep && a.z == rep && a.w == rep ? (int)(rep & 0xffu) : -1;
}

/* Calls count(word) for every 16-byte word of the span this block's tiles hold:
 * tiles of KS_HF_T x LOADS words, block b taking tiles b, b + grid, ...; the next
 * tile's loads issued before this one is counted. after_tile() runs after each
 * tile, in every thread alike (the loop bounds depend on blockIdx only). */
template <int LOADS, typename Count, typename After>
__device__ __forceinline__ void ks_hf_tiles(const ks_hf_span &s, Count count, After after_tile)
{
    const unsigned t = threadIdx.x;
    const size_t per_tile = (size_t)KS_HF_T * LOADS;
    const size_t ntiles = (s.nv + per_tile - 1) / per_tile;
    uint4 a[LOADS];
    size_t tile = blockIdx.x;
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const size_t k = tile * per_tile + (size_t)i * KS_HF_T + t;
        a[i] = tile < ntiles && k < s.nv ? __ldcs(s.v + k) : make_uint4(0u, 0u, 0u, 0u);
    }
    for (; tile < ntiles; tile += gridDim.x) {
        const size_t next = tile + gridDim.x;
        uint4 b[LOADS];
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const size_t k = next * per_tile + (size_t)i * KS_HF_T + t;
            b[i] = next < ntiles && k < s.nv ? __ldcs(s.v + k) : make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
        for (int i = 0; i < LOADS; ++i)
            if (tile * per_tile + (size_t)i * KS_HF_T + t < s.nv) count(a[i]);
#pragma unroll
        for (int i = 0; i < LOADS; ++i) a[i] = b[i];
        after_tile();
    }
}

/* ---- copies: 32-bit sub-histograms, interleaved ---- */

template <int COPIES>
__device__ __forceinline__ void ks_hf_add_word(unsigned *mine, unsigned w)
{
    atomicAdd(mine + __byte_perm(w, 0u, 0x4440u) * COPIES, 1u);
    atomicAdd(mine + __byte_perm(w, 0u, 0x4441u) * COPIES, 1u);
    atomicAdd(mine + __byte_perm(w, 0u, 0x4442u) * COPIES, 1u);
    atomicAdd(mine + (w >> 24) * COPIES, 1u);
}

template <int COPIES, bool BY_WARP, int LOADS>
__global__ void __launch_bounds__(KS_HF_T)
    ks_hf_copies_kernel(const unsigned char *__restrict__ base, size_t n, unsigned *__restrict__ hist)
{
    extern __shared__ unsigned ks_hf_sh[]; /* 256 x COPIES: bin b of copy c at b * COPIES + c */
    const unsigned t = threadIdx.x;
    for (unsigned i = t; i < 256u * COPIES; i += KS_HF_T) ks_hf_sh[i] = 0u;
    __syncthreads();
    unsigned *const mine = ks_hf_sh + (BY_WARP ? (t >> 5) % COPIES : (t & 31u) % COPIES);
    const ks_hf_span s = ks_hf_span_of(base, n);
    if (blockIdx.x == 0) { /* the unaligned head and tail, at most 15 bytes each */
        if (t < s.head) atomicAdd(mine + base[t] * COPIES, 1u);
        if (t < n - s.tail0) atomicAdd(mine + base[s.tail0 + t] * COPIES, 1u);
    }
    ks_hf_tiles<LOADS>(
        s,
        [&](const uint4 &a) {
            const int u = ks_hf_uniform16(a);
            if (u >= 0) {
                atomicAdd(mine + u * COPIES, 16u);
                return;
            }
            ks_hf_add_word<COPIES>(mine, a.x);
            ks_hf_add_word<COPIES>(mine, a.y);
            ks_hf_add_word<COPIES>(mine, a.z);
            ks_hf_add_word<COPIES>(mine, a.w);
        },
        [] {});
    __syncthreads();
    /* thread t: bin t's copies, read in an order skewed by t so that a warp's lanes use different banks */
    unsigned sum = 0;
#pragma unroll
    for (int c = 0; c < COPIES; ++c) sum += ks_hf_sh[t * COPIES + (c + t) % COPIES];
    if (sum) atomicAdd(hist + t, sum);
}

/* ---- own8: 8-bit counters per thread ---- */
/* The counter of bin c of thread t is byte t / 64 of word c * 64 + t % 64, so lane l
 * of every warp always uses bank l, whatever the bytes. A count is one shared
 * atomicAdd of 1 << 8 (t / 64) to that word: never contended (the atomic only keeps
 * the four threads that share a word apart). A thread counts at most 240 bytes (3
 * tiles of 5 loads) between flushes, so no byte carries into the next; a flush sums
 * bin t's 64 words into thread t's register and clears them. */

__device__ __forceinline__ void ks_hf_own8_word(unsigned *mine, unsigned inc, unsigned w)
{
    atomicAdd(mine + (__byte_perm(w, 0u, 0x4440u) << 6), inc);
    atomicAdd(mine + (__byte_perm(w, 0u, 0x4441u) << 6), inc);
    atomicAdd(mine + (__byte_perm(w, 0u, 0x4442u) << 6), inc);
    atomicAdd(mine + ((w >> 24) << 6), inc);
}

__device__ __forceinline__ unsigned ks_hf_pairs(unsigned w)
{
    return (w & 0x00ff00ffu) + ((w >> 8) & 0x00ff00ffu);
}

/* Thread t adds bin t's 256 counters (64 words, read as 16-byte chunks) to acc and
 * clears them: eight loads in flight, then eight stores; the chunk order is skewed
 * by t so that each quarter-warp's 16-byte accesses fall in different banks. */
__device__ __forceinline__ void ks_hf_own8_flush(unsigned *cnt, unsigned t, unsigned &acc)
{
    uint4 *row = reinterpret_cast<uint4 *>(cnt + t * 64u);
    unsigned sum = 0; /* two 16-bit halves, each at most 64 x 2 x 240 */
#pragma unroll
    for (unsigned h = 0; h < 16u; h += 8u) {
        uint4 w[8];
#pragma unroll
        for (unsigned j = 0; j < 8u; ++j) w[j] = row[(h + j + t) & 15u];
#pragma unroll
        for (unsigned j = 0; j < 8u; ++j) row[(h + j + t) & 15u] = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (unsigned j = 0; j < 8u; ++j)
            sum += ks_hf_pairs(w[j].x) + ks_hf_pairs(w[j].y) + ks_hf_pairs(w[j].z) + ks_hf_pairs(w[j].w);
    }
    acc += (sum & 0xffffu) + (sum >> 16);
}

template <int LOADS>
__global__ void __launch_bounds__(KS_HF_T, 3)
    ks_hf_own8_kernel(const unsigned char *__restrict__ base, size_t n, unsigned *__restrict__ hist)
{
    constexpr int FLUSH_TILES = 240 / (16 * LOADS); /* tiles a thread counts between flushes */
    static_assert(FLUSH_TILES >= 1, "a tile fits under a flush");
    extern __shared__ unsigned ks_hf_cnt[];
    const unsigned t = threadIdx.x;
    for (unsigned i = t; i < KS_HF_OWN8_WORDS; i += KS_HF_T) ks_hf_cnt[i] = 0;
    const ks_hf_span s = ks_hf_span_of(base, n);
    if (blockIdx.x == 0) { /* the unaligned ends: global atomics, at most 30 */
        if (t < s.head) atomicAdd(hist + base[t], 1u);
        if (t < n - s.tail0) atomicAdd(hist + base[s.tail0 + t], 1u);
    }
    __syncthreads();
    unsigned *mine = ks_hf_cnt + (t & 63u);
    const unsigned inc = 1u << (8u * (t >> 6));
    unsigned acc = 0;
    int since = 0;
    ks_hf_tiles<LOADS>(
        s,
        [&](const uint4 &a) {
            const int u = ks_hf_uniform16(a); /* 16 counts fit: at most 240 between flushes */
            if (u >= 0) {
                atomicAdd(mine + ((unsigned)u << 6), inc << 4);
                return;
            }
            ks_hf_own8_word(mine, inc, a.x);
            ks_hf_own8_word(mine, inc, a.y);
            ks_hf_own8_word(mine, inc, a.z);
            ks_hf_own8_word(mine, inc, a.w);
        },
        [&] {
            if (++since == FLUSH_TILES) {
                since = 0;
                __syncthreads();
                ks_hf_own8_flush(ks_hf_cnt, t, acc);
                __syncthreads();
            }
        });
    __syncthreads();
    ks_hf_own8_flush(ks_hf_cnt, t, acc);
    if (acc) atomicAdd(hist + t, acc);
}

/* The loads of the kernels without the counting. */
template <int LOADS>
__global__ void __launch_bounds__(KS_HF_T) ks_hf_read_kernel(const unsigned char *__restrict__ base, size_t n,
                                                            unsigned *sink)
{
    const ks_hf_span s = ks_hf_span_of(base, n);
    unsigned x = 0;
    ks_hf_tiles<LOADS>(s, [&](const uint4 &a) { x ^= a.x ^ a.y ^ a.z ^ a.w; }, [] {});
    if (x == 0x9e3779b9u) *sink = x; /* keeps the loads; almost never taken */
}

/* ---- the table ----
 * X(name, summary, copies (0: own8), by_warp, loads) */
#define KS_HF_KINDS(X)                                                                                    \
    X("own8x5", "8-bit counters per thread, flushed every 240 bytes; 5 loads", 0, 0, 5)                   \
    X("lane1x2", "one 32-bit histogram a block (CUB's way); 2 loads", 1, 0, 2)                           \
    X("lane1x4", "one 32-bit histogram a block (CUB's way); 4 loads", 1, 0, 4)                           \
    X("lane1x8", "one 32-bit histogram a block (CUB's way); 8 loads", 1, 0, 8)                           \
    X("lane2x4", "2 interleaved copies, lane % 2; 4 loads", 2, 0, 4)                                      \
    X("lane4x2", "4 interleaved copies, lane % 4; 2 loads", 4, 0, 2)                                      \
    X("lane4x4", "4 interleaved copies, lane % 4; 4 loads", 4, 0, 4)                                      \
    X("lane4x8", "4 interleaved copies, lane % 4; 8 loads", 4, 0, 8)                                      \
    X("lane8x4", "8 interleaved copies, lane % 8; 4 loads", 8, 0, 4)                                      \
    X("lane16x4", "16 interleaved copies, lane % 16; 4 loads", 16, 0, 4)                                  \
    X("lane32x2", "a copy per lane: each lane its own bank; 2 loads", 32, 0, 2)                           \
    X("lane32x4", "a copy per lane: each lane its own bank; 4 loads", 32, 0, 4)                           \
    X("lane32x8", "a copy per lane: each lane its own bank; 8 loads", 32, 0, 8)                           \
    X("warp2x4", "2 interleaved copies, warp % 2; 4 loads", 2, 1, 4)                                      \
    X("warp4x4", "4 interleaved copies, warp % 4; 4 loads", 4, 1, 4)                                      \
    X("warp8x4", "8 interleaved copies, one a warp; 4 loads", 8, 1, 4)

typedef void (*ks_hf_fn)(const unsigned char *, size_t, unsigned *);

template <int COPIES, bool BY_WARP, int LOADS>
static constexpr ks_hf_fn ks_hf_entry()
{
    if constexpr (COPIES == 0)
        return ks_hf_own8_kernel<LOADS>;
    else
        return ks_hf_copies_kernel<COPIES, BY_WARP, LOADS>;
}

#define KS_HF_ROW(name, summary, copies, by_warp, loads) {name, summary, copies, by_warp, loads},
static const ks_hist_fast_kind ks_hf_kinds[] = {KS_HF_KINDS(KS_HF_ROW)};
#undef KS_HF_ROW
#define KS_HF_FN(name, summary, copies, by_warp, loads) ks_hf_entry<copies, (by_warp) != 0, loads>(),
static const ks_hf_fn ks_hf_fns[] = {KS_HF_KINDS(KS_HF_FN)};
#undef KS_HF_FN
enum { KS_HF_COUNT = (int)(sizeof ks_hf_kinds / sizeof ks_hf_kinds[0]), KS_HF_FLOOR_LOADS = 4 };

/* The finalists the scene's `warp` times on its input: the kernels and block counts
 * each input might favour (own8: input-independent; lane32: no bank conflicts on any
 * input, no flushes; lane1: CUB's way, fastest where bytes repeat within a warp;
 * lane4 and warp4 between). 0 blocks per SM: as many as fit. */
static const struct {
    const char *name;
    int per_sm;
} ks_hf_finalists[] = {{"own8x5", 0}, {"lane32x4", 0}, {"lane32x2", 0}, {"lane1x4", 0}, {"lane4x4", 0}, {"warp4x4", 0}};

struct ks_hist_fast {
    int sm_count;
    int per_sm[KS_HF_COUNT]; /* resident blocks per SM; 0: cannot run here */
    int floor_per_sm;
};

static size_t ks_hf_smem(int i)
{
    return ks_hf_kinds[i].copies ? (size_t)256 * ks_hf_kinds[i].copies * 4 : (size_t)KS_HF_OWN8_SMEM;
}

extern "C" int ks_hist_fast_count(void) { return KS_HF_COUNT; }

extern "C" const ks_hist_fast_kind *ks_hist_fast_get(int i)
{
    return i >= 0 && i < KS_HF_COUNT ? &ks_hf_kinds[i] : NULL;
}

extern "C" int ks_hist_fast_find(const char *name)
{
    for (int i = 0; name && i < KS_HF_COUNT; ++i)
        if (strcmp(ks_hf_kinds[i].name, name) == 0) return i;
    return -1;
}

static ks_status hist_fast_init(ks_hist_fast *h)
{
    int dev = 0, optin = 0;
    KS_CUDA_TRY(cudaGetDevice(&dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&h->sm_count, cudaDevAttrMultiProcessorCount, dev));
    KS_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    for (int i = 0; i < KS_HF_COUNT; ++i) {
        const size_t smem = ks_hf_smem(i);
        if (smem > (size_t)optin) continue; /* per_sm stays 0: this device cannot run it */
        if (smem > 48 * 1024)
            KS_CUDA_TRY(cudaFuncSetAttribute((const void *)ks_hf_fns[i], cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem));
        KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&h->per_sm[i], (const void *)ks_hf_fns[i], KS_HF_T,
                                                                  smem));
    }
    KS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &h->floor_per_sm, (const void *)ks_hf_read_kernel<KS_HF_FLOOR_LOADS>, KS_HF_T, 0));
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
    free(h);
}

extern "C" ks_status ks_hist_fast_attrs_get(const ks_hist_fast *h, int i, ks_hist_fast_attrs *out)
{
    if (i < 0 || i >= KS_HF_COUNT) return ks_fail(KS_ERR_INVALID, "histogram: no kernel %d", i);
    cudaFuncAttributes fa;
    KS_CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)ks_hf_fns[i]));
    out->max_per_sm = h->per_sm[i];
    out->regs = fa.numRegs;
    out->local_bytes = (int)fa.localSizeBytes;
    out->smem_bytes = (int)ks_hf_smem(i);
    return KS_OK;
}

/* Blocks: per_sm a SM (at most what fits), at most one per tile. */
static unsigned hist_fast_grid(const ks_hist_fast *h, int per_sm, int max_per_sm, size_t n, int loads)
{
    if (per_sm <= 0 || per_sm > max_per_sm) per_sm = max_per_sm;
    const size_t tiles = (n / 16 + (size_t)KS_HF_T * loads - 1) / ((size_t)KS_HF_T * loads);
    size_t g = (size_t)h->sm_count * (size_t)per_sm;
    if (g > tiles) g = tiles;
    return g ? (unsigned)g : 1u;
}

extern "C" ks_status ks_hist_fast_run(ks_hist_fast *h, int i, int per_sm, const unsigned char *data, size_t n,
                                      unsigned *hist, void *stream)
{
    if (i < 0 || i >= KS_HF_COUNT) return ks_fail(KS_ERR_INVALID, "histogram: no kernel %d", i);
    if (h->per_sm[i] < 1)
        return ks_fail(KS_ERR_UNSUPPORTED, "histogram: %s needs %zu bytes of shared memory a block", ks_hf_kinds[i].name,
                       ks_hf_smem(i));
    if (n >= ((size_t)1 << 32)) return ks_fail(KS_ERR_INVALID, "histogram: %zu bytes (fewer than 2^32)", n);
    if (n == 0) return KS_OK;
    const unsigned grid = hist_fast_grid(h, per_sm, h->per_sm[i], n, ks_hf_kinds[i].loads);
    ks_hf_fns[i]<<<grid, KS_HF_T, ks_hf_smem(i), (cudaStream_t)stream>>>(data, n, hist);
    KS_CUDA_TRY_LAUNCH("histogram bytes");
    return KS_OK;
}

extern "C" ks_status ks_hist_fast_read_floor(ks_hist_fast *h, const unsigned char *data, size_t n, unsigned *sink,
                                             void *stream)
{
    if ((uintptr_t)data & 15u) return ks_fail(KS_ERR_INVALID, "histogram read floor: data must be 16-byte aligned");
    const unsigned grid = hist_fast_grid(h, 0, h->floor_per_sm, n, KS_HF_FLOOR_LOADS);
    ks_hf_read_kernel<KS_HF_FLOOR_LOADS><<<grid, KS_HF_T, 0, (cudaStream_t)stream>>>(data, n, sink);
    KS_CUDA_TRY_LAUNCH("histogram read floor");
    return KS_OK;
}

extern "C" void ks_hist_fast_default(const ks_hist_fast *h, ks_hist_fast_pick *out)
{
    memset(out, 0, sizeof *out);
    const int own8 = ks_hist_fast_find("own8x5");
    out->kind = h && own8 >= 0 && h->per_sm[own8] > 0 ? own8 : ks_hist_fast_find("lane32x4");
    out->second_kind = -1;
}

extern "C" ks_status ks_hist_fast_choose(ks_hist_fast *h, const unsigned char *data, size_t n, unsigned *scratch,
                                         void *stream, ks_hist_fast_pick *out)
{
    ks_hist_fast_default(h, out);
    const cudaStream_t s = (cudaStream_t)stream;
    cudaEvent_t e0 = NULL, e1 = NULL;
    ks_status st = KS_OK;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        st = ks_fail(KS_ERR_CUDA, "histogram: cannot create events to choose a kernel");
    ks_hist_fast_pick p = *out;
    p.timed = 0;
    p.ms = p.second_ms = -1.0;
    for (size_t f = 0; f < sizeof ks_hf_finalists / sizeof ks_hf_finalists[0] && st == KS_OK; ++f) {
        const int i = ks_hist_fast_find(ks_hf_finalists[f].name);
        if (i < 0 || h->per_sm[i] < 1) continue;
        double best = -1.0;
        for (int r = 0; r < 4 && st == KS_OK; ++r) { /* r = 0: the warm-up (module load, clocks) */
            float ms = 0.0f;
            cudaError_t e = cudaEventRecord(e0, s);
            if (e == cudaSuccess) st = ks_hist_fast_run(h, i, ks_hf_finalists[f].per_sm, data, n, scratch, stream);
            if (st == KS_OK && e == cudaSuccess) e = cudaEventRecord(e1, s);
            if (st == KS_OK && e == cudaSuccess) e = cudaEventSynchronize(e1);
            if (st == KS_OK && e == cudaSuccess) e = cudaEventElapsedTime(&ms, e0, e1);
            if (st == KS_OK && e != cudaSuccess)
                st = ks_fail(KS_ERR_CUDA, "histogram: timing %s: %s", ks_hf_kinds[i].name, cudaGetErrorString(e));
            if (st == KS_OK && r > 0 && (best < 0.0 || ms < best)) best = ms;
        }
        if (st != KS_OK) break;
        ++p.timed;
        if (p.ms < 0.0 || best < p.ms) {
            p.second_kind = p.ms < 0.0 ? -1 : p.kind;
            p.second_ms = p.ms;
            p.kind = i;
            p.per_sm = ks_hf_finalists[f].per_sm;
            p.ms = best;
        } else if (p.second_ms < 0.0 || best < p.second_ms) {
            p.second_kind = i;
            p.second_ms = best;
        }
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (st == KS_OK && p.timed > 0) *out = p;
    return st;
}

extern "C" void ks_hist_fast_pick_text(const ks_hist_fast_pick *p, char *buf, size_t len)
{
    const ks_hist_fast_kind *k = ks_hist_fast_get(p->kind);
    const char *name = k ? k->name : "?";
    if (p->timed < 1)
        snprintf(buf, len, "%s (not chosen yet: input-independent default)", name);
    else if (p->second_kind >= 0)
        snprintf(buf, len, "%s (chosen for this input: %.4f ms vs %.4f for %s)", name, p->ms, p->second_ms,
                 ks_hist_fast_get(p->second_kind)->name);
    else
        snprintf(buf, len, "%s (chosen for this input: %.4f ms, the only one this GPU runs)", name, p->ms);
}
