/* A user's kernel on the GPU (--kernel-file): a correct one matches the gold;
 * a wrong one is refused with its first mismatching cell, and its difference
 * slice (the live view's D) is nonzero exactly where it is wrong; a live run reloads
 * the file on every save and keeps running through builds that fail; bench
 * rows carry the file's name; an out-of-bounds write and an endless loop are
 * caught in the checker process, which is then replaced, also while a live
 * run goes on; under compute-sanitizer (where it is found) a fault names the
 * user's file and line. The tests that make a kernel fault run last: on some GPUs
 * (H100 in a virtual machine, driver 580) a fault in one process leaves the
 * GPU unable to switch between two busy contexts (NVIDIA Xid 31, then Xid
 * 109 for the next one), which would stall the tests after them (a live run
 * checks on a second GPU of the same kind when there is one, which keeps its
 * own GPU clear of its checks' faults);
 * KS_TEST_NO_FAULTS=1 skips them and KS_TEST_FAULTS_ONLY=1 runs them alone:
 * ctest runs them as test_user_kernel_faults_gpu, after every other test, and
 * scripts/gpu-check.sh in a step of their own, last. Exits 77 (skipped) without a CUDA
 * device or NVRTC. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/kernel/kernel_checker.h"
#include "app/scenes/laplace/check.h"
#include "base/cuda_device.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/laplace/laplace.h"
#include "kernels/laplace/laplace_contract.h"
#include "tests/test_util.h"

static ks_device_info dev;
extern const char ks_laplace_starter_regq[]; /* new-kernel laplace3d --from regq */
static pid_t live_pid; /* the live run of a live test, ended by its teardown whatever happened */

/* 2D, the last interior column never written (i stops at nx-3). */
static const char ks_skips_column[] =
    "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny)\n"
    "{\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"
    "    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;\n"
    "    if (i > nx - 3 || j > ny - 2) return;\n"
    "    const size_t p = i + (size_t)j * nx;\n"
    "    v[p] = (u[p - 1] + u[p + 1] + u[p - nx] + u[p + nx]) * 0.25f;\n"
    "}\n";
/* 3D, writes a terabyte past v: nothing is mapped there. */
static const char ks_out_of_bounds[] =
    "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz)\n"
    "{\n"
    "    v[((size_t)1 << 38) + threadIdx.x] = u[0] + nx + ny + nz;\n"
    "}\n";
/* 3D, the last interior plane also written one plane past the end of v (line 9): within
 * the pool's next allocation, so only the tool's padding after v makes it an error. */
static const char ks_past_end[] =
    "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz)\n"
    "{\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"
    "    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;\n"
    "    const int k = blockIdx.z * blockDim.z + threadIdx.z + 1;\n"
    "    if (i > nx - 2 || j > ny - 2 || k > nz - 2) return;\n"
    "    const size_t p = i + (size_t)j * nx + (size_t)k * nx * ny;\n"
    "    v[p] = u[p];\n"
    "    if (k == nz - 2) v[p + (size_t)2 * nx * ny] = 0.0f;\n"
    "}\n";
/* 3D, never ends (the volatile read keeps the loop). */
static const char ks_endless[] = "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz)\n"
                                 "{\n"
                                 "    const volatile float *w = u;\n"
                                 "    while (w[0] > -1.0f) { }\n"
                                 "    v[0] = w[0];\n"
                                 "}\n";

/* The spinning kernel of issue 37, as it was given to laplace3d --grid 256 with four GPUs visible.
 * It does not spin: the volatile is a local whose address never escapes, so the compiler keeps
 * it in a register, and the loop, with no side effect left, is removed as if it ended (ptxas's
 * code for it has no branch before the load and the store): the kernel returns at once having
 * written v[i] for the first row of the first plane alone, and the check finds the whole
 * interior unwritten. */
static const char ks_issue_spin[] =
    "extern \"C\" __global__ void jacobi(const float *__restrict__ u, float *__restrict__ v, int nx, int ny, int nz) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"
    "  volatile int spin = 1;\n"
    "  while (spin) { if (i < 0) spin = 0; }\n"
    "  v[i] = u[i];\n"
    "}\n";

