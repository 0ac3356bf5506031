/* The checker under compute-sanitizer (app/kernel/kernel_checker.h): the
 * test binary of test_kernel_checker.c is the child, run by a stand-in
 * compute-sanitizer (tests/fake_compute_sanitizer.sh) that writes the tool's
 * banner to its log and, once the child has ended, the report the child's
 * fake check left (an out-of-bounds write for the scene "fatal"). A fault
 * retried under it, the first check of a build under it, a hang under it, the
 * tool missing or off, and where the tool is looked for. */
#define _GNU_SOURCE /* mkdtemp, symlink */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/kernel/kernel_checker.h"
#include "test_kernel_check_memcheck.h"

/* What compute-sanitizer memcheck reports of an out-of-bounds write, with the
 * paths of the machine the code was built on and of our own sources. */
static const char oob_report[] =
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at jacobi+0x1b0 in /var/build/ks-nvrtc-1234/mine.cu:12\n"
    "=========     by thread (3,0,0) in block (0,0,5)\n"
    "=========     Address 0x7f3c5e010000 is out of bounds\n"
    "=========     and is 1 bytes after the nearest allocation at 0x7f3c5e000000 of size 65536 bytes\n"
    "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
    "=========         Host Frame: ks_kcheck_run [0x2f1b6f] in /home/builder/kernelscope/app/kernel/kernel_check_child.c:150\n"
    "=========\n"
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API "
    "call to cudaStreamSynchronize.\n";

/* Under the stand-in sanitizer: leaves the report it writes to its log once this process ends. */
void memcheck_leave_report(void)
{
    const char *log = getenv("KS_FAKE_SANITIZER_LOG");
    if (!log) return;
    char path[4096];
    snprintf(path, sizeof path, "%s.report", log);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(oob_report, f);
    fclose(f);
}

static const char fake_sanitizer[] = KS_SOURCE_DIR "/tests/fake_compute_sanitizer.sh";
static const char oob_line[] = "mine.cu:12: out-of-bounds write of 4 bytes, 1 bytes after the nearest allocation (of "
                               "65536 bytes) (block (0,0,5), thread (3,0,0))";

static ks_kchecker *create_memcheck(const char *sanitizer, int mode, double memcheck_timeout_s)
{
    const char *const extra[] = {"tag1", NULL};
    ks_kchecker *c = NULL;
    const ks_status st = ks_kchecker_create(&(ks_kchecker_desc){.extra_args = extra, .sanitizer = sanitizer,
                                                                .memcheck = mode,
                                                                .memcheck_timeout_s = memcheck_timeout_s},
                                            &c);
    if (st != KS_OK) fprintf(stderr, "%s\n", ks_error_message());
    assert_int_equal(st, KS_OK);
    return c;
}

static ks_kcheck_result run_first(ks_kchecker *c, const char *scene, const char *file)
{
    ks_kcheck_request req = request(scene, file, 100);
    req.first = 1;
    ks_kcheck_result res;
    const ks_status st = ks_kchecker_run(c, &req, &res);
    if (st != KS_OK) fprintf(stderr, "%s\n", ks_error_message());
    assert_int_equal(st, KS_OK);
    assert_null(strchr(res.message, '\n'));
    return res;
}

/* Nothing of a build machine's paths or of our sources reaches the user. */
static void expect_users_words(const char *m)
{
    assert_null(strchr(m, '/'));
    assert_null(strstr(m, ".c:"));
    assert_null(strstr(m, "kernel_check"));
    assert_null(strstr(m, "========="));
}

/* A plain check that faults is run again under compute-sanitizer, and its
 * first error, in the user's words, replaces the CUDA error. */
