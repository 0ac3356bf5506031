/* libkernelscope with fields in CUDA device memory: the picture of a device
 * field (sampled by a kernel on the caller's stream) equals the host path's
 * picture of the same values, byte for byte, for a packed field, a strided 3D
 * slice, a downsampled one, broadcasts (strides of 0 bytes) and a flipped
 * one; show() returns without waiting for the GPU
 * (the caller's stream keeps its own work queued). Exits 77 without a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "base/ks_util.h"
#include "lib/kernelscope.h"
#include "tests/test_util.h"

static char dir[256];

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* The same field through both paths: their PNGs the same bytes. */
static void same_picture(ks_viewer *v, const ks_viewer_field *host, const ks_viewer_field *dev, const char *name)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/%s_host.png", dir, name);
    snprintf(b, sizeof b, "%s/%s_dev.png", dir, name);
    assert_int_equal(ks_viewer_show(v, host), 0);
    assert_int_equal(ks_viewer_save(v, a, NULL, NULL), 0);
    if (ks_viewer_show(v, dev) != 0) fail_msg("%s", ks_viewer_last_error());
    assert_int_equal(ks_viewer_save(v, b, NULL, NULL), 0);
    size_t na, nb;
    char *pa = read_all(a, &na), *pb = read_all(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, na);
    free(pa);
    free(pb);
}

static void test_device_equals_host(void **state)
{
    (void)state;
    enum { NX = 300, NY = 120, NZ = 9 };
    const size_t n = (size_t)NX * NY * NZ;
    float *h = malloc(n * sizeof *h);
    assert_non_null(h);
    uint32_t seed = 99;
    for (size_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        h[i] = (float)(seed >> 20);
    }
    void *d = NULL;
    assert_int_equal(cudaMalloc(&d, n * sizeof *h), cudaSuccess);
    assert_int_equal(cudaMemcpy(d, h, n * sizeof *h, cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t stream;
    assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.range = {0, 4095}, .max_width = 100}, &v), 0);
    ks_viewer_field fh = {.data = h, .dims = 3, .size = {NX, NY, NZ}};
    ks_viewer_field fd = fh;
    fd.data = d;
    fd.memory = KS_VIEWER_DEVICE;
    fd.stream = stream;
    same_picture(v, &fh, &fd, "middle_z"); /* downsampled: 300 x 120 into 100 x 40 */
    fh.slice_axis = fd.slice_axis = 1;    /* across x: strided */
    fh.slice = fd.slice = 7;
    same_picture(v, &fh, &fd, "across_x");
    /* strides of 0 bytes and negative ones: a row repeated 5000 times (each pixel the mean of its
     * columns, the rows read once), a point repeated 2^60 times, the first plane upside down */
    const long long B = KS_VIEWER_BROADCAST;
    const ks_viewer_field layouts[] = {
        {.data = h, .dims = 2, .size = {NX, 5000}, .stride = {4, B}},
        {.data = h + 7, .dims = 2, .size = {1LL << 30, 1LL << 30}, .stride = {B, B}},
        {.data = h + (size_t)(NY - 1) * NX, .dims = 2, .size = {NX, NY}, .stride = {4, -4LL * NX}},
    };
    const char *names[] = {"broadcast_rows", "broadcast_point", "flipped"};
    for (int l = 0; l < 3; ++l) {
        ks_viewer_field lh = layouts[l], ld = layouts[l];
        ld.data = (const char *)d + ((const char *)lh.data - (const char *)h);
        ld.memory = KS_VIEWER_DEVICE;
        ld.stream = stream;
        same_picture(v, &lh, &ld, names[l]);
    }
    /* show() does not wait: a long kernel of the caller's queued first, show returns at once */
    double t0 = ks_now_seconds();
    for (int i = 0; i < 50; ++i) assert_int_equal(ks_viewer_show(v, &fd), 0);
    const double per_show_us = (ks_now_seconds() - t0) / 50 * 1e6;
    fprintf(stderr, "show of a device field: %.1f us of host time each (50 back to back)\n", per_show_us);
    assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
    ks_viewer_destroy(v);
    cudaStreamDestroy(stream);
    cudaFree(d);
    free(h);
}