static void compile(const char *src, const char *name, ks_nvrtc_result *out)
{
    const ks_nvrtc_desc d = {.source = src, .name = name, .cc_major = dev.cc_major, .cc_minor = dev.cc_minor, .cubin = 1};
    const ks_status st = ks_nvrtc_compile(&d, out);
    if (st != KS_OK) fprintf(stderr, "%s\n%s", ks_error_message(), out->lines ? out->lines : "");
    assert_int_equal(st, KS_OK);
}

static ks_kcheck_request request(const char *scene, const char *file, const ks_nvrtc_result *code, int nx, int ny,
                                 int nz)
{
    ks_kcheck_request r;
    memset(&r, 0, sizeof r);
    snprintf(r.scene, sizeof r.scene, "%s", scene);
    snprintf(r.file, sizeof r.file, "%s", file);
    r.grid[0] = nx, r.grid[1] = ny, r.grid[2] = nz;
    r.block[0] = 32, r.block[1] = nz > 1 ? 4 : 8, r.block[2] = nz > 1 ? 4 : 1;
    r.code = code->code;
    r.code_size = code->code_size;
    r.cubin = code->cubin;
    return r;
}

/* In this process: the starter passes, exactly; a wrong kernel is refused at its first wrong cell. */
static void test_check_in_process(void **state)
{
    (void)state;
    ks_nvrtc_result good, bad;
    compile(KS_LAPLACE3D_STARTER, "good3.cu", &good);
    ks_kcheck_request req = request("laplace3d", "good3.cu", &good, 70, 45, 33);
    ks_kcheck_result res;
    memset(&res, 0, sizeof res);
    assert_int_equal(ks_laplace_kernel_check(&req, &res), KS_OK);
    if (!res.passed) fprintf(stderr, "%s\n", res.message);
    assert_true(res.passed);
    assert_non_null(strstr(res.message, "matches the CPU gold (3 iterations, max error 0)"));
    assert_non_null(strstr(res.message, "on the live grid (4 iterations, max error 0)"));

    /* --from regq: 4 x 1 x 4 points a thread (kernelscope_points_per_thread); float4 rows on the live
       grid (nx % 4 == 0), the plain path on the odd check grid; a 2-part and a 3-part block, and one
       whose warps span two z layers (8x2: the plain path everywhere) */
    ks_nvrtc_result regq;
    compile(ks_laplace_starter_regq, "regq.cu", &regq);
    const int blocks[3][3] = {{32, 8, 1}, {32, 4, 4}, {8, 2, 4}};
    for (int b = 0; b < 3; ++b) {
        req = request("laplace3d", "regq.cu", &regq, 96, 70, 45);
        memcpy(req.block, blocks[b], sizeof req.block);
        memset(&res, 0, sizeof res);
        assert_int_equal(ks_laplace_kernel_check(&req, &res), KS_OK);
        if (!res.passed) fprintf(stderr, "regq.cu, block %dx%dx%d: %s\n", blocks[b][0], blocks[b][1], blocks[b][2],
                                 res.message);
        assert_true(res.passed);
    }
    ks_nvrtc_result_free(&regq);

    compile(ks_skips_column, "skips.cu", &bad);
    req = request("laplace2d", "skips.cu", &bad, 300, 200, 1);
    memset(&res, 0, sizeof res);
    assert_int_equal(ks_laplace_kernel_check(&req, &res), KS_OK);
    fprintf(stderr, "refused: %s\n", res.message);
    assert_false(res.passed);
    assert_false(res.fatal);
    /* the 131x77 check grid: column i = 129 is the last interior one */
    assert_non_null(strstr(res.message, "after 1 iteration at (i,j) = (129,1): nan where"));
    assert_non_null(strstr(res.message, "(never written); 75 points differ"));
    ks_nvrtc_result_free(&good);
    ks_nvrtc_result_free(&bad);
}

/* The difference slice of a check after one iteration: a cell is wrong
 * (+inf: the kernel never wrote it, the reference did) exactly where wrong()
 * says, and elsewhere within the check's tolerance of the reference. */
