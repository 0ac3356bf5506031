/* The checker process (app/kernel/kernel_checker.h) with a fake check: this
 * test binary is its own child (argv[1] == KS_KCHECK_ARG), and the scene name
 * of a request says what the child does: pass, mismatch, hang, segv, exit,
 * fatal, escape, fds, diff (a difference slice of known values), diffsize (one
 * of the wrong size), where (whether it runs under the stand-in
 * compute-sanitizer, tests/fake_compute_sanitizer.sh), fatalquiet (fatal with
 * nothing in the tool's report); under the stand-in, fatal leaves a memcheck
 * report of an out-of-bounds write; any other name is refused by the check. With "raw" as
 * its first extra argument the child is no checker at all: it answers every
 * request with the bytes the test gives (malformed difference slices). No
 * sleeps: each test waits on the checker's own answers. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "app/kernel/kernel_checker.h"
#include "test_kernel_check_memcheck.h"
#include "test_kernel_check_wire.h"

/* child side: what the fake check reports besides the request */
static const char *child_tag = ""; /* argv[2] of the child: extra_args arrive */
static int child_warm;              /* warm() ran before the first check */
static const char *child_device = "none"; /* what followed KS_KCHECK_DEVICE_ARG, if it came */

static void fake_warm(void) { child_warm = 1; }

static uint32_t fnv1a(const void *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; ++i) h = (h ^ ((const unsigned char *)p)[i]) * 16777619u;
    return h;
}

/* The fake difference slice's value at cell i: i / 4, +inf at cell 1. */
static float diff_value(long long i) { return i == 1 ? INFINITY : (float)i * 0.25f; }

/* A difference slice of w x h cells (the loop sends it when it is the size asked). */
static void fake_diff(ks_kcheck_result *out, int w, int h)
{
    out->diff = malloc((size_t)w * (size_t)h * sizeof *out->diff);
    if (!out->diff) return;
    for (long long i = 0; i < (long long)w * h; ++i) out->diff[i] = diff_value(i);
    out->diff_w = w;
    out->diff_h = h;
}

static ks_status fake_check(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    const char *s = req->scene;
    int w = 0, h = 0;
    if (strcmp(s, "device") == 0) { /* the GPU its parent named */
        out->passed = 1;
        snprintf(out->message, sizeof out->message, "device %s", child_device);
        return KS_OK;
    }
    if (strcmp(s, "pass") == 0) {
        char file[KS_QUOTE_MAX];
        out->passed = 1;
        snprintf(out->message, sizeof out->message,
                 "%zu bytes sum %08x grid %dx%dx%d block %dx%dx%d iters %d cubin %d file '%s' tag %s warm %d",
                 req->code_size, (unsigned)fnv1a(req->code, req->code_size), req->grid[0], req->grid[1], req->grid[2],
                 req->block[0], req->block[1], req->block[2], req->iters, req->cubin,
                 ks_quote_n(req->file, strlen(req->file), file, sizeof file), child_tag, child_warm);
    } else if (strcmp(s, "mismatch") == 0) {
        snprintf(out->message, sizeof out->message, "cell (1, 2, 3) is 0.5, expected 0.25 (max error 0.25)");
    } else if (strcmp(s, "hang") == 0) {
        for (;;) pause();
    } else if (strcmp(s, "segv") == 0) {
        setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0}); /* no core file */
        signal(SIGSEGV, SIG_DFL);                        /* past ASan's handler: a real crash */
        raise(SIGSEGV);
    } else if (strcmp(s, "exit") == 0) {
        _exit(5);
    } else if (strcmp(s, "where") == 0) {
        out->passed = 1;
        snprintf(out->message, sizeof out->message, "sanitized %d", getenv("KS_FAKE_SANITIZER_LOG") != NULL);
    } else if (strcmp(s, "fatalquiet") == 0) {
        out->fatal = 1;
        snprintf(out->message, sizeof out->message, "an illegal memory access was encountered");
    } else if (strcmp(s, "fatal") == 0) {
        memcheck_leave_report(); /* under the stand-in tool: what it reports of an out-of-bounds write */
        out->fatal = 1;
        snprintf(out->message, sizeof out->message, "an illegal memory access was encountered");
    } else if (strcmp(s, "escape") == 0) {
        snprintf(out->message, sizeof out->message, "two\nlines \\ and \\n\\\\ end ");
    } else if (strcmp(s, "diff") == 0 || strcmp(s, "diffsize") == 0) {
        const int asked = req->diff && ks_kcheck_diff_dims(req, &w, &h);
        snprintf(out->message, sizeof out->message, "diff %d axis %d index %d", req->diff, req->axis, req->index);
        out->passed = 1;
        if (asked) fake_diff(out, strcmp(s, "diff") == 0 ? w : w + 1, h);
    } else if (strcmp(s, "fds") == 0) { /* iters: an fd the parent holds open without O_CLOEXEC */
        const int open_fd = fcntl(req->iters, F_GETFD) >= 0;
        snprintf(out->message, sizeof out->message, "fd %d %s", req->iters, open_fd ? "open" : "closed");
        out->passed = !open_fd;
    } else {
        return ks_fail(KS_ERR_INVALID, "no scene '%s' checks kernels", KS_QUOTED(s));
    }
    return KS_OK;
}

