/* The page's editor of a kernel file (app/kernel/kernel_page.h): what the
 * page is told (the source, or why it cannot be read; the builds, as
 * published), and its Compile: an empty source, a Compile while a build runs
 * or while the last Compile waits for its build, and a file that cannot be
 * written are refused with their HTTP status and one line; an accepted one is
 * on disk whole, and only the build's publication lets the next one in. A save
 * keeps the file's mode and never writes through a symlink planted beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/kernel/kernel_page.h"
#include "base/ks_util.h"
#include "tests/test_util.h"

static int building; /* what the fake watch says */
static int fake_busy(void *user)
{
    (void)user;
    return building;
}

/* The page's document for p, NUL-terminated. */
static char *describe(ks_kernel_page *p)
{
    const ks_server_editor *e = ks_kernel_page_editor(p);
    assert_non_null(e);
    static char buf[1 << 16];
    const size_t n = e->describe(e->user, buf, sizeof buf - 1);
    assert_true(n > 0 && n < sizeof buf);
    buf[n] = '\0';
    return buf;
}

static unsigned submit(ks_kernel_page *p, const char *src, char *msg, size_t cap)
{
    const ks_server_editor *e = ks_kernel_page_editor(p);
    msg[0] = '\0';
    return e->submit(e->user, src, strlen(src), msg, cap);
}

/* The file's text, compared with want. */
static void expect_file(const char *path, const char *want)
{
    char *text = ks_test_read_file(path);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
}

static void test_refused_desc(void **state)
{
    (void)state;
    ks_kernel_page *p = (ks_kernel_page *)&p;
    assert_int_equal(ks_kernel_page_create(NULL, &p), KS_ERR_INVALID);
    assert_null(p);
    assert_int_equal(ks_kernel_page_create(&(ks_kernel_page_desc){.path = ""}, &p), KS_ERR_INVALID);
    assert_int_equal(ks_kernel_page_create(&(ks_kernel_page_desc){.path = "k.cu", .pending_s = -1}, &p),
                     KS_ERR_INVALID);
    assert_null(ks_kernel_page_editor(NULL));
    ks_kernel_page_publish(NULL, 1, 0, "x", NULL, 0, 1.0); /* nothing to tell: ignored */
    ks_kernel_page_destroy(NULL);
}

static void test_describe_and_compile(void **state)
{
    (void)state;
    char dir[256], path[512], msg[256];
    ks_test_tmpdir(dir, sizeof dir, "kpage");
    snprintf(path, sizeof path, "%s/mine.cu", dir);
    building = 0;
    ks_kernel_page *p = NULL;
    assert_int_equal(ks_kernel_page_create(&(ks_kernel_page_desc){.path = path, .busy = fake_busy}, &p), KS_OK);

    /* no file yet: the page is told why, not given a source */
    char *doc = describe(p);
    assert_non_null(strstr(doc, "{\"file\":\"mine.cu\",\"source\":null,\"read_error\":\""));
    assert_non_null(strstr(doc, "\"busy\":false,\"build\":0,\"refused\":false,\"line\":\"\",\"log\":[]"));

    ks_test_write_file(path, "// a \"quoted\" line\n__global__ void k() {}\n");
    doc = describe(p);
    assert_non_null(strstr(doc, "\"source\":\"// a \\\"quoted\\\" line\\u000a__global__ void k() {}\\u000a\""));

    assert_int_equal(submit(p, "", msg, sizeof msg), 400);
    assert_string_equal(msg, "the source is empty");
    building = 1; /* a save of some file is being built */
    assert_int_equal(submit(p, "int a;\n", msg, sizeof msg), 409);
    assert_non_null(strstr(msg, "a build is on its way"));
    assert_non_null(strstr(describe(p), "\"busy\":true"));
    building = 0;

    /* accepted: on disk whole; until its build is published the page sees it busy and a second waits */
    assert_int_equal(submit(p, "int b;\n", msg, sizeof msg), 0);
    expect_file(path, "int b;\n");
    assert_non_null(strstr(describe(p), "\"busy\":true"));
    assert_int_equal(submit(p, "int c;\n", msg, sizeof msg), 409);
    expect_file(path, "int b;\n");

    const char log[3][KS_VIEW_TEXT] = {"mine.cu:1: error: \"x\" is undefined"};
    ks_kernel_page_publish(p, 2, 1, "mine.cu: 1 error", log, 3, 0.0);
    doc = describe(p);
    assert_non_null(strstr(doc, "\"busy\":false,\"build\":2,\"refused\":true,\"line\":\"mine.cu: 1 error\","
                                "\"log\":[\"mine.cu:1: error: \\\"x\\\" is undefined\"],"));
    assert_int_equal(submit(p, "int d;\n", msg, sizeof msg), 0);
    expect_file(path, "int d;\n");
    ks_kernel_page_publish(p, 3, 0, "build 3: compiled 20 ms", NULL, 0, 104.4);
    doc = describe(p);
    assert_non_null(strstr(doc, "\"build\":3,\"refused\":false,\"line\":\"build 3: compiled 20 ms\",\"log\":[],"
                                "\"save_to_running_ms\":104}"));
    ks_kernel_page_destroy(p);
}