static void expect_diff(const ks_kcheck_result *res, int w, int h, int (*wrong)(int a, int b, void *ctx), void *ctx,
                        const char *what)
{
    assert_non_null(res->diff);
    assert_int_equal(res->diff_w, w);
    assert_int_equal(res->diff_h, h);
    long long bad = 0, zero = 0;
    for (int b = 0; b < h; ++b)
        for (int a = 0; a < w; ++a) {
            const float d = res->diff[(size_t)b * w + a];
            if (wrong(a, b, ctx) ? !isinf(d) : !(d <= 1e-5f))
                fail_msg("%s: cell (%d, %d) is %g, %s", what, a, b, (double)d,
                         wrong(a, b, ctx) ? "+inf expected (never written)" : "within 1e-5 expected");
            bad += wrong(a, b, ctx);
            zero += d == 0.0f;
        }
    fprintf(stderr, "%s: %lld cells wrong, %lld of the rest exactly 0\n", what, bad, zero);
}

typedef struct grid3 {
    int nx, ny, nz;
    int axis, index;
} grid3;

/* The kernels below skip the last interior column i = nx - 2: that is where a slice is wrong. */
static int wrong_2d(int a, int b, void *ctx)
{
    const grid3 *g = ctx;
    return a == g->nx - 2 && b >= 1 && b <= g->ny - 2;
}

static int wrong_3d(int a, int b, void *ctx)
{
    const grid3 *g = ctx;
    int ijk[3];
    const ks_grid kg = {3, g->nx, g->ny, g->nz};
    ks_slice_point(&kg, (ks_axis)g->axis, g->index, a, b, ijk);
    return ijk[0] == g->nx - 2 && ijk[1] >= 1 && ijk[1] <= g->ny - 2 && ijk[2] >= 1 && ijk[2] <= g->nz - 2;
}

/* D's picture, in this process: a kernel that skips the last interior column
 * is refused on the small grid, and the live run made for the picture all the
 * same shows that column, and only it, wrong; on each axis of a 3D grid too
 * (across the column, through it, along it). The correct starter's slice is
 * within the tolerance everywhere. */
static void test_diff_slice(void **state)
{
    (void)state;
    ks_nvrtc_result bad2, bad3, good;
    compile(ks_skips_column, "skips.cu", &bad2);
    ks_kcheck_request req = request("laplace2d", "skips.cu", &bad2, 300, 200, 1);
    req.iters = 1; /* one iteration: the unwritten column has not spread yet */
    req.diff = 1;
    req.axis = 2;
    req.index = 0;
    ks_kcheck_result res;
    memset(&res, 0, sizeof res);
    assert_int_equal(ks_laplace_kernel_check(&req, &res), KS_OK);
    fprintf(stderr, "refused: %s\n", res.message);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "differs from the CPU gold")); /* the refusal's own words */
    grid3 g2 = {300, 200, 1, 2, 0};
    expect_diff(&res, 300, 200, wrong_2d, &g2, "2D");
    ks_kcheck_result_free(&res);

    char text[4096];
    snprintf(text, sizeof text, "%s", KS_LAPLACE3D_STARTER);
    char *cond = strstr(text, "i > nx - 2");
    assert_non_null(cond);
    memcpy(cond, "i > nx - 3", 10);
    compile(text, "skips3.cu", &bad3);
    const grid3 cases[] = {{70, 45, 33, 0, 68}, {70, 45, 33, 0, 5}, {70, 45, 33, 1, 20}, {70, 45, 33, 2, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        grid3 g = cases[i];
        req = request("laplace3d", "skips3.cu", &bad3, g.nx, g.ny, g.nz);
        req.iters = 1;
        req.diff = 1;
        req.axis = g.axis;
        req.index = g.index;
        memset(&res, 0, sizeof res);
        assert_int_equal(ks_laplace_kernel_check(&req, &res), KS_OK);
        assert_false(res.passed);
        int w, h;
        assert_true(ks_kcheck_diff_dims(&req, &w, &h));
        char what[64];
        snprintf(what, sizeof what, "3D, axis %d index %d", g.axis, g.index);
        expect_diff(&res, w, h, wrong_3d, &g, what);
        ks_kcheck_result_free(&res);
    }

    compile(KS_LAPLACE3D_STARTER, "good3.cu", &good);
    req = request("laplace3d", "good3.cu", &good, 70, 45, 33);
    req.diff = 1;
    req.axis = 1;
    req.index = 22;
    memset(&res, 0, sizeof res);
    assert_int_equal(ks_laplace_kernel_check(&req, &res), KS_OK);
    assert_true(res.passed);
    grid3 none = {0, 0, 0, 1, 22}; /* nx 0: no column is wrong */
    expect_diff(&res, 70, 33, wrong_3d, &none, "the starter");
    ks_kcheck_result_free(&res);
    ks_nvrtc_result_free(&bad2);
    ks_nvrtc_result_free(&bad3);
    ks_nvrtc_result_free(&good);
}

