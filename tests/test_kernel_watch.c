/* The kernel file watch (app/kernel/kernel_watch.h): a save, in place or
 * through a rename, gives a build; errors come as file:line lines; a check
 * that refuses keeps the code back; quick saves merge; destroy is clean with
 * work queued. Every wait is on the watch itself, with no deadline of its own
 * (ctest's TIMEOUT is the limit), so a loaded machine only makes it slower. NVRTC compiles without a
 * GPU; a build without it reports KS_ERR_UNSUPPORTED instead. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/kernel/kernel_watch.h"
#include "base/ks_util.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/laplace/laplace_contract.h"
#include "tests/test_util.h"

static const char bad_source[] = "extern \"C\" __global__ void jacobi(const float *u, float *v, int n)\n"
                                 "{\n"
                                 "    v[0] = w;\n"
                                 "    v[1] = u[0]\n"
                                 "}\n";

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* The next build, waiting for it (NVRTC on a loaded machine takes what it takes). */
static void next_build(ks_kernel_watch *w, ks_kernel_build *b)
{
    while (!ks_kernel_watch_poll(w, b)) ks_test_sleep_ms(5);
}

static void wait_idle(ks_kernel_watch *w)
{
    while (ks_kernel_watch_busy(w)) ks_test_sleep_ms(5);
}

/* A build of good source: code, or NVRTC's absence said in one line. */
static void expect_ok(const ks_kernel_build *b, int slot, long long generation)
{
    assert_int_equal(b->slot, slot);
    assert_int_equal(b->generation, generation);
    assert_true(b->seen_at > 0 && b->seen_at <= ks_now_seconds());
    if (!ks_nvrtc_built()) {
        assert_int_equal(b->status, KS_ERR_UNSUPPORTED);
        assert_int_equal(b->compiled, 0);
        assert_null(b->code);
        assert_non_null(strstr(b->message, "NVRTC is not in this"));
        return;
    }
    if (b->status != KS_OK) fprintf(stderr, "%s\n%s", b->message, b->lines ? b->lines : "");
    assert_int_equal(b->status, KS_OK);
    assert_int_equal(b->compiled, 1);
    assert_non_null(b->code);
    assert_true(b->code_size > 0);
    assert_true(b->compile_ms > 0);
    assert_non_null(strstr(b->message, "compiled in "));
}

static void test_saves(void **state)
{
    (void)state;
    char dir[256], a[512], b[512], tmp[600];
    ks_test_tmpdir(dir, sizeof dir, "kwatch");
    snprintf(a, sizeof a, "%s/a.cu", dir);
    snprintf(b, sizeof b, "%s/b.cu", dir);
    put(a, KS_LAPLACE3D_STARTER);
    put(b, KS_LAPLACE3D_STARTER);
    const char *paths[] = {a, b};
    ks_kernel_watch *w = NULL;
    assert_int_equal(ks_kernel_watch_create(&(ks_kernel_watch_desc){.paths = paths, .count = 2, .initial_build = 1}, &w),
                     KS_OK);
    ks_kernel_build x, y;
    next_build(w, &x); /* one build per file, generation 1 */
    next_build(w, &y);
    expect_ok(x.slot == 0 ? &x : &y, 0, 1);
    expect_ok(x.slot == 0 ? &y : &x, 1, 1);
    ks_kernel_build_free(&x);
    ks_kernel_build_free(&y);
    wait_idle(w);
    assert_int_equal(ks_kernel_watch_poll(w, &x), 0);

    put(a, "// in place\n" KS_LAPLACE3D_STARTER);
    next_build(w, &x);
    expect_ok(&x, 0, 2);
    ks_kernel_build_free(&x);

    snprintf(tmp, sizeof tmp, "%s/.b.cu.swp", dir); /* as an editor saves: another name, then a rename */
    put(tmp, "// renamed\n" KS_LAPLACE3D_STARTER);
    assert_int_equal(rename(tmp, b), 0);
    next_build(w, &x);
    expect_ok(&x, 1, 2);
    ks_kernel_build_free(&x);

    assert_int_equal(ks_kernel_watch_rebuild(w, 1), KS_OK);
    next_build(w, &x);
    expect_ok(&x, 1, 3);
    ks_kernel_build_free(&x);
    assert_int_equal(ks_kernel_watch_rebuild(w, 2), KS_ERR_INVALID);
    assert_int_equal(ks_kernel_watch_rebuild(w, -1), KS_ERR_INVALID);
    wait_idle(w);
    assert_int_equal(ks_kernel_watch_poll(w, &x), 0); /* nothing more than asked for */
    ks_kernel_watch_destroy(w);
}

