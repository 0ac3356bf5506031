/* The matmul bench's measuring: every variant (and tiled's tile sizes) at
 * every size, checked bit for bit first (against the CPU gold on small and
 * odd sizes, against cuBLAS at large ones), then timed with events (median
 * after warm-up). Shared by `kernelscope bench matmul` (app/scenes/matmul/bench.c,
 * which writes the files) and the tests. */
#ifndef KS_MATMUL_BENCH_H
#define KS_MATMUL_BENCH_H

#include <stddef.h>

#include "base/bench_hook.h"
#include "matmul.h"
#include "matmul_user.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_MATMUL_BENCH_MAX_SIZES = 16, KS_MATMUL_BENCH_MAX_ROWS = 16 * 8,
       KS_MATMUL_GOLD_CHECK_MAX = 1024, /* gold check when M, N, K are all at most this */
       KS_MATMUL_BENCH_MAX_USERS = 8 /* kernel files */ };

typedef struct ks_matmul_bench_desc {
    int use_cuda;                 /* 0: the CPU gold only */
    const ks_matmul_size *sizes;  /* NULL -> 1024, 2048, 4096, 8192 (CPU: 256, 512) */
    int size_n;
    int variants[KS_MATMUL_NUM];  /* 1: run it; all 0 -> every variant (cublas always runs) */
    const int *tiles;             /* tiled's tiles; NULL -> 8, 16, 32 */
    int tile_n;
    ks_timing_opts timing;        /* the cache policy and repetitions (base/bench_timing.h;
                                     zero: cold under 4x the L2, until the median's SE is under 1 %);
                                     a slow cell (over 200 ms a launch) takes at most 3, no warm-up */
    double mem_bytes;             /* device memory to stay under (0: no limit) */
    /* users' kernels (--kernel-file), loaded, each checked in the checker process
       already; here checked again at every size (against the gold or cuBLAS,
       within ks_matmul_check_tolerance) before it is timed */
    ks_matmul_user *const *users;
    int user_n;
    int user_block[3];            /* their block */
    ks_bench_hook after_row;      /* optional: each row's kernel once more after its timing (bench --counters) */
} ks_matmul_bench_desc;

typedef struct ks_matmul_bench_row {
    char variant[64];   /* "naive", "tiled", "regtile", "cublas", "gold", or a kernel file's name */
    ks_matmul_size size;
    int tile;           /* tiled's T; 0 for the others */
    ks_matmul_tile block_tile; /* the tile of C a block computes ({0, 0}: cublas, gold, a kernel file) */
    char config[48];    /* regtile: its shape ("128x256x16/64x64/8x16"); "" for the others */
    char config_how[96]; /* regtile: how the shape was chosen ("tile 128x256x16 (measured table, H200 at 4096^3)") */
    ks_timing timing;   /* median, repetitions, SE, cache policy */
    double ms, gflops;  /* ms: the median (timing.median_ms) */
    double pct_cublas;  /* < 0: n/a */
    double pct_peak;    /* < 0: n/a */
} ks_matmul_bench_row;

typedef struct ks_matmul_bench_result {
    char device[256];
    char cc[8];           /* compute capability "9.0" (set by the caller); "" / "-" on the CPU */
    int use_cuda;
    double peak_gflops;   /* measured FMA throughput (0 on the CPU) */
    int row_n;
    ks_matmul_bench_row rows[KS_MATMUL_BENCH_MAX_ROWS];
    char check[512];      /* what the correctness check compared */
    char note[512];       /* skipped sizes, CPU note */
} ks_matmul_bench_result;

ks_status ks_matmul_bench_run(const ks_matmul_bench_desc *d, ks_matmul_bench_result *r);
/* Text table and CSV (device, variant, m, n, k, tile, config, ms, gflops, pct_cublas, pct_peak, cc,
 * cache, reps, se_pct, in_l2) into buf; return the length they need (snprintf-style). */
size_t ks_matmul_bench_table(const ks_matmul_bench_result *r, char *buf, size_t len);
size_t ks_matmul_bench_csv(const ks_matmul_bench_result *r, char *buf, size_t len);
/* Checks the given variant and tile on the GPU against gold (M*N floats) bit for bit, C
 * poisoned first; KS_ERR_INVALID naming the first differing element. */
ks_status ks_matmul_check_variant(ks_matmul_gpu *g, const ks_matmul_size *s, ks_matmul_variant v, int tile,
                                  const float *gold, float *scratch);

#ifdef __cplusplus
}
#endif
#endif