void test_fault_names_the_line(void **state)
{
    (void)state;
    char tmp[] = "/tmp/ks-tmpdir-XXXXXX"; /* the report's folder is made here, and removed */
    assert_non_null(mkdtemp(tmp));
    const char *old_tmp = getenv("TMPDIR");
    char *saved_tmp = old_tmp ? strdup(old_tmp) : NULL;
    setenv("TMPDIR", tmp, 1);
    ks_kchecker *c = create_memcheck(fake_sanitizer, KS_KCHECK_MEMCHECK_FAULT, 0);
    const int pid = ks_kchecker_pid(c);
    ks_kcheck_result r = run(c, "fatal", "/home/me/kernels/mine.cu", 100);
    assert_string_equal(r.message, oob_line);
    assert_int_equal(r.passed, 0);
    assert_int_equal(r.fatal, 1);
    assert_int_equal(r.memchecked, 1);
    assert_true(r.memcheck_ms > 0 && r.total_ms >= r.memcheck_ms);
    expect_users_words(r.message);
    assert_true(ks_kchecker_pid(c) > 0 && ks_kchecker_pid(c) != pid);
    expect_reaped(pid);
    r = run(c, "fatalquiet", "mine.cu", 100); /* the tool saw nothing: the CUDA error stays */
    assert_string_equal(r.message, "an illegal memory access was encountered");
    assert_int_equal(r.memchecked, 1);
    r = run(c, "where", "mine.cu", 100); /* a check that passes runs plain, once */
    assert_string_equal(r.message, "sanitized 0");
    assert_int_equal(r.memchecked, 0);
    expect_pass(c, 10, "tag1");
    destroy(c);
    if (saved_tmp) setenv("TMPDIR", saved_tmp, 1);
    else unsetenv("TMPDIR");
    free(saved_tmp);
    assert_int_equal(rmdir(tmp), 0); /* empty: the report's folder went with the checker */
}

/* The first check of a build goes through compute-sanitizer, then the plain
 * one; a fault under it is the answer and never reaches the plain child. */
void test_first_check_memchecked(void **state)
{
    (void)state;
    ks_kchecker *c = create_memcheck(fake_sanitizer, KS_KCHECK_MEMCHECK_FIRST, 0);
    const int pid = ks_kchecker_pid(c);
    ks_kcheck_result r = run_first(c, "where", "mine.cu");
    assert_string_equal(r.message, "sanitized 0"); /* the plain check's answer, after the memcheck's */
    assert_int_equal(r.passed, 1);
    assert_int_equal(r.memchecked, 1);
    assert_true(r.memcheck_ms > 0 && r.total_ms >= r.memcheck_ms);
    r = run_first(c, "fatal", "mine.cu");
    assert_string_equal(r.message, oob_line);
    assert_int_equal(r.fatal, 1);
    expect_users_words(r.message);
    assert_int_equal(ks_kchecker_pid(c), pid); /* the plain child never ran it */
    r = run_first(c, "mismatch", "mine.cu"); /* a wrong answer under it is the answer */
    assert_string_equal(r.message, "cell (1, 2, 3) is 0.5, expected 0.25 (max error 0.25)");
    assert_int_equal(r.memchecked, 1);
    r = run(c, "where", "mine.cu", 100); /* not a first check: plain alone */
    assert_string_equal(r.message, "sanitized 0");
    assert_int_equal(r.memchecked, 0);
    assert_int_equal(ks_kchecker_pid(c), pid);
    destroy(c);
}

/* A first check that hangs under compute-sanitizer: its own limit, the tool
 * and its target ended, the next check served. */
void test_first_check_hangs(void **state)
{
    (void)state;
    ks_kchecker *c = create_memcheck(fake_sanitizer, KS_KCHECK_MEMCHECK_FIRST, 0.5);
    ks_kcheck_result r = run_first(c, "hang", "mine.cu");
    assert_string_equal(r.message, "did not finish in 0.5 s under compute-sanitizer");
    assert_int_equal(r.passed, 0);
    r = run_first(c, "where", "mine.cu");
    assert_string_equal(r.message, "sanitized 0");
    assert_int_equal(r.passed, 1);
    destroy(c);
}