/* parent side */
unsigned char code[3 << 20]; /* several pipe buffers' worth */

ks_kcheck_request request(const char *scene, const char *file, size_t size)
{
    ks_kcheck_request r;
    memset(&r, 0, sizeof r);
    snprintf(r.scene, sizeof r.scene, "%s", scene);
    snprintf(r.file, sizeof r.file, "%s", file);
    r.grid[0] = 64, r.grid[1] = 32, r.grid[2] = 16;
    r.block[0] = 32, r.block[1] = 4, r.block[2] = 1;
    r.iters = 7;
    r.cubin = 1;
    r.code = code;
    r.code_size = size;
    return r;
}

ks_kcheck_result run(ks_kchecker *c, const char *scene, const char *file, size_t size)
{
    const ks_kcheck_request req = request(scene, file, size);
    ks_kcheck_result res;
    const ks_status st = ks_kchecker_run(c, &req, &res);
    if (st != KS_OK) fprintf(stderr, "%s\n", ks_error_message());
    assert_int_equal(st, KS_OK);
    assert_null(strchr(res.message, '\n') && strcmp(scene, "escape") != 0 ? res.message : NULL);
    assert_true(res.total_ms >= res.child_ms && res.child_ms >= 0);
    return res;
}

/* A pass that shows the request arrived whole: sizes, flags, file, every code byte. */
void expect_pass(ks_kchecker *c, size_t size, const char *tag)
{
    const ks_kcheck_result r = run(c, "pass", "k.cu", size);
    char want[KS_KCHECK_MSG_MAX];
    snprintf(want, sizeof want, "%zu bytes sum %08x grid 64x32x16 block 32x4x1 iters 7 cubin 1 file 'k.cu' tag %s warm 1",
             size, (unsigned)fnv1a(code, size), tag);
    assert_string_equal(r.message, want);
    assert_int_equal(r.passed, 1);
    assert_int_equal(r.fatal, 0);
}

