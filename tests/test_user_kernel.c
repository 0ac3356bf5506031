/* A user's own kernel: kernelscope new-kernel writes a starter that compiles
 * with NVRTC (no GPU needed); --kernel-file compiles a file and shows its
 * errors as FILE:LINE: lines; without a device it then says in one line that
 * running needs one (exit 2); bad input is one line and exit 2. The runs on a
 * GPU are tests/laplace/test_user_kernel_gpu.c. */
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
#include "app/new_kernel.h"
#include "app/scenes.h"
#include "app/kernel/nvrtc_compile.h"
#include "kernels/laplace/laplace_contract.h"
#include "tests/test_util.h"
#include "tests/user_kernel_test_util.h"

static ks_run_result r;

/* Runs argv; checks the exit code and, for a refusal, one line on stderr. */
static void run_expect(const char *const *argv, int code)
{
    ks_test_run(argv, NULL, &r);
    if (r.exit_code != code || (code == 2 && ks_test_count_lines(r.err) != 1))
        fprintf(stderr, "%s %s: exit %d\nstdout: %s\nstderr: %s\n", argv[1], argv[2] ? argv[2] : "", r.exit_code,
                r.out, r.err);
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

    /* --from: one of ours, written to the contract; it compiles too */
    snprintf(path, sizeof path, "%s/regq.cu", dir);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "--from", "regq", "-o", path, NULL}, 0);
    compiles(path);
    text = ks_test_read_file(path);
    assert_non_null(strstr(text, "new-kernel laplace3d --from regq"));
    assert_non_null(strstr(text, "kernelscope_points_per_thread[3] = {4, 1, 4}"));
    free(text);
    snprintf(path, sizeof path, "%s/regq2.cu", dir);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "--from=regq", "-o", path, NULL}, 0);
}

/* new-kernel's file goes through a temporary beside it: a symlink planted at
 * the name that temporary used to take ("<file>.tmp-<pid>", run in this process
 * so that the pid is known) neither stops the write nor is written through. */
static void test_new_kernel_planted_symlink(void **state)
{
    (void)state;
    char dir[256], path[512], victim[512], planted[600], written[1024];
    ks_test_tmpdir(dir, sizeof dir, "newkernel-link");
    snprintf(path, sizeof path, "%s/k.cu", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(planted, sizeof planted, "%s.tmp-%ld", path, (long)getpid());
    ks_test_write_file(victim, "precious\n");
    assert_int_equal(symlink(victim, planted), 0);
    char *argv[] = {"kernelscope", "new-kernel", "laplace3d", "-o", path, NULL};
    int help = 1;
    const mode_t old_mask = umask(027);
    const ks_status st = ks_new_kernel_run(5, argv, written, sizeof written, &help);
    umask(old_mask);
    if (st != KS_OK) fail_msg("new-kernel: %s", ks_error_message());
    assert_int_equal(help, 0);
    char *text = ks_test_read_file(victim);
    assert_string_equal(text, "precious\n");
    free(text);
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    assert_int_equal(sb.st_mode & 07777, 0640); /* 0666 less the umask */
    text = ks_test_read_file(path);
    assert_non_null(strstr(text, "__global__"));
    free(text);
    /* and the file now there is never replaced */
    assert_int_equal(ks_new_kernel_run(5, argv, written, sizeof written, &help), KS_ERR_INVALID);
    assert_non_null(strstr(ks_error_message(), "exists"));
    assert_int_equal(unlink(planted), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(unlink(victim), 0);
    assert_int_equal(rmdir(dir), 0); /* nothing else left */
}

static void test_new_kernel_refuses(void **state)
{
    (void)state;
    run_expect((const char *const[]){NULL, "new-kernel", "nosuchscene", NULL}, 2);
    assert_non_null(strstr(r.err, "unknown scene 'nosuchscene'"));
    run_expect((const char *const[]){NULL, "new-kernel", NULL}, 2);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "--from", "tblock", NULL}, 2);
    assert_non_null(strstr(r.err, "--from tblock: laplace3d has no such variant written to its contract (it has: regq"));
    run_expect((const char *const[]){NULL, "new-kernel", "laplace2d", "--from", "vec2d", NULL}, 2);
    assert_non_null(strstr(r.err, "none of laplace2d's variants"));
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "--from", NULL}, 2);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "--from", "regq", "--from", "regq", NULL}, 2);
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