/* One file saved again and again, as a user does: every save is a build,
 * whether the editor writes in place or renames a new file over it. */
static void test_many_saves(void **state)
{
    (void)state;
    char dir[256], a[512], tmp[600], text[4096];
    ks_test_tmpdir(dir, sizeof dir, "kwatch");
    snprintf(a, sizeof a, "%s/a.cu", dir);
    snprintf(tmp, sizeof tmp, "%s/a.cu.tmp", dir);
    put(a, KS_LAPLACE3D_STARTER);
    const char *paths[] = {a};
    ks_kernel_watch *w = NULL;
    assert_int_equal(ks_kernel_watch_create(&(ks_kernel_watch_desc){.paths = paths, .count = 1, .initial_build = 1}, &w),
                     KS_OK);
    ks_kernel_build x;
    next_build(w, &x);
    expect_ok(&x, 0, 1);
    ks_kernel_build_free(&x);
    for (int save = 0; save < 6; ++save) {
        wait_idle(w);
        snprintf(text, sizeof text, "// save %d\n%s", save, KS_LAPLACE3D_STARTER);
        if (save % 3 == 2) {
            put(a, text);
        } else {
            put(tmp, text);
            assert_int_equal(rename(tmp, a), 0);
        }
        next_build(w, &x);
        expect_ok(&x, 0, 2 + save);
        ks_kernel_build_free(&x);
    }
    ks_kernel_watch_destroy(w);
}

/* A syntax error gives file:line lines; a missing file, the read's line; once
 * it appears, it is built. */
static void test_errors(void **state)
{
    (void)state;
    char dir[256], bad[512], missing[512], want[1200];
    ks_test_tmpdir(dir, sizeof dir, "kwatcherr");
    snprintf(bad, sizeof bad, "%s/bad.cu", dir);
    snprintf(missing, sizeof missing, "%s/later.cu", dir);
    put(bad, bad_source);
    const char *paths[] = {bad, missing};
    ks_kernel_watch *w = NULL;
    assert_int_equal(ks_kernel_watch_create(&(ks_kernel_watch_desc){.paths = paths, .count = 2, .initial_build = 1}, &w),
                     KS_OK);
    ks_kernel_build x[2];
    next_build(w, &x[0]);
    next_build(w, &x[1]);
    const ks_kernel_build *e = x[0].slot == 0 ? &x[0] : &x[1], *m = x[0].slot == 0 ? &x[1] : &x[0];
    assert_int_equal(e->compiled, 0);
    assert_null(e->code);
    if (ks_nvrtc_built()) {
        assert_int_equal(e->status, KS_ERR_PARSE);
        snprintf(want, sizeof want, "%s: 2 errors", bad);
        assert_string_equal(e->message, want);
        snprintf(want, sizeof want, "%s:3: error: identifier \"w\" is undefined\n%s:5: error: expected a \";\"\n", bad,
                 bad);
        assert_string_equal(e->lines, want);
    } else {
        assert_int_equal(e->status, KS_ERR_UNSUPPORTED);
        assert_non_null(strstr(e->message, "NVRTC is not in this"));
    }
    assert_int_equal(m->slot, 1);
    assert_int_equal(m->status, KS_ERR_INVALID);
    assert_non_null(strstr(m->message, "No such file"));
    assert_int_equal(m->compile_ms, 0);
    ks_kernel_build_free(&x[0]);
    ks_kernel_build_free(&x[1]);

    put(missing, KS_LAPLACE3D_STARTER); /* created, then written: one build, or two on a stalled machine */
    next_build(w, &x[0]);
    while (x[0].status == KS_ERR_PARSE) { /* a build that read it half written */
        ks_kernel_build_free(&x[0]);
        next_build(w, &x[0]);
    }
    assert_int_equal(x[0].slot, 1);
    expect_ok(&x[0], 1, x[0].generation);
    assert_true(x[0].generation >= 2);
    ks_kernel_build_free(&x[0]);
    wait_idle(w);
    ks_kernel_watch_destroy(w);
}

typedef struct checks {
    int calls;
    int cubin;
} checks;

/* Refuses with a message, then through ks_fail only, then passes. */
static ks_status check(void *user, int slot, const void *code, size_t size, int cubin, char *msg, size_t cap,
                       int block[3])
{
    checks *c = user;
    block[0] = 32 + c->calls; /* what the build must carry back */
    block[1] = 4;
    block[2] = 2;
    assert_int_equal(slot, 0);
    assert_non_null(code);
    assert_true(size > 0);
    c->cubin = cubin;
    switch (c->calls++) {
    case 0:
        snprintf(msg, cap, "differs from the CPU gold at (1,1,1)");
        return KS_ERR_INVALID;
    case 1: return ks_fail(KS_ERR_CUDA, "the checker process died");
    default: return KS_OK;
    }
}

