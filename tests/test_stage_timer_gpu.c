/* The stage timer with CUDA events, and a stage on the host clock beside
 * them: with the timer's stream busy (a queue of large copies), an event stage
 * begins only when that queue drains, while a host-clocked stage times what
 * the host saw, and a stage recorded from elsewhere keeps its value. Exits 77 without a CUDA device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "base/stage_timer.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fail_msg("%s: %s", what, cudaGetErrorString(e));
}

static void test_host_clock_beside_events(void **state)
{
    (void)state;
    cudaStream_t st = NULL;
    cuda_ok(cudaStreamCreate(&st), "cudaStreamCreate");
    const size_t bytes = (size_t)256 << 20;
    void *a = NULL, *b = NULL;
    cuda_ok(cudaMalloc(&a, bytes), "cudaMalloc");
    cuda_ok(cudaMalloc(&b, bytes), "cudaMalloc");
    ks_stage_timer *t = NULL;
    const ks_stage_timer_desc d = {1, st};
    assert_int_equal(ks_stage_timer_create(&d, &t), KS_OK);
    const int ev = ks_stage_timer_stage(t, "events"), host = ks_stage_timer_stage(t, "host"),
              rec = ks_stage_timer_stage(t, "recorded");
    ks_stage_timer_host_clock(t, host);
    ks_stage_timer_host_clock(t, -1); /* out of range: ignored */
    ks_stage_timer_host_clock(t, KS_TIMER_MAX_STAGES);
    assert_int_equal(ks_stage_timer_frame_begin(t), KS_OK);
    /* the stream's queue: copies that keep it busy well past the host's part */
    for (int k = 0; k < 40; ++k) cuda_ok(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, st), "copy");
    /* both stages bracket the same host-side wait for the whole queue */
    const double t0 = now_ms();
    assert_int_equal(ks_stage_timer_begin(t, host), KS_OK);
    assert_int_equal(ks_stage_timer_begin(t, ev), KS_OK);
    cuda_ok(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    assert_int_equal(ks_stage_timer_end(t, ev), KS_OK);
    assert_int_equal(ks_stage_timer_end(t, host), KS_OK);
    const double wall = now_ms() - t0;
    ks_stage_timer_record(t, rec, 7.25); /* timed elsewhere (the multi-GPU run's own events) */
    assert_int_equal(ks_stage_timer_frame_end(t), KS_OK);
    assert_int_equal(ks_stage_timer_drain(t), KS_OK);
    ks_stage_stats se, sh, sr;
    ks_stage_timer_stats(t, ev, &se);
    ks_stage_timer_stats(t, host, &sh);
    ks_stage_timer_stats(t, rec, &sr);
    assert_int_equal(sr.samples, 1);
    assert_true(sr.median_ms == 7.25);
    assert_int_equal(se.samples, 1);
    assert_int_equal(sh.samples, 1);
    print_message("  queue drained in %.3f ms: host-clocked stage %.3f ms, event stage %.3f ms\n", wall,
                  sh.median_ms, se.median_ms);
    /* the host stage saw the wait; the event stage began behind the copies */
    assert_true(sh.median_ms <= wall + 1e-6);
    assert_true(sh.median_ms >= 0.5 * wall);
    assert_true(se.median_ms < 0.5 * sh.median_ms);
    ks_stage_timer_destroy(t);
    cudaFree(a);
    cudaFree(b);
    cudaStreamDestroy(st);
}

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_host_clock_beside_events)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