/* pid is gone and reaped: no zombie left behind. */
void expect_reaped(int pid)
{
    assert_true(pid > 0);
    errno = 0;
    assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static ks_kchecker *create(double timeout_s)
{
    const char *const extra[] = {"tag1", NULL};
    ks_kchecker *c = NULL;
    /* the plain child alone: what compute-sanitizer adds has tests of its own, below */
    const ks_status st = ks_kchecker_create(
        &(ks_kchecker_desc){.extra_args = extra, .timeout_s = timeout_s, .memcheck = KS_KCHECK_MEMCHECK_OFF}, &c);
    if (st != KS_OK) fprintf(stderr, "%s\n", ks_error_message());
    assert_int_equal(st, KS_OK);
    assert_true(ks_kchecker_pid(c) > 0);
    return c;
}

void destroy(ks_kchecker *c)
{
    const int pid = ks_kchecker_pid(c);
    ks_kchecker_destroy(c);
    expect_reaped(pid);
}

static void test_pass_mismatch_refusal(void **state)
{
    (void)state;
    ks_kchecker *c = create(0);
    const int pid = ks_kchecker_pid(c);
    expect_pass(c, sizeof code, "tag1");
    expect_pass(c, 1, "tag1");
    ks_kcheck_result r = run(c, "mismatch", "k.cu", 100);
    assert_int_equal(r.passed, 0);
    assert_string_equal(r.message, "cell (1, 2, 3) is 0.5, expected 0.25 (max error 0.25)");
    r = run(c, "nope", "k.cu", 100); /* the check refuses: a failed check with its error */
    assert_int_equal(r.passed, 0);
    assert_string_equal(r.message, "no scene 'nope' checks kernels");
    r = run(c, "escape", "k.cu", 100); /* the message crosses the wire byte for byte */
    assert_string_equal(r.message, "two\nlines \\ and \\n\\\\ end ");
    r = run(c, "device", "k.cu", 100); /* no device asked for: the child is told none */
    assert_string_equal(r.message, "device none");
    assert_int_equal(ks_kchecker_pid(c), pid);
    expect_pass(c, 1000, "tag1");
    destroy(c);
    ks_kchecker_destroy(NULL);
}

/* desc.device: the child is told the GPU to check on (1 + its ordinal), after the extra args. */
static void test_device_named(void **state)
{
    (void)state;
    const char *const extra[] = {"tag1", NULL};
    ks_kchecker *c = NULL;
    assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.extra_args = extra, .device = 3}, &c), KS_OK);
    const ks_kcheck_result r = run(c, "device", "k.cu", 100);
    assert_int_equal(r.passed, 1);
    assert_string_equal(r.message, "device 2");
    expect_pass(c, 1, "tag1"); /* the extra args still come first */
    destroy(c);
}

static void test_hang_times_out(void **state)
{
    (void)state;
    ks_kchecker *c = create(0.5);
    const int pid = ks_kchecker_pid(c);
    const ks_kcheck_result r = run(c, "hang", "k.cu", 100);
    assert_int_equal(r.passed, 0);
    assert_string_equal(r.message, "did not finish in 0.5 s");
    assert_true(r.total_ms >= 500);
    assert_true(ks_kchecker_pid(c) > 0 && ks_kchecker_pid(c) != pid);
    expect_reaped(pid);
    expect_pass(c, 4096, "tag1");
    destroy(c);
}

/* A child that dies mid-check: the died message, a fresh child that works. */
static void expect_death(const char *scene, const char *message, int fatal)
{
    ks_kchecker *c = create(0);
    expect_pass(c, 10, "tag1");
    const int pid = ks_kchecker_pid(c);
    const ks_kcheck_result r = run(c, scene, "k.cu", 100);
    assert_string_equal(r.message, message);
    assert_int_equal(r.passed, 0);
    assert_int_equal(r.fatal, fatal);
    assert_true(ks_kchecker_pid(c) > 0 && ks_kchecker_pid(c) != pid);
    expect_reaped(pid);
    expect_pass(c, 10, "tag1");
    destroy(c);
}

static void test_segv(void **state)
{
    (void)state;
    expect_death("segv", "the check process died: killed by signal 11 (Segmentation fault)", 0);
}

static void test_exit_status(void **state)
{
    (void)state;
    expect_death("exit", "the check process died: exited with status 5", 0);
}

static void test_fatal_replaces(void **state)
{
    (void)state;
    expect_death("fatal", "an illegal memory access was encountered", 1);
}

/* Killed between checks: the request meets a closed pipe (EPIPE, never
 * SIGPIPE in this process), the death is reported, a new child serves. */