static void test_check(void **state)
{
    (void)state;
    char dir[256], a[512];
    ks_test_tmpdir(dir, sizeof dir, "kwatchcheck");
    snprintf(a, sizeof a, "%s/k.cu", dir);
    put(a, KS_LAPLACE3D_STARTER);
    const char *paths[] = {a};
    ks_kernel_watch *w = NULL;
    checks c = {0};
    const ks_kernel_watch_desc d = {.paths = paths, .count = 1, .cubin = 1, .check = check, .check_user = &c,
                                    .initial_build = 1};
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_OK);
    ks_kernel_build x;
    next_build(w, &x);
    if (!ks_nvrtc_built()) { /* nothing compiles, so nothing is checked */
        expect_ok(&x, 0, 1);
        assert_int_equal(c.calls, 0);
        ks_kernel_build_free(&x);
        ks_kernel_watch_destroy(w);
        return;
    }
    assert_int_equal(x.status, KS_ERR_INVALID);
    assert_int_equal(x.compiled, 1);
    assert_null(x.code);
    assert_string_equal(x.message, "differs from the CPU gold at (1,1,1)");
    assert_int_equal(c.cubin, 1);
    ks_kernel_build_free(&x);

    assert_int_equal(ks_kernel_watch_rebuild(w, 0), KS_OK);
    next_build(w, &x);
    assert_int_equal(x.status, KS_ERR_CUDA);
    assert_string_equal(x.message, "the checker process died"); /* the worker's error text, not ours */
    ks_kernel_build_free(&x);

    assert_int_equal(ks_kernel_watch_rebuild(w, 0), KS_OK);
    next_build(w, &x);
    expect_ok(&x, 0, 3);
    assert_int_equal(x.cubin, 1);
    assert_int_equal(x.checked_block[0], 34); /* this build's check, the third */
    assert_int_equal(x.checked_block[1], 4);
    assert_int_equal(x.checked_block[2], 2);
    assert_non_null(strstr(x.message, "ms, checked in "));
    assert_true(x.check_ms >= 0 && x.read_ms >= 0);
    ks_kernel_build_free(&x);
    ks_kernel_watch_destroy(w);
}

/* Quick saves merge: one build, or two when one started mid-way (a request
 * during a build waits for it and merges into one more). */
static void test_merge(void **state)
{
    (void)state;
    char dir[256], a[512];
    ks_test_tmpdir(dir, sizeof dir, "kwatchmerge");
    snprintf(a, sizeof a, "%s/k.cu", dir);
    put(a, KS_LAPLACE3D_STARTER);
    const char *paths[] = {a};
    ks_kernel_watch *w = NULL;
    /* 200 ms: a loaded machine can stall the writer for tens of ms between saves */
    assert_int_equal(ks_kernel_watch_create(&(ks_kernel_watch_desc){.paths = paths, .count = 1, .debounce_ms = 200}, &w),
                     KS_OK);
    for (int i = 0; i < 20; ++i) put(a, KS_LAPLACE3D_STARTER);
    put(a, bad_source); /* the last save is the one built last */
    ks_kernel_build x, more;
    next_build(w, &x);
    int builds = 1;
    wait_idle(w);
    while (ks_kernel_watch_poll(w, &more)) { /* keep the last */
        ++builds;
        ks_kernel_build_free(&x);
        x = more;
    }
    assert_true(builds <= 2);
    assert_int_equal(x.generation, builds);
    assert_int_equal(x.status, ks_nvrtc_built() ? KS_ERR_PARSE : KS_ERR_UNSUPPORTED);
    ks_kernel_build_free(&x);
    ks_kernel_watch_destroy(w);
}

/* Destroy with a build queued, running or finished and not collected: clean
 * (LeakSanitizer checks), and prompt when idle. */
static void test_destroy(void **state)
{
    (void)state;
    char dir[256], a[512];
    ks_test_tmpdir(dir, sizeof dir, "kwatchend");
    snprintf(a, sizeof a, "%s/k.cu", dir);
    put(a, KS_LAPLACE3D_STARTER);
    const char *paths[] = {a, a};
    ks_kernel_watch *w = NULL;
    const ks_kernel_watch_desc d = {.paths = paths, .count = 2, .initial_build = 1};
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_OK);
    assert_int_equal(ks_kernel_watch_rebuild(w, 1), KS_OK);
    put(a, "// queued, then the watch ends\n" KS_LAPLACE3D_STARTER);
    ks_kernel_watch_destroy(w);

    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_OK); /* builds done, none collected */
    ks_kernel_build x;
    next_build(w, &x);
    ks_kernel_build_free(&x);
    wait_idle(w);
    ks_kernel_watch_destroy(w);

    assert_int_equal(ks_kernel_watch_create(&(ks_kernel_watch_desc){.paths = paths, .count = 1}, &w), KS_OK);
    assert_int_equal(ks_kernel_watch_busy(w), 0);
    const double t = ks_now_seconds();
    ks_kernel_watch_destroy(w); /* the worker sleeps in poll() with no timeout: the eventfd wakes it */
    assert_true(ks_now_seconds() - t < 5.0);
    ks_kernel_watch_destroy(NULL);
}

