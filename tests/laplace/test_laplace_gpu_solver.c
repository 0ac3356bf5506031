/* The Laplace solver on the GPU beyond its variants (part of test_laplace_gpu,
 * laplace_gpu_util.h): CUDA graph replays and chunks, whole time blocks, the
 * field histogram, the residual, the slice render and the readback. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "kernels/laplace/field_histogram.h"
#include "kernels/laplace/laplace.h"
#include "laplace_gpu_util.h"

static void expect_same_fields(ks_lsolver *a, ks_lsolver *b, const ks_grid *g, const char *what)
{
    const size_t bytes = ks_grid_bytes(g);
    float *fa = malloc(bytes), *fb = malloc(bytes);
    assert_int_equal(ks_lsolver_download(a, fa), KS_OK);
    assert_int_equal(ks_lsolver_download(b, fb), KS_OK);
    if (memcmp(fa, fb, bytes) != 0) print_message("  %s: current fields differ\n", what);
    assert_memory_equal(fa, fb, bytes);
    assert_int_equal(ks_lsolver_download_previous(a, fa), KS_OK);
    assert_int_equal(ks_lsolver_download_previous(b, fb), KS_OK);
    if (memcmp(fa, fb, bytes) != 0) print_message("  %s: previous fields differ\n", what);
    assert_memory_equal(fa, fb, bytes);
    free(fa);
    free(fb);
}
/* CUDA graphs: frames replayed from captured graphs equal the same frames
 * launched directly, bit for bit (current and previous field), for every
 * variant on odd grids, previous fields poisoned first, whole and partial
 * time blocks, both previous-field modes interleaved as the live view runs
 * them, and a block change half way (a new capture). The current field also
 * equals the gold. Captures: one per parity of the launch count. */
void test_graph_replay(void **state)
{
    (void)state;
    const ks_grid g3 = {3, 37, 29, 23}, g2 = {2, 53, 41, 1};
    const int iters_list[] = {1, 7, 8};
    const int frames = 6;
    for (int id = 0; id < ks_lvariant_count(); ++id) {
        const ks_lvariant_info *info = ks_lvariant_get(id);
        const ks_grid *g = info->dims == 3 ? &g3 : &g2;
        const size_t bytes = ks_grid_bytes(g);
        float *u0 = malloc(bytes), *poison = malloc(bytes), *gold = malloc(bytes), *got = malloc(bytes);
        fill_random(g, 4321u + (unsigned)id, u0);
        make_poison(g, u0, poison);
        int block2[3] = {32, 8, 1};
        if (info->block_rank == 3) block2[2] = 4, block2[1] = 4;
        if (memcmp(block2, info->default_block, sizeof block2) == 0) block2[1] = 16;
        for (int ii = 0; ii < (g_quick ? 2 : 3); ++ii) {
            const int iters = iters_list[ii];
            ks_lsolver *direct = NULL, *graph = NULL;
            assert_int_equal(ks_lsolver_create(g, &direct), KS_OK);
            assert_int_equal(ks_lsolver_create(g, &graph), KS_OK);
            assert_int_equal(ks_lsolver_use_graphs(graph, 1), KS_OK);
            ks_lsolver *both[2] = {direct, graph};
            for (int n = 0; n < 2; ++n) {
                assert_int_equal(ks_lsolver_upload(both[n], u0), KS_OK);
                assert_int_equal(ks_lsolver_upload_previous(both[n], poison), KS_OK);
            }
            long long want_captures = 0;
            int parity_seen[2][2][2] = {{{0}}}; /* [block][prev mode][start parity] */
            int parity = 0;
            for (int f = 0; f < frames; ++f) {
                const ks_lprev prev = f % 3 == 2 ? KS_LPREV_EXACT : KS_LPREV_ANY;
                const int bi = f >= frames / 2;
                const int *block = bi ? block2 : info->default_block;
                for (int n = 0; n < 2; ++n) {
                    const ks_status st = ks_lsolver_run(both[n], id, block, iters, prev);
                    if (st != KS_OK) print_message("  %s: %s\n", info->name, ks_error_message());
                    assert_int_equal(st, KS_OK);
                }
                if (!parity_seen[bi][prev][parity]) ++want_captures;
                parity_seen[bi][prev][parity] = 1;
                parity ^= ks_lvariant_launches(id, iters, prev == KS_LPREV_EXACT) & 1;
                char what[96];
                snprintf(what, sizeof what, "%s, %d iterations/frame, frame %d", info->name, iters, f);
                expect_same_fields(direct, graph, g, what);
                gold_run(g, u0, (f + 1) * iters, gold, NULL);
                assert_int_equal(ks_lsolver_download(graph, got), KS_OK);
                size_t where;
                const double d = max_rel_diff(g, got, gold, &where);
                if (d > 1e-6) print_message("  %s: rel diff %.3g from the gold at %zu\n", what, d, where);
                assert_true(d <= 1e-6);
            }
            ks_lgraph_stats gs;
            ks_lsolver_graph_stats(graph, &gs);
            assert_true(gs.captures == want_captures);
            assert_true(gs.captures + gs.replays == frames);
            ks_lsolver_graph_stats(direct, &gs);
            assert_true(gs.captures == 0 && gs.replays == 0 && gs.cached == 0);
            assert_int_equal(ks_lsolver_use_graphs(graph, 0), KS_OK);
            ks_lsolver_graph_stats(graph, &gs);
            assert_int_equal(gs.cached, 0);
            ks_lsolver_destroy(direct);
            ks_lsolver_destroy(graph);
        }
        free(u0);
        free(poison);
        free(gold);
        free(got);
    }
}
/* Runs longer than one graph (256 launches) replay a chunk graph and then a
 * graph of the rest: still equal to direct launches bit for bit, and to the
 * gold; the chunk graph is captured once. */