/* The same picture through the checker process (the app's binary): the
 * values cross the pipe after the answer line, and the child serves the next
 * check. */
static void test_diff_in_child(void **state)
{
    (void)state;
    ks_kchecker *c = NULL;
    assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.exe = ks_test_binary()}, &c), KS_OK);
    ks_nvrtc_result bad;
    compile(ks_skips_column, "skips.cu", &bad);
    ks_kcheck_request req = request("laplace2d", "skips.cu", &bad, 1000, 700, 1);
    req.iters = 1;
    req.diff = 1;
    req.axis = 2;
    ks_kcheck_result res;
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    fprintf(stderr, "in the child: %s (%.0f ms in all)\n", res.message, res.total_ms);
    assert_false(res.passed);
    grid3 g = {1000, 700, 1, 2, 0};
    expect_diff(&res, 1000, 700, wrong_2d, &g, "2D, in the child");
    ks_kcheck_result_free(&res);
    const int pid = ks_kchecker_pid(c);
    req.diff = 0;
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    assert_null(res.diff);
    assert_non_null(strstr(res.message, "differs from the CPU gold"));
    assert_int_equal(ks_kchecker_pid(c), pid);
    ks_kchecker_destroy(c);
    ks_nvrtc_result_free(&bad);
}

/* In the checker process (the app's own binary): a fault and an endless loop
 * are caught there, each time a fresh child serves the next check. */
static void test_check_in_child(void **state)
{
    (void)state;
    ks_kchecker *c = NULL;
    /* the plain child's own answers (test_memcheck_names_the_line: under compute-sanitizer) */
    const ks_kchecker_desc d = {.exe = ks_test_binary(), .timeout_s = 4.0, .memcheck = KS_KCHECK_MEMCHECK_OFF};
    assert_int_equal(ks_kchecker_create(&d, &c), KS_OK);
    ks_nvrtc_result good, oob, endless;
    compile(KS_LAPLACE3D_STARTER, "good3.cu", &good);
    compile(ks_out_of_bounds, "oob.cu", &oob);
    compile(ks_endless, "endless.cu", &endless);
    ks_kcheck_result res;
    ks_kcheck_request req = request("laplace3d", "good3.cu", &good, 64, 64, 64);
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    fprintf(stderr, "good: %s (%.0f ms in the child, %.0f ms in all)\n", res.message, res.child_ms, res.total_ms);
    assert_true(res.passed);

    const int pid0 = ks_kchecker_pid(c);
    req = request("laplace3d", "oob.cu", &oob, 64, 64, 64);
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    fprintf(stderr, "out of bounds: %s\n", res.message);
    assert_false(res.passed);
    assert_true(strstr(res.message, "illegal memory access") || strstr(res.message, "died"));
    /* the user's words: nothing of our calls, files or lines */
    assert_null(strstr(res.message, "cudaMemcpy"));
    assert_null(strstr(res.message, "kernels/"));
    assert_null(strstr(res.message, ".cu:"));
    const int pid1 = ks_kchecker_pid(c);
    assert_true(pid1 > 0 && pid1 != pid0);

    req = request("laplace3d", "endless.cu", &endless, 64, 64, 64);
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    fprintf(stderr, "endless: %s\n", res.message);
    assert_false(res.passed);
    assert_non_null(strstr(res.message, "did not finish in 4 s"));
    assert_true(ks_kchecker_pid(c) != pid1);

    req = request("laplace3d", "good3.cu", &good, 64, 64, 64); /* the new child works */
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    assert_true(res.passed);
    ks_kchecker_destroy(c);
    ks_nvrtc_result_free(&good);
    ks_nvrtc_result_free(&oob);
    ks_nvrtc_result_free(&endless);
}