/* ks_kernel_watch_task: the task runs on the worker thread, once per
 * request (requests before it runs merge), never on the caller's; a watch
 * without a task refuses. */
typedef struct task_log {
    pthread_mutex_t lock;
    int calls;
    pthread_t thread;
} task_log;

static void task(void *user)
{
    task_log *t = user;
    pthread_mutex_lock(&t->lock);
    ++t->calls;
    t->thread = pthread_self();
    pthread_mutex_unlock(&t->lock);
}

static int task_calls(task_log *t)
{
    pthread_mutex_lock(&t->lock);
    const int n = t->calls;
    pthread_mutex_unlock(&t->lock);
    return n;
}

static void wait_calls(task_log *t, int n)
{
    while (task_calls(t) < n) nanosleep(&(struct timespec){0, 1000000}, NULL);
}

static void test_task(void **state)
{
    (void)state;
    char dir[256], a[512];
    ks_test_tmpdir(dir, sizeof dir, "kwatchtask");
    snprintf(a, sizeof a, "%s/k.cu", dir);
    put(a, KS_LAPLACE3D_STARTER);
    const char *paths[] = {a};
    task_log t = {.lock = PTHREAD_MUTEX_INITIALIZER};
    ks_kernel_watch *w = NULL;
    ks_kernel_watch_desc d = {.paths = paths, .count = 1, .task = task, .check_user = &t};
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_OK);
    assert_int_equal(task_calls(&t), 0); /* not before it is asked for */
    assert_int_equal(ks_kernel_watch_task(w), KS_OK);
    wait_calls(&t, 1);
    assert_false(pthread_equal(t.thread, pthread_self()));
    for (int i = 0; i < 3; ++i) assert_int_equal(ks_kernel_watch_task(w), KS_OK);
    wait_calls(&t, 2);
    wait_idle(w);
    ks_kernel_watch_destroy(w); /* joins the worker: no call after this */
    assert_true(task_calls(&t) >= 2 && task_calls(&t) <= 4);
    d.task = NULL;
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_OK);
    assert_int_equal(ks_kernel_watch_task(w), KS_ERR_INVALID);
    ks_kernel_watch_destroy(w);
    assert_int_equal(ks_kernel_watch_task(NULL), KS_ERR_INVALID);
}

static void test_refuses(void **state)
{
    (void)state;
    char dir[256], file[512], inside[600];
    ks_test_tmpdir(dir, sizeof dir, "kwatchbad");
    snprintf(file, sizeof file, "%s/k.cu", dir);
    put(file, KS_LAPLACE3D_STARTER);
    snprintf(inside, sizeof inside, "%s/x.cu", file);
    ks_kernel_watch *w = (ks_kernel_watch *)&w;
    const char *paths[] = {"/nonexistent/folder/k.cu"};
    ks_kernel_watch_desc d = {.paths = paths, .count = 1};
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_ERR_INVALID);
    assert_null(w);
    assert_non_null(strstr(ks_error_message(), "cannot watch the folder of '/nonexistent/folder/k.cu'"));
    paths[0] = inside; /* its "folder" is a file */
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_ERR_INVALID);
    snprintf(inside, sizeof inside, "%s/", dir);
    paths[0] = inside;
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_ERR_INVALID);
    assert_non_null(strstr(ks_error_message(), "names a folder"));
    paths[0] = NULL;
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_ERR_INVALID);
    paths[0] = file;
    d.count = 0;
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_ERR_INVALID);
    assert_null(w);
    d.count = KS_KERNEL_WATCH_MAX + 1;
    assert_int_equal(ks_kernel_watch_create(&d, &w), KS_ERR_INVALID);
    assert_int_equal(ks_kernel_watch_create(NULL, &w), KS_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saves),   cmocka_unit_test(test_many_saves), cmocka_unit_test(test_errors),  cmocka_unit_test(test_check),
        cmocka_unit_test(test_merge),   cmocka_unit_test(test_destroy), cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_task),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