/* Without compute-sanitizer: said so, with the CUDA error alone; a first check runs plain. */
void test_no_sanitizer(void **state)
{
    (void)state;
    ks_kchecker *c = create_memcheck("/nonexistent/compute-sanitizer", KS_KCHECK_MEMCHECK_FIRST, 0);
    assert_null(ks_kchecker_sanitizer(c));
    ks_kcheck_result r = run(c, "fatal", "mine.cu", 100);
    assert_string_equal(r.message,
                        "an illegal memory access was encountered (compute-sanitizer not found: the CUDA error alone)");
    assert_int_equal(r.fatal, 1);
    assert_int_equal(r.memchecked, 0);
    r = run_first(c, "where", "mine.cu");
    assert_string_equal(r.message, "sanitized 0");
    assert_int_equal(r.memchecked, 0);
    destroy(c);
    c = create_memcheck(fake_sanitizer, KS_KCHECK_MEMCHECK_OFF, 0); /* off: the CUDA error as it came */
    r = run(c, "fatal", "mine.cu", 100);
    assert_string_equal(r.message, "an illegal memory access was encountered");
    assert_int_equal(r.memchecked, 0);
    destroy(c);
}

/* Where the tool is looked for: on PATH, beside nvcc (through its link), in
 * $CUDA_HOME/bin; an explicit path is that one or none. */
void test_find_sanitizer(void **state)
{
    (void)state;
    char root[] = "/tmp/ks-find-XXXXXX";
    assert_non_null(mkdtemp(root));
    char a[256], b[256], home[256], tool[512], link[512], got[4096];
    snprintf(a, sizeof a, "%s/a", root);
    snprintf(b, sizeof b, "%s/b", root);
    snprintf(home, sizeof home, "%s/cuda", root);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    assert_int_equal(mkdir(home, 0700), 0);
    snprintf(tool, sizeof tool, "%s/bin", home);
    assert_int_equal(mkdir(tool, 0700), 0);
    const char *const made[] = {"b/nvcc", "b/compute-sanitizer", "cuda/bin/compute-sanitizer", "a/compute-sanitizer"};
    for (int i = 0; i < 4; ++i) {
        snprintf(tool, sizeof tool, "%s/%s", root, made[i]);
        const int fd = open(tool, O_WRONLY | O_CREAT | O_EXCL, 0700);
        assert_true(fd >= 0);
        close(fd);
    }
    snprintf(link, sizeof link, "%s/nvcc", a);
    snprintf(tool, sizeof tool, "%s/nvcc", b);
    assert_int_equal(symlink(tool, link), 0);
    const char *old_path = getenv("PATH"), *old_home = getenv("CUDA_HOME");
    char *saved_path = old_path ? strdup(old_path) : NULL, *saved_home = old_home ? strdup(old_home) : NULL;
    char want[600];
    setenv("CUDA_HOME", home, 1);
    setenv("PATH", a, 1); /* on PATH */
    snprintf(want, sizeof want, "%s/compute-sanitizer", a);
    assert_int_equal(ks_kcheck_find_sanitizer(NULL, got, sizeof got), 1);
    assert_string_equal(got, want);
    snprintf(tool, sizeof tool, "%s/compute-sanitizer", a);
    unlink(tool);
    assert_int_equal(ks_kcheck_find_sanitizer(NULL, got, sizeof got), 1); /* beside nvcc, where its link leads */
    snprintf(want, sizeof want, "%s/compute-sanitizer", b);
    assert_string_equal(got, want);
    setenv("PATH", "/nonexistent", 1);
    assert_int_equal(ks_kcheck_find_sanitizer(NULL, got, sizeof got), 1); /* $CUDA_HOME/bin */
    snprintf(want, sizeof want, "%s/bin/compute-sanitizer", home);
    assert_string_equal(got, want);
    assert_int_equal(ks_kcheck_find_sanitizer(want, got, sizeof got), 1);
    assert_string_equal(got, want);
    assert_int_equal(ks_kcheck_find_sanitizer("/nonexistent/compute-sanitizer", got, sizeof got), 0);
    if (saved_path) setenv("PATH", saved_path, 1);
    if (saved_home) setenv("CUDA_HOME", saved_home, 1);
    else unsetenv("CUDA_HOME");
    free(saved_path);
    free(saved_home);
    const char *const gone[] = {"a/nvcc", "b/nvcc", "b/compute-sanitizer", "cuda/bin/compute-sanitizer", "cuda/bin",
                                "cuda", "a", "b", ""};
    for (int i = 0; i < 9; ++i) {
        snprintf(tool, sizeof tool, "%s/%s", root, gone[i]);
        if (remove(tool) != 0) fail_msg("cannot remove %s", tool);
    }
}