/* Under compute-sanitizer memcheck (skipped where the CUDA Toolkit's tool is
 * not found): a check that faults is run again under it and names the user's
 * file and line; with the first check of a build under it, the out-of-bounds
 * kernel is stopped by the tool and never reaches the plain child (whose
 * process stays the same), and the good one passes both. Prints what the
 * tool costs: a first check with the tool's start, a warm one, the plain one. */
static void test_memcheck_names_the_line(void **state)
{
    (void)state;
    char tool[4096];
    if (!ks_kcheck_find_sanitizer(getenv("KS_COMPUTE_SANITIZER"), tool, sizeof tool)) {
        fprintf(stderr, "compute-sanitizer not found: skipped\n");
        skip();
    }
    ks_nvrtc_result good, oob, past;
    compile(KS_LAPLACE3D_STARTER, "good3.cu", &good);
    compile(ks_out_of_bounds, "oob.cu", &oob);
    compile(ks_past_end, "past.cu", &past);
    ks_kcheck_result res;
    for (int mode = KS_KCHECK_MEMCHECK_FAULT; mode <= KS_KCHECK_MEMCHECK_FIRST; ++mode) {
        ks_kchecker *c = NULL;
        const ks_kchecker_desc d = {.exe = ks_test_binary(), .timeout_s = 10.0, .memcheck = mode, .sanitizer = tool};
        assert_int_equal(ks_kchecker_create(&d, &c), KS_OK);
        ks_kcheck_request req = request("laplace3d", "good3.cu", &good, 256, 256, 256);
        req.first = 1;
        for (int k = 0; k < 2; ++k) { /* the first one waits for the tool's start (FIRST keeps it warm) */
            assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
            fprintf(stderr, "%s, good, check %d: %s; memcheck %.0f ms, %.0f ms in all, the plain child %.0f ms\n",
                    mode == KS_KCHECK_MEMCHECK_FIRST ? "first" : "fault", k + 1, res.message, res.memcheck_ms,
                    res.total_ms, res.child_ms);
            assert_true(res.passed);
            assert_int_equal(res.memchecked, mode == KS_KCHECK_MEMCHECK_FIRST);
        }
        const int plain = ks_kchecker_pid(c);
        req = request("laplace3d", "/home/someone/kernels/oob.cu", &oob, 64, 64, 64);
        req.first = 1;
        assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
        fprintf(stderr, "%s, out of bounds: %s (memcheck %.0f ms)\n",
                mode == KS_KCHECK_MEMCHECK_FIRST ? "first" : "fault", res.message, res.memcheck_ms);
        assert_false(res.passed);
        assert_int_equal(res.memchecked, 1);
        /* ks_out_of_bounds writes on its line 3; the file as the user named it, nothing of ours */
        assert_true(strncmp(res.message, "oob.cu:3: ", 10) == 0);
        assert_non_null(strstr(res.message, " write of 4 bytes")); /* "out-of-bounds" where the tool says so */
        assert_null(strchr(res.message, '/'));
        assert_null(strstr(res.message, "========="));
        if (mode == KS_KCHECK_MEMCHECK_FIRST) { /* a write just past the end: named too, never ran plain */
            req = request("laplace3d", "past.cu", &past, 64, 64, 64);
            req.first = 1;
            assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
            fprintf(stderr, "first, one plane past the end: %s (memcheck %.0f ms)\n", res.message, res.memcheck_ms);
            assert_false(res.passed);
            assert_true(strncmp(res.message, "past.cu:9: ", 11) == 0);
            assert_int_equal(ks_kchecker_pid(c), plain);
        }
        req = request("laplace3d", "good3.cu", &good, 64, 64, 64); /* both children serve on */
        req.first = 1;
        assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
        assert_true(res.passed);
        ks_kchecker_destroy(c);
    }
    ks_nvrtc_result_free(&good);
    ks_nvrtc_result_free(&oob);
    ks_nvrtc_result_free(&past);
}

