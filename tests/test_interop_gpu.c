/* The copy path's ring (display/interop.h) on a GPU: each slot's host
 * picture is exactly what its device buffer held when the copy was queued,
 * with two frames in flight; the bad calls are refused; the test switch makes
 * registration fail. Exits 77 without a CUDA device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime.h>

#include "base/cuda_device.h"
#include "display/interop.h"

enum { BYTES = 97 * 61 * 4 + 3, FRAMES = 7 };

static void check_ok(ks_status st, const char *what)
{
    if (st != KS_OK) fail_msg("%s: %s", what, ks_error_message());
}

static void cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fail_msg("%s: %s", what, cudaGetErrorString(e));
}

/* Random bytes, different for every frame. */
static void pattern(unsigned char *p, int frame)
{
    uint32_t x = 0x9E3779B9u * (uint32_t)(frame + 1);
    for (size_t i = 0; i < BYTES; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (unsigned char)(x >> 24);
    }
}

/* The scene's part: write frame f into the slot's device buffer on stream. */
static void draw_frame(ks_copy_ring *cr, int slot, int f, cudaStream_t stream, unsigned char *staging)
{
    void *dev = NULL;
    check_ok(ks_copy_ring_acquire(cr, slot, stream, &dev), "acquire");
    assert_non_null(dev);
    cuda_ok(cudaMemsetAsync(dev, 0xCD, BYTES, stream), "poison"); /* a skipped write shows */
    pattern(staging, f);
    cuda_ok(cudaMemcpyAsync(dev, staging, BYTES, cudaMemcpyHostToDevice, stream), "write");
    check_ok(ks_copy_ring_submit(cr, slot, BYTES, stream), "submit");
}

static void test_two_frames_in_flight(void **state)
{
    (void)state;
    ks_copy_ring *cr = NULL;
    check_ok(ks_copy_ring_create(&(ks_copy_ring_desc){.slots = 2, .bytes = BYTES}, &cr), "create");
    cudaStream_t stream;
    cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    unsigned char *staging[2], *want = malloc(BYTES);
    for (int s = 0; s < 2; ++s) cuda_ok(cudaHostAlloc((void **)&staging[s], BYTES, cudaHostAllocDefault), "staging");
    /* frame f goes to slot f % 2 and is read back one frame later, after f + 1 was queued */
    draw_frame(cr, 0, 0, stream, staging[0]);
    for (int f = 1; f <= FRAMES; ++f) {
        if (f < FRAMES) draw_frame(cr, f % 2, f, stream, staging[f % 2]);
        const int prev = f - 1;
        const void *host = NULL;
        check_ok(ks_copy_ring_host(cr, prev % 2, &host), "host");
        pattern(want, prev);
        if (memcmp(host, want, BYTES) != 0) fail_msg("slot %d does not hold frame %d", prev % 2, prev);
        memset((void *)host, 0x5A, BYTES); /* poison: the next copy into it must overwrite all */
        cuda_ok(cudaStreamSynchronize(stream), "sync"); /* staging[] is reused two frames on */
    }
    for (int s = 0; s < 2; ++s) cudaFreeHost(staging[s]);
    free(want);
    cudaStreamDestroy(stream);
    ks_copy_ring_destroy(cr);
}

static void test_refusals(void **state)
{
    (void)state;
    ks_copy_ring *cr = NULL;
    const void *host = NULL;
    void *dev = NULL;
    /* slots 0: the default, two buffers */
    check_ok(ks_copy_ring_create(&(ks_copy_ring_desc){.bytes = 64}, &cr), "create default slots");
    check_ok(ks_copy_ring_acquire(cr, 1, NULL, &dev), "acquire slot 1 of the default two");
    assert_int_equal(ks_copy_ring_acquire(cr, 2, NULL, &dev), KS_ERR_INVALID);
    ks_copy_ring_destroy(cr);
    cr = (ks_copy_ring *)1;
    assert_int_equal(ks_copy_ring_create(&(ks_copy_ring_desc){.slots = 9, .bytes = BYTES}, &cr), KS_ERR_INVALID);
    assert_null(cr);
    assert_int_equal(ks_copy_ring_create(&(ks_copy_ring_desc){.slots = -1, .bytes = BYTES}, &cr), KS_ERR_INVALID);
    assert_int_equal(ks_copy_ring_create(&(ks_copy_ring_desc){.slots = 2}, &cr), KS_ERR_INVALID); /* bytes required */
    assert_int_equal(ks_copy_ring_create(NULL, &cr), KS_ERR_INVALID);
    check_ok(ks_copy_ring_create(&(ks_copy_ring_desc){.slots = 2, .bytes = 64}, &cr), "create");
    dev = NULL;
    assert_int_equal(ks_copy_ring_host(cr, 0, &host), KS_ERR_INVALID); /* nothing submitted yet */
    assert_int_equal(ks_copy_ring_acquire(cr, 2, NULL, &dev), KS_ERR_INVALID);
    assert_int_equal(ks_copy_ring_acquire(cr, -1, NULL, &dev), KS_ERR_INVALID);
    assert_int_equal(ks_copy_ring_submit(cr, 0, 65, NULL), KS_ERR_INVALID);
    assert_non_null(strstr(ks_error_message(), "do not fit"));
    ks_copy_ring_destroy(cr);
    ks_copy_ring_destroy(NULL);
}

static void test_forced_registration_failure(void **state)
{
    (void)state;
    setenv("KERNELSCOPE_FORCE_INTEROP_FAIL", "1", 1);
    ks_interop *io = (ks_interop *)1;
    assert_int_equal(ks_interop_register(1, &io), KS_ERR_CUDA);
    assert_null(io);
    assert_non_null(strstr(ks_error_message(), "cudaGraphicsGLRegisterBuffer"));
    unsetenv("KERNELSCOPE_FORCE_INTEROP_FAIL");
}

int main(void)
{
    ks_device_info info;
    if (ks_cuda_probe(&info) != KS_OK || !info.present) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_frames_in_flight),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_forced_registration_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