void test_graph_chunks(void **state)
{
    (void)state;
    const ks_grid g3 = {3, 37, 29, 23}, g2 = {2, 53, 41, 1};
    const struct {
        const char *name;
        int dims, iters;
    } cases[] = {{"block2d", 2, 600}, {"vec2d", 2, 513}, {"tblock", 3, 1030}, {"tblock", 3, 2049}};
    /* thousands of launches: too many for the sanitizer's quick matrix, which checks the kernels */
    const size_t ncases = g_quick ? 0 : sizeof cases / sizeof cases[0];
    for (size_t c = 0; c < ncases; ++c) {
        const ks_grid *g = cases[c].dims == 3 ? &g3 : &g2;
        const int id = variant_id(cases[c].dims, cases[c].name);
        const int *block = ks_lvariant_get(id)->default_block;
        const size_t bytes = ks_grid_bytes(g);
        float *u0 = malloc(bytes), *poison = malloc(bytes), *gold = malloc(bytes), *gold_prev = malloc(bytes),
              *got = malloc(bytes);
        fill_random(g, 555u + (unsigned)c, u0);
        make_poison(g, u0, poison);
        ks_lsolver *direct = NULL, *graph = NULL;
        assert_int_equal(ks_lsolver_create(g, &direct), KS_OK);
        assert_int_equal(ks_lsolver_create(g, &graph), KS_OK);
        assert_int_equal(ks_lsolver_use_graphs(graph, 1), KS_OK);
        ks_lsolver *both[2] = {direct, graph};
        for (int n = 0; n < 2; ++n) {
            assert_int_equal(ks_lsolver_upload(both[n], u0), KS_OK);
            assert_int_equal(ks_lsolver_upload_previous(both[n], poison), KS_OK);
        }
        const int iters = cases[c].iters;
        for (int f = 0; f < 2; ++f) {
            const ks_lprev prev = f == 0 ? KS_LPREV_ANY : KS_LPREV_EXACT;
            for (int n = 0; n < 2; ++n) assert_int_equal(ks_lsolver_run(both[n], id, block, iters, prev), KS_OK);
            char what[96];
            snprintf(what, sizeof what, "%s, %d iterations in chunks, frame %d", cases[c].name, iters, f);
            expect_same_fields(direct, graph, g, what);
        }
        gold_run(g, u0, 2 * iters, gold, gold_prev);
        size_t where;
        assert_int_equal(ks_lsolver_download(graph, got), KS_OK);
        assert_true(max_rel_diff(g, got, gold, &where) <= 1e-6);
        assert_int_equal(ks_lsolver_download_previous(graph, got), KS_OK); /* exact on the last frame */
        assert_true(max_rel_diff(g, got, gold_prev, &where) <= 1e-6);
        ks_lgraph_stats gs;
        ks_lsolver_graph_stats(graph, &gs);
        /* per frame: whole chunks and one tail; the chunk captured once per parity, two tails */
        const int graphs_per_frame = (iters - 1) / (256 * ks_lvariant_get(id)->steps_per_launch) + 1;
        assert_true(gs.captures + gs.replays == 2 * graphs_per_frame);
        assert_true(gs.captures <= 4 && gs.replays >= 1);
        ks_lsolver_destroy(direct);
        ks_lsolver_destroy(graph);
        free(u0);
        free(poison);
        free(gold);
        free(gold_prev);
        free(got);
    }
}
/* A temporally blocked run with KS_LPREV_ANY is launches of T steps only and
 * still lands on the gold (current field); 0 iterations change nothing. */