static void test_dead_before_request(void **state)
{
    (void)state;
    ks_kchecker *c = create(0);
    expect_pass(c, 10, "tag1");
    const int pid = ks_kchecker_pid(c);
    assert_int_equal(kill(pid, SIGKILL), 0);
    siginfo_t info;
    assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0); /* dead, left for the checker to reap */
    const ks_kcheck_result r = run(c, "pass", "k.cu", sizeof code);
    assert_string_equal(r.message, "the check process died: killed by signal 9 (Killed)");
    expect_reaped(pid);
    expect_pass(c, sizeof code, "tag1");
    destroy(c);
}

static void test_odd_file_names(void **state)
{
    (void)state;
    ks_kchecker *c = create(0);
    ks_kcheck_result r = run(c, "pass", "we\nird \x80\xff\\ name.cu", 10);
    assert_int_equal(r.passed, 1);
    assert_non_null(strstr(r.message, "file 'we\\nird \\x80\\xff\\\\ name.cu' tag"));
    char longest[KS_KCHECK_FILE_MAX];
    memset(longest, '\n', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    r = run(c, "pass", longest, 10); /* its quoted form is cut; the line still holds */
    assert_int_equal(r.passed, 1);
    expect_pass(c, 10, "tag1");
    destroy(c);
}

static void expect_invalid(ks_kchecker *c, const ks_kcheck_request *req)
{
    ks_kcheck_result r;
    ks_error_clear();
    assert_int_equal(ks_kchecker_run(c, req, &r), KS_ERR_INVALID);
    assert_true(ks_error_message()[0] != '\0');
    assert_null(strchr(ks_error_message(), '\n'));
}

static void test_invalid_requests(void **state)
{
    (void)state;
    ks_kchecker *c = create(0);
    const int pid = ks_kchecker_pid(c);
    ks_kcheck_request req = request("pass", "k.cu", 10);
    memset(req.scene, 'x', sizeof req.scene); /* no NUL: too long */
    expect_invalid(c, &req);
    const char *const bad_scenes[] = {"", "two words", "new\nline"};
    for (size_t i = 0; i < sizeof bad_scenes / sizeof *bad_scenes; ++i) {
        req = request(bad_scenes[i], "k.cu", 10);
        expect_invalid(c, &req);
    }
    req = request("pass", "k.cu", 10);
    memset(req.file, 'f', sizeof req.file);
    expect_invalid(c, &req);
    req = request("pass", "k.cu", (size_t)KS_KCHECK_CODE_MAX + 1);
    expect_invalid(c, &req);
    req = request("pass", "k.cu", 0);
    expect_invalid(c, &req);
    req = request("pass", "k.cu", 10);
    req.code = NULL;
    expect_invalid(c, &req);
    req = request("pass", "k.cu", 10);
    req.grid[2] = 0;
    expect_invalid(c, &req);
    req = request("pass", "k.cu", 10);
    req.block[0] = -32;
    expect_invalid(c, &req);
    req = request("pass", "k.cu", 10);
    req.iters = -1;
    expect_invalid(c, &req);
    /* difference slices: an axis or index outside the grid, a 2D grid's x slice, too many cells */
    const int bad_slices[][5] = {{64, 32, 16, 3, 0}, {64, 32, 16, 2, 16}, {64, 32, 16, 0, -1}, {64, 32, 1, 0, 1},
                                 {5000, 5000, 3, 2, 1}};
    for (size_t i = 0; i < sizeof bad_slices / sizeof *bad_slices; ++i) {
        req = request("diff", "k.cu", 10);
        memcpy(req.grid, bad_slices[i], sizeof req.grid);
        req.diff = 1;
        req.axis = bad_slices[i][3];
        req.index = bad_slices[i][4];
        expect_invalid(c, &req);
    }
    /* a difference of its own cells (a histogram's bins): each at least 1, not too many */
    const int bad_cells[][2] = {{0, 5}, {256, 0}, {-1, 1}, {5000, 5000}};
    for (size_t i = 0; i < sizeof bad_cells / sizeof *bad_cells; ++i) {
        req = request("diff", "k.cu", 10);
        req.diff = 1;
        req.axis = 2;
        memcpy(req.cells, bad_cells[i], sizeof req.cells);
        expect_invalid(c, &req);
    }
    expect_invalid(c, NULL);
    assert_int_equal(ks_kchecker_pid(c), pid); /* refused up front: the child never saw them */
    expect_pass(c, 10, "tag1");
    destroy(c);
}

/* A difference slice request on a grid of gx x gy x gz across axis at index. */
static ks_kcheck_request diff_request(const char *scene, int gx, int gy, int gz, int axis, int index)
{
    ks_kcheck_request req = request(scene, "k.cu", 10);
    req.grid[0] = gx, req.grid[1] = gy, req.grid[2] = gz;
    req.diff = 1;
    req.axis = axis;
    req.index = index;
    return req;
}

/* The slice crosses the wire value for value, of the size asked (each axis
 * of a 3D box, a 2D grid, one of several pipe buffers), and the next
 * answer's framing is intact; none comes unasked, and one of the wrong size
 * is dropped by the child. */
static void test_diff_payload(void **state)
{
    (void)state;
    ks_kchecker *c = create(0);
    const int pid = ks_kchecker_pid(c);
    const int cases[][7] = {/* grid, axis, index, w, h */
                            {4, 3, 5, 0, 3, 3, 5}, {4, 3, 5, 1, 0, 4, 5}, {4, 3, 5, 2, 4, 4, 3},
                            {7, 5, 1, 2, 0, 7, 5}, {1024, 1024, 3, 2, 1, 1024, 1024}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
        const int *t = cases[k];
        const ks_kcheck_request req = diff_request("diff", t[0], t[1], t[2], t[3], t[4]);
        int w = 0, h = 0;
        assert_true(ks_kcheck_diff_dims(&req, &w, &h));
        assert_int_equal(w, t[5]);
        assert_int_equal(h, t[6]);
        ks_kcheck_result r;
        assert_int_equal(ks_kchecker_run(c, &req, &r), KS_OK);
        char want[64];
        snprintf(want, sizeof want, "diff 1 axis %d index %d", t[3], t[4]);
        assert_string_equal(r.message, want);
        assert_non_null(r.diff);
        assert_int_equal(r.diff_w, w);
        assert_int_equal(r.diff_h, h);
        for (long long i = 0; i < (long long)w * h; ++i)
            if (!(r.diff[i] == diff_value(i))) fail_msg("case %zu, cell %lld: %g", k, i, (double)r.diff[i]);
        ks_kcheck_result_free(&r);
        assert_null(r.diff);
        expect_pass(c, 100, "tag1"); /* the line after the values is read as a line */
    }
    ks_kcheck_request req = diff_request("diff", 100, 100, 100, 2, 0);
    req.cells[0] = 256, req.cells[1] = 1; /* its own cells, not the grid's: 256 bins */
    int w = 0, h = 0;
    assert_true(ks_kcheck_diff_dims(&req, &w, &h));
    assert_int_equal(w, 256);
    assert_int_equal(h, 1);
    ks_kcheck_result rc;
    assert_int_equal(ks_kchecker_run(c, &req, &rc), KS_OK);
    assert_non_null(rc.diff);
    assert_int_equal(rc.diff_w, 256);
    assert_int_equal(rc.diff_h, 1);
    for (int i = 0; i < 256; ++i)
        if (!(rc.diff[i] == diff_value(i))) fail_msg("cells 256 x 1, cell %d: %g", i, (double)rc.diff[i]);
    ks_kcheck_result_free(&rc);
    expect_pass(c, 100, "tag1");
    req = diff_request("diff", 4, 3, 5, 2, 1);
    req.diff = 0; /* not asked: none sent */
    ks_kcheck_result r;
    assert_int_equal(ks_kchecker_run(c, &req, &r), KS_OK);
    assert_string_equal(r.message, "diff 0 axis 0 index 0");
    assert_null(r.diff);
    assert_int_equal(r.diff_w, 0);
    req = diff_request("diffsize", 4, 3, 5, 2, 1); /* the check made one of another size: dropped */
    assert_int_equal(ks_kchecker_run(c, &req, &r), KS_OK);
    assert_int_equal(r.passed, 1);
    assert_null(r.diff);
    assert_int_equal(ks_kchecker_pid(c), pid); /* all well-formed: one child served them all */
    expect_pass(c, 10, "tag1");
    destroy(c);
}

/* A raw child's answer to one request: line, then the values (comma-separated,
 * strtof's words: "nan", "inf", "-1"), of which only cut bytes when cut >= 0
 * (then it exits). The answer it gives to a diff request of a 4 x 3 x 2 grid's
 * z slice (4 x 3 cells). */
static ks_kcheck_result raw_answer(const char *line, const char *values, int cut, int diff, int *replaced)
{
    char cut_arg[16];
    snprintf(cut_arg, sizeof cut_arg, "%d", cut);
    const char *const extra[] = {"raw", line, values, cut_arg, NULL};
    ks_kchecker *c = NULL;
    assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.extra_args = extra, .timeout_s = 20}, &c), KS_OK);
    const int pid = ks_kchecker_pid(c);
    ks_kcheck_request req = diff_request("diff", 4, 3, 2, 2, 1);
    req.diff = diff;
    ks_kcheck_result r;
    assert_int_equal(ks_kchecker_run(c, &req, &r), KS_OK);
    *replaced = ks_kchecker_pid(c) != pid;
    destroy(c);
    return r;
}