/* The issue's spinning kernel and a kernel that really never ends, on the default GPU and, where
 * there is one of the same kind, on a second GPU as the live view's checker runs (the issue had
 * four visible): the first is said to have ended without writing any interior point (it does
 * end: see ks_issue_spin), or, where a compiler keeps its loop, not to have finished; the second
 * always "did not finish in N s". */
static void test_endless_said(void **state)
{
    (void)state;
    ks_nvrtc_result spin, endless;
    compile(ks_issue_spin, "spin.cu", &spin);
    compile(ks_endless, "endless.cu", &endless);
    const int spare = ks_cuda_spare_device();
    for (int on = 0; on < (spare >= 0 ? 2 : 1); ++on) {
        ks_kchecker *c = NULL;
        const ks_kchecker_desc d = {.exe = ks_test_binary(), .timeout_s = 10.0, .device = on ? spare + 1 : 0};
        assert_int_equal(ks_kchecker_create(&d, &c), KS_OK);
        ks_kcheck_result res;
        ks_kcheck_request req = request("laplace3d", "spin.cu", &spin, 256, 256, 256);
        assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
        fprintf(stderr, "issue's spin (GPU %s): %s (%.0f ms)\n", on ? "spare" : "default", res.message, res.total_ms);
        assert_false(res.passed);
        assert_true(strstr(res.message, "it ended without writing any interior point") ||
                    strstr(res.message, "did not finish in 10 s"));
        req = request("laplace3d", "endless.cu", &endless, 256, 256, 256);
        assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
        fprintf(stderr, "endless (GPU %s): %s (%.0f ms)\n", on ? "spare" : "default", res.message, res.total_ms);
        assert_false(res.passed);
        assert_non_null(strstr(res.message, "did not finish in 10 s"));
        ks_kchecker_destroy(c);
    }
    ks_nvrtc_result_free(&spin);
    ks_nvrtc_result_free(&endless);
}

/* Waits for needle on the run's stderr, as long as the run goes on; when it
 * ended first shows what it said. */
static void expect_line(ks_test_proc *p, const char *needle)
{
    const int got = ks_test_wait_for(p, 2, needle, KS_TEST_NO_DEADLINE);
    if (got != 1) fprintf(stderr, "waited for [%s]; stderr so far:\n%s\n", needle, p->text[1]);
    assert_int_equal(got, 1);
}

static void write_file(const char *path, const char *text)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(rename(tmp, path), 0); /* as an editor saves */
}

/* A headless live run of the starter in dir/mine.cu (path filled), its first
 * build done; skips without a display path. */
static void start_live(ks_test_proc *p, const char *prefix, char *path, size_t cap)
{
    char dir[256];
    ks_test_tmpdir(dir, sizeof dir, prefix);
    snprintf(path, cap, "%s/mine.cu", dir);
    write_file(path, KS_LAPLACE3D_STARTER);
    ks_test_start(p, (const char *const[]){ks_test_binary(), "laplace3d", "--headless", "--grid", "96", "--frames",
                                           "1000000", "--kernel-file", path, NULL});
    live_pid = p->pid;
    if (ks_test_wait_for(p, 2, "compiled in", KS_TEST_NO_DEADLINE) != 1) {
        kill(p->pid, SIGKILL);
        ks_test_finish(p, KS_TEST_NO_DEADLINE);
        if (strstr(p->text[1], "EGL") || strstr(p->text[1], "display")) skip();
        fprintf(stderr, "%s", p->text[1]);
        fail();
    }
}

/* Ends the live run with SIGINT: it stops cleanly (130, as asked). */
static void stop_live(ks_test_proc *p)
{
    kill(p->pid, SIGINT);
    const int rc = ks_test_finish(p, KS_TEST_NO_DEADLINE);
    live_pid = 0;
    fprintf(stderr, "%s", p->text[1]);
    assert_int_equal(rc, 130);
}

/* A live run follows the file: a compile error and a wrong kernel are
 * refused while the previous code runs on; a good save is swapped in. */