void test_run_whole_blocks(void **state)
{
    (void)state;
    const ks_grid g = {3, 64, 20, 29};
    const int id = variant_id(3, "tblock");
    const size_t bytes = ks_grid_bytes(&g);
    float *u0 = malloc(bytes), *gold = malloc(bytes), *gold_prev = malloc(bytes), *got = malloc(bytes);
    fill_random(&g, 77u, u0);
    for (int iters = 0; iters <= 9; ++iters) {
        ks_lsolver *s = NULL;
        assert_int_equal(ks_lsolver_create(&g, &s), KS_OK);
        assert_int_equal(ks_lsolver_upload(s, u0), KS_OK);
        assert_int_equal(ks_lsolver_run(s, id, ks_lvariant_get(id)->default_block, iters, KS_LPREV_ANY), KS_OK);
        gold_run(&g, u0, iters, gold, gold_prev);
        assert_int_equal(ks_lsolver_download(s, got), KS_OK);
        size_t where;
        assert_true(max_rel_diff(&g, got, gold, &where) <= 1e-6);
        ks_lsolver_destroy(s);
    }
    ks_lsolver *s = NULL;
    assert_int_equal(ks_lsolver_create(&g, &s), KS_OK);
    assert_int_equal(ks_lsolver_run(s, id, ks_lvariant_get(id)->default_block, 4, (ks_lprev)7), KS_ERR_INVALID);
    ks_lsolver_destroy(s);
    free(u0);
    free(gold);
    free(gold_prev);
    free(got);
}
/* The field histogram (the Laplace colour bar's): equal to the CPU gold of the
 * same field, over ranges inside and around the values (clamped end bins),
 * for 1, 64 and the most bins; counts sum to the points; bad arguments refused. */
