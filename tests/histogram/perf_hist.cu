/* Byte-histogram perf harness (an executable, not a test): the byte kernels of
 * kernels/histogram/hist_fast.h swept over their shapes (copies of the block's
 * histogram and how a thread picks its copy, 16-byte loads in flight) and blocks
 * per SM, against CUB (cub::DeviceHistogram::HistogramEven, as the scene calls it)
 * and the scene's `warp` (the kernel it chose for the input, ks_hist_choose), on
 * the scene's three inputs (ks_hist_generate, seed 1: English-like text, uniform
 * random bytes, all 'a'). Every kernel is first checked exactly against a CPU
 * count on short inputs at every alignment and on each input (twice: they add).
 * Every row clears the counts in its timing (CUB its own init launch inside its
 * call; the others a cudaMemsetAsync before their launch). Median of --reps
 * (default 101) back-to-back runs between CUDA events, after 5 warm-ups; "read" is
 * the kernels' loads alone (the floor under them). Under a minute on an H200.
 * Usage: perf_hist [--bytes N] [--reps N]. Exit 77: no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include "base/ks_error.h"
#include "kernels/histogram/hist_fast.h"
#include "kernels/histogram/histogram.h"

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "perf_hist: %s: %s\n", #x, cudaGetErrorString(e_));                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define KS(x)                                                                                      \
    do {                                                                                           \
        if ((x) != KS_OK) {                                                                        \
            fprintf(stderr, "perf_hist: %s\n", ks_error_message());                                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { MAX_REPS = 1001, MAX_ROWS = 160, ROW_CUB = -1, ROW_WARP = -2, ROW_READ = -3 };

/* A row: CUB, the scene's warp, the read floor, or kernel kind at per_sm blocks a SM. */
typedef struct row {
    int kind, per_sm;
} row;

typedef struct ctx {
    cudaStream_t stream;
    ks_hist_fast *fast;
    ks_hist_ctx *lib;
    int warp_id;
    unsigned char *data; /* device */
    size_t n;
    unsigned *hist, *sink;
    void *cub_tmp;
    size_t cub_tmp_size;
    cudaEvent_t ev[MAX_REPS + 1];
} ctx;

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void launch(ctx *x, row r, const unsigned char *data, size_t n)
{
    if (r.kind == ROW_CUB) {
        size_t need = 0;
        CK(cub::DeviceHistogram::HistogramEven((void *)NULL, need, data, (int *)x->hist, 257, 0, 256, (int)n,
                                               x->stream));
        if (need > x->cub_tmp_size) {
            CK(cudaFree(x->cub_tmp));
            CK(cudaMalloc(&x->cub_tmp, need));
            x->cub_tmp_size = need;
        }
        CK(cub::DeviceHistogram::HistogramEven(x->cub_tmp, need, data, (int *)x->hist, 257, 0, 256, (int)n,
                                               x->stream));
    } else if (r.kind == ROW_READ) {
        KS(ks_hist_fast_read_floor(x->fast, data, n, x->sink, x->stream));
    } else {
        CK(cudaMemsetAsync(x->hist, 0, 256 * sizeof(unsigned), x->stream));
        if (r.kind == ROW_WARP) {
            ks_hist_input in;
            memset(&in, 0, sizeof in);
            in.data = data;
            in.n = n;
            in.mode = KS_HIST_BYTES;
            in.bins = 256;
            KS(ks_hist_run(x->lib, x->warp_id, &in, 0, n, x->hist, x->stream));
        } else {
            KS(ks_hist_fast_run(x->fast, r.kind, r.per_sm, data, n, x->hist, x->stream));
        }
    }
}

static double time_row(ctx *x, row r, int reps)
{
    for (int w = 0; w < 5; ++w) launch(x, r, x->data, x->n);
    CK(cudaEventRecord(x->ev[0], x->stream));
    for (int k = 0; k < reps; ++k) {
        launch(x, r, x->data, x->n);
        CK(cudaEventRecord(x->ev[k + 1], x->stream));
    }
    CK(cudaEventSynchronize(x->ev[reps]));
    CK(cudaGetLastError());
    static float ms[MAX_REPS];
    for (int k = 0; k < reps; ++k) CK(cudaEventElapsedTime(&ms[k], x->ev[k], x->ev[k + 1]));
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    return ms[reps / 2];
}

/* As the scene's bench times warm: each run between its own two events, waited for. */
static double time_row_waited(ctx *x, row r, int reps)
{
    for (int w = 0; w < 3; ++w) launch(x, r, x->data, x->n);
    static float ms[MAX_REPS];
    for (int k = 0; k < reps; ++k) {
        CK(cudaEventRecord(x->ev[0], x->stream));
        launch(x, r, x->data, x->n);
        CK(cudaEventRecord(x->ev[1], x->stream));
        CK(cudaEventSynchronize(x->ev[1]));
        CK(cudaEventElapsedTime(&ms[k], x->ev[0], x->ev[1]));
    }
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    return ms[reps / 2];
}