/* A Compile whose build never came is forgotten after pending_s. */
static void test_pending_expires(void **state)
{
    (void)state;
    char dir[256], path[512], msg[256];
    ks_test_tmpdir(dir, sizeof dir, "kpagewait");
    snprintf(path, sizeof path, "%s/k.cu", dir);
    ks_kernel_page *p = NULL;
    assert_int_equal(ks_kernel_page_create(&(ks_kernel_page_desc){.path = path, .pending_s = 0.05}, &p), KS_OK);
    const double t0 = ks_now_seconds();
    assert_int_equal(submit(p, "int a;\n", msg, sizeof msg), 0);
    unsigned st = submit(p, "int b;\n", msg, sizeof msg);
    if (ks_now_seconds() - t0 < 0.05) assert_int_equal(st, 409); /* asked within its time */
    while (ks_now_seconds() - t0 < 0.06) { } /* the clock past pending_s */
    assert_int_equal(submit(p, "int c;\n", msg, sizeof msg), 0);
    expect_file(path, "int c;\n");
    ks_kernel_page_destroy(p);
}

/* A file that cannot be written: 500 and the reason. */
static void test_unwritable(void **state)
{
    (void)state;
    char dir[256], path[512], msg[256];
    ks_test_tmpdir(dir, sizeof dir, "kpageno");
    snprintf(path, sizeof path, "%s/no-such-folder/k.cu", dir);
    ks_kernel_page *p = NULL;
    assert_int_equal(ks_kernel_page_create(&(ks_kernel_page_desc){.path = path}, &p), KS_OK);
    assert_int_equal(submit(p, "int a;\n", msg, sizeof msg), 500);
    assert_true(msg[0] != '\0');
    assert_null(strchr(msg, '\n'));
    assert_non_null(strstr(describe(p), "\"busy\":false")); /* nothing was written: nothing to wait for */
    ks_kernel_page_destroy(p);
}


/* Someone who can write to the kernel's folder plants a symlink at the name the
 * save's temporary used to take ("<file>.tmp-<pid>"): the save must neither
 * write the POST body into the file it points to nor make the kernel file a
 * link. A kernel file kept private (0600) stays so after the save. */
static void test_save_planted_symlink_and_mode(void **state)
{
    (void)state;
    char dir[256], path[512], victim[512], planted[600], msg[256];
    ks_test_tmpdir(dir, sizeof dir, "kpagelink");
    snprintf(path, sizeof path, "%s/mine.cu", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(planted, sizeof planted, "%s.tmp-%ld", path, (long)getpid());
    ks_test_write_file(victim, "precious\n");
    ks_test_write_file(path, "int a;\n");
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(symlink(victim, planted), 0);
    const mode_t old_mask = umask(022);
    building = 0;
    ks_kernel_page *p = NULL;
    assert_int_equal(ks_kernel_page_create(&(ks_kernel_page_desc){.path = path, .busy = fake_busy}, &p), KS_OK);
    assert_int_equal(submit(p, "int evil;\n", msg, sizeof msg), 0);
    umask(old_mask);
    expect_file(victim, "precious\n");
    expect_file(path, "int evil;\n");
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    if ((sb.st_mode & 07777) != 0600) fail_msg("the save made mine.cu %o (it was 0600)", (unsigned)(sb.st_mode & 07777));
    assert_int_equal(lstat(planted, &sb), 0); /* the planted link is left as it was */
    assert_true(S_ISLNK(sb.st_mode));
    ks_kernel_page_destroy(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refused_desc),
        cmocka_unit_test(test_describe_and_compile),
        cmocka_unit_test(test_pending_expires),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test(test_save_planted_symlink_and_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