/* What a child sends is read as far as the request allows, never trusted:
 * a slice of other sizes, a huge one, one that was not asked for, NaN or a
 * negative value, too few bytes: the answer is refused (no values kept, the
 * child replaced); the same answer well-formed is taken. */
static void test_diff_malformed(void **state)
{
    (void)state;
    static const char twelve[] = "0,0,0,0,0.5,0,0,0,0,0,0,inf";
    int replaced = 0;
    ks_kcheck_result r = raw_answer("kscheck/3 0 0 7 4 3 wrong at (i,j,k) = (0,1,1)", twelve, -1, 1, &replaced);
    assert_string_equal(r.message, "wrong at (i,j,k) = (0,1,1)"); /* the well-formed one, taken */
    assert_non_null(r.diff);
    assert_true(r.diff[4] == 0.5f && r.diff[0] == 0.0f && isinf(r.diff[11]));
    assert_false(replaced);
    ks_kcheck_result_free(&r);
    static const struct {
        const char *line, *values;
        int cut, diff;
        const char *why;
    } bad[] = {
        {"kscheck/3 0 0 7 3 4 m", twelve, -1, 1, "the check process sent a malformed answer"},   /* other sizes */
        {"kscheck/3 0 0 7 4 3 m", "0,0,0,0,0,0,0,0,0,0,0,nan", -1, 1, "the check process sent a malformed answer"},
        {"kscheck/3 0 0 7 4 3 m", "0,0,0,0,0,0,-1,0,0,0,0,0", -1, 1, "the check process sent a malformed answer"},
        {"kscheck/3 0 0 7 4 3 m", twelve, -1, 0, "the check process sent a malformed answer"}, /* unasked */
        {"kscheck/3 0 0 7 100000 100000 m", "", -1, 1, "the check process sent a malformed answer"}, /* huge */
        {"kscheck/3 0 0 7 99999999999 3 m", "", -1, 1, "the check process sent a malformed answer"},
        {"kscheck/3 0 0 7 4 m", "", -1, 1, "the check process sent a malformed answer"},       /* a size missing */
        {"kscheck/3 0 0 7 -4 3 m", "", -1, 1, "the check process sent a malformed answer"},    /* a sign */
        {"kscheck/3 0 0 7 4 3 m", twelve, 20, 1, "the check process died: exited with status 0"}, /* cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        r = raw_answer(bad[i].line, bad[i].values, bad[i].cut, bad[i].diff, &replaced);
        if (strcmp(r.message, bad[i].why) != 0) fail_msg("answer %zu: '%s'", i, r.message);
        assert_int_equal(r.passed, 0);
        assert_null(r.diff);
        assert_int_equal(r.diff_w, 0);
        assert_true(replaced);
    }
}

static void test_no_fd_leaks(void **state)
{
    (void)state;
    const int null_fd = open("/dev/null", O_RDONLY); /* without O_CLOEXEC, as careless code would */
    assert_true(null_fd >= 0);
    const int high = fcntl(null_fd, F_DUPFD, 100);
    assert_true(high >= 100);
    ks_kchecker *c = create(0);
    ks_kcheck_request req = request("fds", "k.cu", 10);
    req.iters = high;
    ks_kcheck_result r;
    assert_int_equal(ks_kchecker_run(c, &req, &r), KS_OK);
    char want[64];
    snprintf(want, sizeof want, "fd %d closed", high);
    assert_string_equal(r.message, want);
    destroy(c);
    close(high);
    close(null_fd);
}

static void test_bad_exe(void **state)
{
    (void)state;
    const char *const exes[] = {"/nonexistent/kernelscope-no-such\nbinary", "/dev/null"};
    const char *const why[] = {"No such file or directory", "Permission denied"};
    for (int i = 0; i < 2; ++i) {
        ks_kchecker *c = (ks_kchecker *)&c;
        ks_error_clear();
        assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.exe = exes[i]}, &c), KS_ERR_IO);
        assert_null(c);
        assert_non_null(strstr(ks_error_message(), why[i]));
        assert_null(strchr(ks_error_message(), '\n'));
    }
    ks_kchecker *c = NULL;
    assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.timeout_s = -1}, &c), KS_ERR_INVALID);
    assert_null(c);
    assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.device = -1}, &c), KS_ERR_INVALID);
    assert_null(c);
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* the failed children were reaped too */
    assert_int_equal(errno, ECHILD);
}