static void test_kernel_file_compiles(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "kfile");
    snprintf(path, sizeof path, "%s/k3.cu", dir);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "-o", path, NULL}, 0);
    run_expect((const char *const[]){NULL, "laplace3d", "--backend", "cpu", "--kernel-file", path, NULL}, 2);
    if (!ks_nvrtc_built()) {
        assert_non_null(strstr(r.err, "NVRTC is not in this"));
        return;
    }
    assert_non_null(strstr(r.err, "compiles (for sm_90, the default without a device); running it needs a CUDA "
                                  "device, not --backend cpu"));
    /* the default backend: no device here (exit 2), or one: then it is checked and runs */
    ks_test_run((const char *const[]){NULL, "laplace3d", "--headless", "--frames", "3", "--grid", "40",
                                      "--kernel-file", path, NULL},
                NULL, &r);
    if (r.exit_code == 2) {
        assert_non_null(strstr(r.err, "running it needs a CUDA device"));
        assert_int_equal(ks_test_count_lines(r.err), 1);
    } else if (!strstr(r.err, "EGL") && !strstr(r.err, "display")) {
        if (r.exit_code != 0) fprintf(stderr, "%s", r.err);
        assert_int_equal(r.exit_code, 0);
        assert_non_null(strstr(r.err, "matches the CPU gold"));
    }
    /* --kernel names it (the file's name); two files of one name are refused */
    run_expect((const char *const[]){NULL, "laplace3d", "--backend", "cpu", "--kernel-file", path, "--kernel", "k3.cu",
                                     NULL},
               2);
    assert_non_null(strstr(r.err, "running it needs a CUDA device"));
    char other[600];
    snprintf(other, sizeof other, "%s/./k3.cu", dir);
    run_expect((const char *const[]){NULL, "laplace3d", "--kernel-file", path, "--kernel-file", other, NULL}, 2);
    assert_non_null(strstr(r.err, "two files named 'k3.cu'"));
    run_expect((const char *const[]){NULL, "laplace3d", "--kernel", "k4.cu", NULL}, 2);
    assert_non_null(strstr(r.err, "unknown laplace3d kernel 'k4.cu'"));
}

static void test_kernel_file_errors(void **state)
{
    (void)state;
    ks_test_user_compile_errors("laplace2d", "kfileerr",
                                "extern \"C\" __global__ void jacobi(const float *u, float *v, int nx, int ny)\n"
                                "{\n"
                                "    v[0] = w;\n"
                                "    v[1] = u[0]\n"
                                "}\n",
                                "3: error: identifier \"w\" is undefined", "5: error: expected a \";\"", 0, &r);
}