/* Runs r on data[0..n) (device) and compares with want; 0 when equal. */
static int check(ctx *x, row r, const unsigned char *data, size_t n, const unsigned *want, const char *what)
{
    unsigned got[256];
    CK(cudaMemsetAsync(x->hist, 0xab, 256 * sizeof(unsigned), x->stream)); /* poison (the rows clear it) */
    launch(x, r, data, n);
    CK(cudaMemcpyAsync(got, x->hist, sizeof got, cudaMemcpyDeviceToHost, x->stream));
    CK(cudaStreamSynchronize(x->stream));
    for (int b = 0; b < 256; ++b)
        if (got[b] != want[b]) {
            printf("WRONG %s: bin %d has %u, not %u\n", what, b, got[b], want[b]);
            return 1;
        }
    return 0;
}

static void cpu_count(const unsigned char *p, size_t n, unsigned *h)
{
    memset(h, 0, 256 * sizeof *h);
    for (size_t i = 0; i < n; ++i) ++h[p[i]];
}

static void row_name(ctx *x, row r, char *buf, size_t len)
{
    if (r.kind == ROW_CUB) snprintf(buf, len, "cub");
    else if (r.kind == ROW_READ) snprintf(buf, len, "read (floor)");
    else if (r.kind == ROW_WARP) snprintf(buf, len, "warp (scene)");
    else {
        ks_hist_fast_attrs a;
        KS(ks_hist_fast_attrs_get(x->fast, r.kind, &a));
        snprintf(buf, len, "%s/%d", ks_hist_fast_get(r.kind)->name, r.per_sm ? r.per_sm : a.max_per_sm);
    }
}