int main(int argc, char **argv)
{
    if (argc >= 6 && strcmp(argv[1], KS_KCHECK_ARG) == 0 && strcmp(argv[2], "raw") == 0)
        return raw_child(argv[3], argv[4], atoi(argv[5]));
    if (argc >= 2 && strcmp(argv[1], KS_KCHECK_ARG) == 0) {
        child_tag = argc >= 3 ? argv[2] : "";
        for (int i = 2; i + 1 < argc; ++i)
            if (strcmp(argv[i], KS_KCHECK_DEVICE_ARG) == 0) child_device = argv[i + 1];
        return ks_kchecker_child_main(0, 1, fake_warm, fake_check);
    }
    for (size_t i = 0; i < sizeof code; ++i) code[i] = (unsigned char)((i * 2654435761u) >> 13);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass_mismatch_refusal),
        cmocka_unit_test(test_device_named), cmocka_unit_test(test_hang_times_out),
        cmocka_unit_test(test_segv),
        cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_fatal_replaces),
        cmocka_unit_test(test_dead_before_request),
        cmocka_unit_test(test_odd_file_names),
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_diff_payload),
        cmocka_unit_test(test_diff_malformed),
        cmocka_unit_test(test_no_fd_leaks),
        cmocka_unit_test(test_bad_exe),
        cmocka_unit_test(test_child_strict),
        cmocka_unit_test(test_fault_names_the_line),
        cmocka_unit_test(test_first_check_memchecked),
        cmocka_unit_test(test_first_check_hangs),
        cmocka_unit_test(test_no_sanitizer),
        cmocka_unit_test(test_find_sanitizer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