static void test_live_reload(void **state)
{
    (void)state;
    char path[512], text[4096];
    ks_test_proc p;
    start_live(&p, "ukgpu", path, sizeof path);
    write_file(path, "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny, int nz)\n{\n"
                     "    v[0] = w;\n}\n");
    expect_line(&p, "mine.cu:3: error: identifier \"w\" is undefined");
    expect_line(&p, "the previous code goes on running");
    snprintf(text, sizeof text, "%s", KS_LAPLACE3D_STARTER);
    char *mul = strstr(text, "(1.0f / 6.0f)");
    assert_non_null(mul);
    memcpy(mul, "(1.0f / 7.0f)", 13); /* wrong by a seventh */
    write_file(path, text);
    expect_line(&p, "differs from the CPU gold");
    snprintf(text, sizeof text, "// saved again\n%s", KS_LAPLACE3D_STARTER);
    write_file(path, text);
    expect_line(&p, "ms after the save (compile");
    stop_live(&p);
}

/* While a live run goes on, a save that writes out of bounds faults in the
 * checker process only: it is refused, the previous code runs on, and the
 * next good save is swapped in (by a new checker). */
static void test_live_fault(void **state)
{
    (void)state;
    char path[512], text[4096];
    ks_test_proc p;
    start_live(&p, "ukfault", path, sizeof path);
    write_file(path, ks_out_of_bounds);
    expect_line(&p, "the previous code goes on running");
    snprintf(text, sizeof text, "// fixed\n%s", KS_LAPLACE3D_STARTER);
    write_file(path, text);
    expect_line(&p, "ms after the save (compile");
    stop_live(&p);
}

static int end_live_run(void **state)
{
    (void)state;
    if (live_pid > 0) { /* a failed wait left it running */
        kill(live_pid, SIGKILL);
        ks_test_wait_exit(live_pid, KS_TEST_NO_DEADLINE);
    }
    live_pid = 0;
    return 0;
}

/* bench: the file's kernel is a row like ours, named after the file. */
static void test_bench_rows(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "ukbench");
    snprintf(path, sizeof path, "%s/mine2d.cu", dir);
    write_file(path, KS_LAPLACE2D_STARTER);
    ks_run_result r;
    char *csv = ks_test_run_headless_read(
        (const char *const[]){ks_test_binary(), "bench", "laplace2d", "--grid", "512", "--kernel", "mine2d.cu",
                              "--kernel", "block2d", "--block", "32x8", "--reps", "3", "--kernel-file", path, "--out",
                              dir, NULL},
        dir, "bench_laplace2d.csv", &r);
    assert_non_null(strstr(csv, ",mine2d.cu,"));
    assert_non_null(strstr(csv, ",block2d,"));
    free(csv);
}

int main(void)
{
    if (!ks_test_have_cuda() || !ks_nvrtc_built()) return 77;
    if (ks_cuda_probe(&dev) != KS_OK || !dev.present) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_in_process),
        cmocka_unit_test(test_diff_slice),
        cmocka_unit_test(test_diff_in_child),
        cmocka_unit_test_teardown(test_live_reload, end_live_run),
        cmocka_unit_test(test_bench_rows),
    };
    /* the faults last (see the top); the live one first: the endless loop of
       test_check_in_child, run on the default GPU, can leave that GPU unable to switch
       to another context for minutes after its process was killed */
    const struct CMUnitTest faults[] = {
        cmocka_unit_test_teardown(test_live_fault, end_live_run),
        cmocka_unit_test(test_check_in_child),
        cmocka_unit_test(test_memcheck_names_the_line),
        cmocka_unit_test(test_endless_said),
    };
    const char *only = getenv("KS_TEST_ONLY"); /* e.g. "*diff*": a few of them */
    if (only && *only) cmocka_set_test_filter(only);
    int failed = 0;
    if (!getenv("KS_TEST_FAULTS_ONLY")) failed += cmocka_run_group_tests_name("user kernels", tests, NULL, NULL);
    if (!getenv("KS_TEST_NO_FAULTS")) failed += cmocka_run_group_tests_name("faults", faults, NULL, NULL);
    return failed ? 1 : 0;
}