int main(int argc, char **argv)
{
    size_t bytes = (size_t)100 << 20;
    int reps = 101;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--bytes") == 0 && a + 1 < argc)
            bytes = (size_t)strtoull(argv[++a], NULL, 10);
        else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc)
            reps = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: perf_hist [--bytes N] [--reps N]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || bytes < 1024 || bytes > ((size_t)1 << 31)) {
        fprintf(stderr, "perf_hist: --reps 1..%d, --bytes 1024..2^31\n", MAX_REPS);
        return 2;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "perf_hist: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, L2 %d MiB; input %zu bytes\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20, bytes);

    ctx x;
    memset(&x, 0, sizeof x);
    CK(cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking));
    for (int r = 0; r <= MAX_REPS; ++r) CK(cudaEventCreate(&x.ev[r]));
    KS(ks_hist_fast_create(&x.fast));
    KS(ks_hist_ctx_create(&x.lib));
    x.warp_id = ks_hist_variant_find("warp");
    x.n = bytes;
    CK(cudaMalloc((void **)&x.data, bytes + 64));
    CK(cudaMalloc((void **)&x.hist, 256 * sizeof(unsigned)));
    CK(cudaMalloc((void **)&x.sink, sizeof(unsigned)));
    unsigned char *host = (unsigned char *)malloc(bytes + 64);
    if (!host) return 1;

    /* the rows: CUB, the scene's warp, every kernel at 1, 2, 3, 4, 6, 8 blocks a SM (those that fit), the floor */
    const int nc = ks_hist_fast_count();
    static row rows[MAX_ROWS];
    int nrows = 0;
    rows[nrows++] = (row){ROW_CUB, 0};
    rows[nrows++] = (row){ROW_WARP, 0};
    printf("%-9s %5s %6s %6s %9s  %s\n", "kind", "regs", "local", "smem", "blocks/SM", "what");
    for (int i = 0; i < nc; ++i) {
        ks_hist_fast_attrs a;
        KS(ks_hist_fast_attrs_get(x.fast, i, &a));
        printf("%-9s %5d %6d %6d %9d  %s\n", ks_hist_fast_get(i)->name, a.regs, a.local_bytes, a.smem_bytes,
               a.max_per_sm, ks_hist_fast_get(i)->summary);
        static const int per_sm[] = {1, 2, 3, 4, 6, 8};
        for (size_t p = 0; p < sizeof per_sm / sizeof per_sm[0] && nrows < MAX_ROWS - 1; ++p)
            if (per_sm[p] <= a.max_per_sm) rows[nrows++] = (row){i, per_sm[p]};
    }
    rows[nrows++] = (row){ROW_READ, 0};

    int fails = 0;
    unsigned want[256];
    /* short inputs at every start offset: the bytewise head and tail, the equal-16 path */
    {
        const size_t lens[] = {1, 15, 16, 17, 100, 4095, 1000003};
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; ++l)
            for (int off = 0; off < 16; off += (lens[l] > 5000 ? 3 : 1)) {
                ks_hist_generate(l % 2 ? KS_HIST_IN_TEXT : KS_HIST_IN_UNIFORM, 7 + l, host, lens[l] + off);
                if (l == 2) memset(host, 'a', lens[l] + off);
                CK(cudaMemcpy(x.data, host, lens[l] + off, cudaMemcpyHostToDevice));
                cpu_count(host + off, lens[l], want);
                for (int i = 0; i < nc; ++i) {
                    ks_hist_fast_attrs a;
                    KS(ks_hist_fast_attrs_get(x.fast, i, &a));
                    if (a.max_per_sm < 1) continue;
                    char what[96];
                    snprintf(what, sizeof what, "%s, %zu bytes at offset %d", ks_hist_fast_get(i)->name, lens[l], off);
                    fails += check(&x, (row){i, 0}, x.data + off, lens[l], want, what);
                }
            }
        printf("short inputs (1..1000003 bytes, offsets 0..15): %s\n", fails ? "WRONG" : "every kernel exact");
    }

    const ks_hist_input_kind kinds[] = {KS_HIST_IN_TEXT, KS_HIST_IN_UNIFORM, KS_HIST_IN_EQUAL};
    static double res[3][MAX_ROWS];
    double waited[3][2];
    char chosen[3][160];
    for (int k = 0; k < 3; ++k) {
        ks_hist_generate(kinds[k], 1, host, bytes);
        CK(cudaMemcpy(x.data, host, bytes, cudaMemcpyHostToDevice));
        cpu_count(host, bytes, want);
        /* the scene's choice for this input, as ks_hist_gpu_create makes it */
        ks_hist_input in;
        memset(&in, 0, sizeof in);
        in.data = x.data;
        in.n = bytes;
        in.mode = KS_HIST_BYTES;
        in.bins = 256;
        KS(ks_hist_choose(x.lib, &in, x.stream));
        ks_hist_choice_text(x.lib, chosen[k], sizeof chosen[k]);
        for (int r = 0; r < nrows; ++r) {
            if (rows[r].kind == ROW_READ || (rows[r].kind >= 0 && rows[r].per_sm != 1)) continue;
            char name[64], what[128];
            row_name(&x, rows[r], name, sizeof name);
            snprintf(what, sizeof what, "%s on %s", name, ks_hist_input_name(kinds[k]));
            for (int twice = 0; twice < 2; ++twice) fails += check(&x, rows[r], x.data, bytes, want, what);
        }
        for (int r = 0; r < nrows; ++r) res[k][r] = time_row(&x, rows[r], reps);
        for (int r = 0; r < 2; ++r) waited[k][r] = time_row_waited(&x, rows[r], 51);
    }
    printf("\n# median ms of %d back-to-back runs (each clears the counts); x_cub = CUB ms / row ms; "
           "kind/B: B blocks a SM\n", reps);
    printf("%-16s %9s %9s %9s  %7s %7s %7s  %8s\n", "row", "text", "uniform", "equal", "x_cub", "x_cub", "x_cub",
           "GB/s txt");
    int best = -1, best_k[3] = {-1, -1, -1};
    double best_min = 0.0;
    for (int r = 0; r < nrows; ++r) {
        char name[64];
        row_name(&x, rows[r], name, sizeof name);
        printf("%-16s %9.4f %9.4f %9.4f  %7.3f %7.3f %7.3f  %8.1f\n", name, res[0][r], res[1][r], res[2][r],
               res[0][0] / res[0][r], res[1][0] / res[1][r], res[2][0] / res[2][r],
               (double)bytes / (res[0][r] * 1e-3) / 1e9);
        if (rows[r].kind < 0) continue;
        double m = 1e30;
        for (int k = 0; k < 3; ++k) {
            m = res[k][0] / res[k][r] < m ? res[k][0] / res[k][r] : m;
            if (best_k[k] < 0 || res[k][r] < res[k][best_k[k]]) best_k[k] = r;
        }
        if (best < 0 || m > best_min) {
            best = r;
            best_min = m;
        }
    }
    printf("# as the scene's bench times warm: median of 51 runs, each waited for\n");
    for (int r = 0; r < 2; ++r) {
        char name[64];
        row_name(&x, rows[r], name, sizeof name);
        printf("%-16s %9.4f %9.4f %9.4f  %7.3f %7.3f %7.3f\n", name, waited[0][r], waited[1][r], waited[2][r],
               waited[0][0] / waited[0][r], waited[1][0] / waited[1][r], waited[2][0] / waited[2][r]);
    }
    for (int k = 0; k < 3; ++k) {
        char name[64];
        row_name(&x, rows[best_k[k]], name, sizeof name);
        printf("BEST on %-7s %s %.4f ms, x_cub %.3f; the scene chose %s\n", ks_hist_input_name(kinds[k]), name,
               res[k][best_k[k]], res[k][0] / res[k][best_k[k]], chosen[k]);
    }
    printf("SCENE warp x_cub: text %.3f uniform %.3f equal %.3f\n", res[0][0] / res[0][1], res[1][0] / res[1][1],
           res[2][0] / res[2][1]);
    if (best >= 0) {
        char name[64];
        row_name(&x, rows[best], name, sizeof name);
        printf("BEST one kernel for all: %s: x_cub text %.3f uniform %.3f equal %.3f (worst %.3f)\n", name,
               res[0][0] / res[0][best], res[1][0] / res[1][best], res[2][0] / res[2][best], best_min);
    }
    printf("check: %s\n", fails ? "SOME KERNELS WRONG" : "every kernel exact on every input");
    free(host);
    ks_hist_ctx_destroy(x.lib);
    ks_hist_fast_destroy(x.fast);
    return fails ? 1 : 0;
}
