/* A user's own kernel, the first part (issue 25): kernelscope new-kernel
 * writes a starter that compiles with NVRTC (no GPU needed) and refuses bad
 * input in one line with exit 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/scenes.h"
#include "kernels/common/nvrtc_compile.h"
#include "tests/test_util.h"

static ks_run_result r;

/* Runs argv; checks the exit code and, for a refusal, one line on stderr. */
static void run_expect(const char *const *argv, int code)
{
    ks_test_run(argv, NULL, &r);
    if (r.exit_code != code) fprintf(stderr, "stdout: %s\nstderr: %s\n", r.out, r.err);
    assert_int_equal(r.exit_code, code);
    if (code == 2) assert_int_equal(ks_test_count_lines(r.err), 1);
}

static void compiles(const char *path)
{
    char *src = ks_test_read_file(path);
    assert_non_null(src);
    if (!ks_nvrtc_built()) {
        free(src);
        return;
    }
    ks_nvrtc_result c;
    const ks_status st = ks_nvrtc_compile(&(ks_nvrtc_desc){.source = src, .name = path}, &c);
    if (st != KS_OK) fprintf(stderr, "%s\n%s", ks_error_message(), c.lines ? c.lines : "");
    assert_int_equal(st, KS_OK);
    ks_nvrtc_result_free(&c);
    free(src);
}

static void test_new_kernel_writes(void **state)
{
    (void)state;
    char dir[256], cwd[1024], path[512];
    ks_test_tmpdir(dir, sizeof dir, "newkernel");
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0); /* the default name goes into the current folder */
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", NULL}, 0);
    assert_int_equal(chdir(cwd), 0);
    assert_non_null(strstr(r.out, "wrote laplace3d_kernel.cu"));
    snprintf(path, sizeof path, "%s/laplace3d_kernel.cu", dir);
    compiles(path);
    char *text = ks_test_read_file(path);
    assert_non_null(strstr(text, "//   extern \"C\" __global__ void jacobi(")); /* the contract as comments */
    free(text);

    snprintf(path, sizeof path, "%s/mine2d.cu", dir);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace2d", "-o", path, NULL}, 0);
    compiles(path);
    /* never over an existing file; it stays as it was */
    struct stat before, after;
    assert_int_equal(stat(path, &before), 0);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "-o", path, NULL}, 2);
    assert_non_null(strstr(r.err, "exists"));
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    /* a folder is an existing file too */
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "-o", dir, NULL}, 2);
}

static void test_new_kernel_refuses(void **state)
{
    (void)state;
    run_expect((const char *const[]){NULL, "new-kernel", "nosuchscene", NULL}, 2);
    assert_non_null(strstr(r.err, "unknown scene 'nosuchscene'"));
    run_expect((const char *const[]){NULL, "new-kernel", NULL}, 2);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "--from", "regq", NULL}, 2);
    assert_non_null(strstr(r.err, "--from is not built yet"));
    for (int i = 0; i < ks_scene_def_count(); ++i) { /* a scene without a contract */
        const ks_scene_def *d = ks_scene_def_at(i);
        if (d->kernel_contract) continue;
        run_expect((const char *const[]){NULL, "new-kernel", d->name, NULL}, 2);
        assert_non_null(strstr(r.err, "no kernel contract"));
        break;
    }
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "-o", "/nonexistent-folder/k.cu", NULL}, 2);
    run_expect((const char *const[]){NULL, "new-kernel", "--help", NULL}, 0);
    assert_non_null(strstr(r.out, "usage: kernelscope new-kernel SCENE"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_kernel_writes),
        cmocka_unit_test(test_new_kernel_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