static void test_kernel_file_refuses(void **state)
{
    (void)state;
    char dir[256], path[512];
    ks_test_tmpdir(dir, sizeof dir, "kfilebad");
    /* --edit: the page is the editor, and it edits a file */
    snprintf(path, sizeof path, "%s/e.cu", dir);
    run_expect((const char *const[]){NULL, "new-kernel", "laplace3d", "-o", path, NULL}, 0);
    run_expect((const char *const[]){NULL, "laplace3d", "--kernel-file", path, "--edit", NULL}, 2);
    assert_non_null(strstr(r.err, "--edit goes with --serve"));
    run_expect((const char *const[]){NULL, "laplace3d", "--serve", "0", "--edit", NULL}, 2);
    assert_non_null(strstr(r.err, "--edit needs a --kernel-file"));
    run_expect((const char *const[]){NULL, "bench", "laplace3d", "--kernel-file", path, "--edit", NULL}, 2);
    /* the same for every scene that takes a kernel file (spheres too, since its contract) */
    const char *const others[] = {"matmul", "histogram", "reduce", "spheres"};
    for (int k = 0; k < 4; ++k) {
        run_expect((const char *const[]){NULL, others[k], "--kernel-file", path, "--edit", NULL}, 2);
        assert_non_null(strstr(r.err, "--edit goes with --serve"));
        run_expect((const char *const[]){NULL, others[k], "--serve", "0", "--edit", NULL}, 2);
        assert_non_null(strstr(r.err, "--edit needs a --kernel-file"));
        assert_non_null(strstr(r.err, others[k]));
    }
    snprintf(path, sizeof path, "%s/missing.cu", dir);
    run_expect((const char *const[]){NULL, "laplace3d", "--backend", "cpu", "--kernel-file", path, NULL}, 2);
    assert_non_null(strstr(r.err, "No such file"));
    run_expect((const char *const[]){NULL, "laplace3d", "--backend", "cpu", "--kernel-file", dir, NULL}, 2);
    assert_non_null(strstr(r.err, "is not a regular file"));
    snprintf(path, sizeof path, "%s/big.cu", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 65 * 1024; ++i) fputc(i % 64 == 63 ? '\n' : ' ', f);
    fclose(f);
    run_expect((const char *const[]){NULL, "laplace2d", "--backend", "cpu", "--kernel-file", path, NULL}, 2);
    assert_non_null(strstr(r.err, "is larger than 64 KiB"));
    run_expect((const char *const[]){NULL, "spheres", "--kernel-file", path, NULL}, 2); /* not its flag */
    run_expect((const char *const[]){NULL, "bench", "laplace3d", "--kernel-file", path, NULL}, 2);
    assert_non_null(strstr(r.err, "is larger than 64 KiB"));
    assert_string_equal(r.out, ""); /* refused before the device is probed or a results folder named */
    run_expect((const char *const[]){NULL, "laplace3d", "--kernel-file", path, "--headless", "--frames", "1", NULL}, 2);
    assert_non_null(strstr(r.err, "is larger than 64 KiB"));
    assert_string_equal(r.out, "");
}

/* The app's own checker process (`kernelscope __kernel-check`) serves a
 * request through the registry: on a GPU the starter passes, without one the
 * check says why it could not run it; either way an answer, and an unknown
 * scene is refused by the child, which goes on serving. */
static void test_checker_process(void **state)
{
    (void)state;
    ks_nvrtc_result code;
    memset(&code, 0, sizeof code);
    if (!ks_nvrtc_built()) skip();
    assert_int_equal(ks_nvrtc_compile(&(ks_nvrtc_desc){.source = KS_LAPLACE2D_STARTER, .name = "c.cu"}, &code), KS_OK);
    ks_kchecker *c = NULL;
    assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.exe = ks_test_binary(), .timeout_s = 60}, &c), KS_OK);
    ks_kcheck_request req;
    memset(&req, 0, sizeof req);
    snprintf(req.scene, sizeof req.scene, "laplace2d");
    snprintf(req.file, sizeof req.file, "c.cu");
    req.grid[0] = 67, req.grid[1] = 45, req.grid[2] = 1;
    req.block[0] = 32, req.block[1] = 8, req.block[2] = 1;
    req.code = code.code;
    req.code_size = code.code_size;
    ks_kcheck_result res;
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    fprintf(stderr, "checker: %s\n", res.message);
    if (res.passed) assert_non_null(strstr(res.message, "matches the CPU gold (3 iterations, max error 0)"));
    else assert_true(strstr(res.message, "CUDA") || strstr(res.message, "device"));
    snprintf(req.scene, sizeof req.scene, "nosuch"); /* no such scene (every scene checks kernels now) */
    assert_int_equal(ks_kchecker_run(c, &req, &res), KS_OK);
    assert_false(res.passed);
    assert_string_equal(res.message, "no scene 'nosuch' checks kernels");
    ks_kchecker_destroy(c);
    ks_nvrtc_result_free(&code);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_kernel_writes),
        cmocka_unit_test(test_new_kernel_refuses),
        cmocka_unit_test(test_new_kernel_planted_symlink),
        cmocka_unit_test(test_kernel_file_compiles),
        cmocka_unit_test(test_kernel_file_errors),
        cmocka_unit_test(test_kernel_file_refuses),
        cmocka_unit_test(test_checker_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