/* ks_viewer_stage: the time between two CUDA events of the caller, read once
 * they have happened, shows in the page's stage panel; events made without
 * timing are refused with CUDA's words. */
static void test_stage_events(void **state)
{
    (void)state;
    ks_viewer *v = NULL;
    assert_int_equal(ks_viewer_create(&(ks_viewer_desc){.serve = "127.0.0.1:0"}, &v), 0);
    const size_t bytes = (size_t)256 << 20;
    void *d = NULL;
    assert_int_equal(cudaMalloc(&d, bytes), cudaSuccess);
    cudaStream_t stream;
    assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t start, end, plain_a, plain_b;
    assert_int_equal(cudaEventCreate(&start), cudaSuccess);
    assert_int_equal(cudaEventCreate(&end), cudaSuccess);
    for (int i = 0; i < 3; ++i) { /* the same pair every time, as a loop would */
        assert_int_equal(cudaEventRecord(start, stream), cudaSuccess);
        assert_int_equal(cudaMemsetAsync(d, i, bytes, stream), cudaSuccess);
        assert_int_equal(cudaEventRecord(end, stream), cudaSuccess);
        if (ks_viewer_stage(v, "memset", start, end) != 0) fail_msg("%s", ks_viewer_last_error());
    }
    assert_int_equal(cudaEventSynchronize(end), cudaSuccess);
    assert_int_equal(ks_viewer_stage(v, "memset", start, end), 0); /* done now: timed */
    float h[16] = {1, 2, 3};
    assert_int_equal(ks_viewer_show(v, &(ks_viewer_field){.data = h, .dims = 2, .size = {4, 4}}), 0);
    assert_int_equal(ks_viewer_save(v, "/dev/null", NULL, NULL), 0); /* drawn, so the page's state is out */
    const char *url = ks_viewer_url(v);
    const int port = atoi(strrchr(url, ':') + 1);
    char answer[65536] = "";
    assert_int_equal(ks_test_http(port, "GET", "/state.json", NULL, 0, 0, answer, sizeof answer), 200);
    const char *at = strstr(answer, "\"memset\":");
    if (!at) fail_msg("no memset stage in %s", answer);
    const double ms = atof(at + strlen("\"memset\":"));
    print_message("  256 MiB memset between the events: %.3f ms in the page's stage panel\n", ms);
    assert_true(ms > 0.0 && ms < 1000.0);
    /* events without timing */
    assert_int_equal(cudaEventCreateWithFlags(&plain_a, cudaEventDisableTiming), cudaSuccess);
    assert_int_equal(cudaEventCreateWithFlags(&plain_b, cudaEventDisableTiming), cudaSuccess);
    assert_int_equal(cudaEventRecord(plain_a, stream), cudaSuccess);
    assert_int_equal(cudaEventRecord(plain_b, stream), cudaSuccess);
    assert_int_equal(cudaEventSynchronize(plain_b), cudaSuccess);
    assert_int_equal(ks_viewer_stage(v, "plain", plain_a, plain_b), KS_VIEWER_ECUDA);
    print_message("  %s\n", ks_viewer_last_error());
    assert_non_null(strstr(ks_viewer_last_error(), "cudaEventDisableTiming"));
    ks_viewer_destroy(v);
    cudaEventDestroy(start);
    cudaEventDestroy(end);
    cudaEventDestroy(plain_a);
    cudaEventDestroy(plain_b);
    cudaStreamDestroy(stream);
    cudaFree(d);
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) return 77;
    ks_test_tmpdir(dir, sizeof dir, "viewergpu");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_device_equals_host), cmocka_unit_test(test_stage_events)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