static int wait_hist(ks_lsolver *s, ks_lhist *out)
{
    memset(out, 0xff, sizeof *out); /* poisoned */
    for (int tries = 0; tries < 1000000; ++tries) {
        if (ks_lsolver_poll_histogram(s, out)) return 1;
        if (tries > 1000) cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s));
    }
    return 0;
}
void test_field_histogram(void **state)
{
    (void)state;
    const ks_grid grids[] = {{3, 37, 53, 29}, {2, 97, 61, 1}};
    for (int gi = 0; gi < 2; ++gi) {
        const ks_grid *g = &grids[gi];
        const size_t points = ks_grid_points(g), bytes = ks_grid_bytes(g);
        float *u0 = malloc(bytes), *cur = malloc(bytes);
        assert_non_null(u0);
        assert_non_null(cur);
        fill_random(g, 31u + (unsigned)gi, u0);
        ks_lsolver *s = NULL;
        assert_int_equal(ks_lsolver_create(g, &s), KS_OK);
        assert_int_equal(ks_lsolver_upload(s, u0), KS_OK);
        const int id = ks_lvariant_default(g->dims);
        assert_int_equal(ks_lsolver_iterate(s, id, ks_lvariant_get(id)->default_block, 5), KS_OK);
        assert_int_equal(ks_lsolver_download(s, cur), KS_OK);
        ks_lhist h;
        assert_int_equal(ks_lsolver_poll_histogram(s, &h), 0); /* nothing asked */
        assert_int_equal(ks_lsolver_histogram_pending(s), 0);
        const float ranges[3][2] = {{0.5f, 1.5f}, {0.9f, 1.1f}, {-3.0f, 7.0f}};
        const int bins[3] = {64, KS_LHIST_MAX_BINS, 1};
        for (int r = 0; r < 3; ++r)
            for (int b = 0; b < 3; ++b) {
                const float lo = ranges[r][0], hi = ranges[r][1];
                assert_int_equal(ks_lsolver_request_histogram(s, lo, hi, bins[b], 40 + r), KS_OK);
                assert_int_equal(ks_lsolver_histogram_pending(s), 1); /* until collected */
                assert_true(wait_hist(s, &h));
                assert_int_equal(ks_lsolver_histogram_pending(s), 0);
                assert_int_equal(h.bins, bins[b]);
                assert_true(h.lo == lo && h.hi == hi && h.iteration == 40 + r);
                uint64_t want[KS_LHIST_MAX_BINS] = {0};
                ks_field_hist_gold(cur, points, lo, hi, (unsigned)bins[b], want);
                uint64_t sum = 0;
                for (int k = 0; k < bins[b]; ++k) {
                    if (h.counts[k] != want[k])
                        fail_msg("grid %d range %d bins %d: bin %d: gpu %u, gold %llu", gi, r, bins[b], k,
                                 h.counts[k], (unsigned long long)want[k]);
                    sum += h.counts[k];
                }
                assert_true(sum == points);
                assert_int_equal(ks_lsolver_poll_histogram(s, &h), 0); /* taken */
            }
        assert_int_equal(ks_lsolver_request_histogram(s, 1.0f, 1.0f, 64, 0), KS_ERR_INVALID);
        assert_int_equal(ks_lsolver_request_histogram(s, 0.0f, 1.0f, 0, 0), KS_ERR_INVALID);
        assert_int_equal(ks_lsolver_request_histogram(s, 0.0f, 1.0f, KS_LHIST_MAX_BINS + 1, 0), KS_ERR_INVALID);
        ks_lsolver_destroy(s);
        free(u0);
        free(cur);
    }
}
void test_residual_render_readback(void **state)
{
    (void)state;
    const ks_grid grids[] = {{3, 37, 53, 29}, {2, 97, 61, 1}};
    for (int gi = 0; gi < 2; ++gi) {
        const ks_grid *g = &grids[gi];
        const size_t bytes = ks_grid_bytes(g);
        float *u0 = malloc(bytes), *cur = malloc(bytes), *prev = malloc(bytes);
        fill_random(g, 7u + (unsigned)gi, u0);
        ks_lsolver *s = NULL;
        assert_int_equal(ks_lsolver_create(g, &s), KS_OK);
        assert_int_equal(ks_lsolver_upload(s, u0), KS_OK);
        const int id = ks_lvariant_default(g->dims);
        const int *block = ks_lvariant_get(id)->default_block;
        /* no residual yet: -1 */
        const int probe[3] = {g->nx / 2, g->ny / 3, g->dims == 3 ? g->nz / 2 : 0};
        assert_int_equal(ks_lsolver_request_readback(s, KS_AXIS_Z, 0, probe, 0), KS_OK);
        ks_lreadback rb;
        int got_rb = 0;
        for (int tries = 0; tries < 100000 && !got_rb; ++tries) {
            got_rb = ks_lsolver_poll_readback(s, &rb);
            if (!got_rb && tries > 1000) cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s));
        }
        assert_true(got_rb);
        assert_true(rb.residual_rms == -1.0);
        assert_int_equal(ks_lsolver_iterate(s, id, block, 7), KS_OK);
        assert_int_equal(ks_lsolver_residual(s), KS_OK);
        const int zi = g->dims == 3 ? g->nz / 2 : 0;
        assert_int_equal(ks_lsolver_request_readback(s, KS_AXIS_Z, zi, probe, 7), KS_OK);
        got_rb = 0;
        for (int tries = 0; tries < 1000000 && !got_rb; ++tries) {
            got_rb = ks_lsolver_poll_readback(s, &rb);
            if (!got_rb && tries > 1000) cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s));
        }
        assert_true(got_rb);
        assert_int_equal(ks_lsolver_download(s, cur), KS_OK);
        assert_int_equal(ks_lsolver_download_previous(s, prev), KS_OK);
        const double sum = ks_laplace_gold_sumsq_diff(g, cur, prev);
        const double want_rms = sqrt(sum / (double)ks_grid_points(g));
        assert_true(sum > 0.0);
        assert_true(fabs(rb.residual_rms - want_rms) <= 1e-9 * want_rms);
        float lo, hi;
        ks_laplace_cpu_slice_minmax(g, cur, KS_AXIS_Z, zi, &lo, &hi);
        assert_true(rb.slice_min == lo && rb.slice_max == hi);
        const size_t pi = (size_t)probe[0] + (size_t)g->nx * ((size_t)probe[1] + (size_t)g->ny * probe[2]);
        assert_true(rb.probe_value == cur[pi]);
        assert_true(rb.iteration == 7 && rb.residual_iteration == 7 && rb.probe[0] == probe[0]);
        /* several requests in flight: the newest one wins */
        for (int r = 0; r < 5; ++r)
            assert_int_equal(ks_lsolver_request_readback(s, KS_AXIS_Z, zi, NULL, 100 + r), KS_OK);
        cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s));
        assert_int_equal(ks_lsolver_poll_readback(s, &rb), 1);
        assert_true(rb.iteration == 104 && isnan(rb.probe_value) && rb.probe[0] == -1);
        assert_true(rb.residual_rms == -1.0); /* the residual went with the request at 7 */
        assert_true(rb.residual_iteration == -1);
        /* a residual whose request is not the newest when collected still arrives, with its
         * own iteration (the live view computes it every k-th frame only) */
        assert_int_equal(ks_lsolver_residual(s), KS_OK);
        assert_int_equal(ks_lsolver_request_readback(s, KS_AXIS_Z, zi, NULL, 200), KS_OK);
        assert_int_equal(ks_lsolver_request_readback(s, KS_AXIS_Z, zi, NULL, 201), KS_OK);
        cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s));
        assert_int_equal(ks_lsolver_poll_readback(s, &rb), 1);
        assert_true(rb.iteration == 201 && rb.residual_iteration == 200);
        assert_true(fabs(rb.residual_rms - want_rms) <= 1e-9 * want_rms); /* the same fields as at 7 */
        assert_int_equal(ks_lsolver_poll_readback(s, &rb), 0);

        /* render each axis at a few indices, byte-exact with the CPU */
        const int naxes = g->dims == 3 ? 3 : 1;
        for (int ax = 0; ax < naxes; ++ax) {
            const int last = ks_slice_max_index(g, (ks_axis)ax);
            const int idx[3] = {0, last / 2, last};
            for (int n = 0; n < 3; ++n) {
                int w, h;
                ks_slice_dims(g, (ks_axis)ax, &w, &h);
                const size_t img = (size_t)w * h * 4;
                unsigned char *want = malloc(img), *gotimg = malloc(img);
                void *dst = NULL;
                assert_int_equal(cudaMalloc(&dst, img), cudaSuccess);
                const ks_colormap map = n == 1 ? KS_CMAP_TURBO : KS_CMAP_VIRIDIS;
                ks_laplace_cpu_slice_minmax(g, cur, (ks_axis)ax, idx[n], &lo, &hi);
                ks_laplace_cpu_render_slice(g, cur, (ks_axis)ax, idx[n], map, lo, hi, want);
                assert_int_equal(ks_lsolver_render_slice(s, (ks_axis)ax, idx[n], map, lo, hi, dst),
                                 KS_OK);
                assert_int_equal(cudaStreamSynchronize((cudaStream_t)ks_lsolver_stream(s)),
                                 cudaSuccess);
                assert_int_equal(cudaMemcpy(gotimg, dst, img, cudaMemcpyDeviceToHost), cudaSuccess);
                assert_memory_equal(gotimg, want, img);
                cudaFree(dst);
                free(want);
                free(gotimg);
            }
        }
        assert_int_equal(ks_lsolver_render_slice(s, KS_AXIS_Z, 100000, KS_CMAP_GRAY, 0, 1, NULL),
                         KS_ERR_INVALID);
        const ks_timing_opts three = {.reps = 3};
        ks_timing t;
        assert_int_equal(ks_lsolver_time(s, id, block, 3, &three, &t), KS_OK);
        assert_true(t.median_ms > 0.0 && t.reps == 3 && t.working_set_bytes > 0.0);
        ks_lsolver_destroy(s);
        free(u0);
        free(cur);
        free(prev);
    }
}
