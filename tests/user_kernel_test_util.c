/* Helpers shared by the tests of users' kernels (user_kernel_test_util.h). */
#include "tests/user_kernel_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/new_kernel.h"
#include "app/scenes.h"
#include "app/kernel/nvrtc_compile.h"

char *ks_test_user_compiles(const char *source, const char *name, const char *entry, int keep_ptx)
{
    ks_nvrtc_result c;
    const ks_status st = ks_nvrtc_compile(&(ks_nvrtc_desc){.source = source, .name = name}, &c);
    if (st != KS_OK) fprintf(stderr, "%s\n%s", ks_error_message(), c.lines ? c.lines : "");
    assert_int_equal(st, KS_OK);
    char want[128];
    snprintf(want, sizeof want, ".entry %s(", entry);
    assert_non_null(strstr(c.code, want)); /* extern "C": the name unmangled */
    assert_string_equal(c.lines, "");      /* not even a warning */
    char *ptx = NULL;
    if (keep_ptx) {
        ptx = malloc(strlen(c.code) + 1);
        assert_non_null(ptx);
        strcpy(ptx, c.code);
    }
    ks_nvrtc_result_free(&c);
    return ptx;
}

char *ks_test_user_starters_compile(const char *scene, const char *entry, const char *const *froms, const char *file,
                                    const char *from, const char *from_file)
{
    if (!ks_nvrtc_built()) skip();
    const ks_scene_def *d = ks_scene_def_find(scene);
    assert_non_null(d);
    char name[128], want[512];
    snprintf(name, sizeof name, "%s_kernel.cu", scene);
    (void)ks_test_user_compiles(d->kernel_starter, name, entry, 0);
    for (int i = 0; froms[i]; ++i) {
        snprintf(name, sizeof name, "%s.cu", froms[i]);
        (void)ks_test_user_compiles(ks_new_kernel_from(d, froms[i]), name, entry, 0);
    }
    /* the files new-kernel writes: the contract as comments, then the kernel */
    char *text = ks_new_kernel_text(d, NULL, file);
    assert_non_null(text);
    snprintf(want, sizeof want, "//   %.*s\n", (int)strcspn(d->kernel_contract, "\n"), d->kernel_contract);
    assert_non_null(strstr(text, want));
    (void)ks_test_user_compiles(text, file, entry, 0);
    free(text);
    text = ks_new_kernel_text(d, from, from_file);
    assert_non_null(text);
    snprintf(want, sizeof want, "new-kernel %s --from %s", scene, from);
    assert_non_null(strstr(text, want));
    (void)ks_test_user_compiles(text, from_file, entry, 0);
    return text;
}

const ks_scene_def *ks_test_user_row(const char *scene, const char *contract, const char *starter)
{
    const ks_scene_def *d = ks_scene_def_find(scene);
    assert_non_null(d);
    assert_string_equal(d->kernel_contract, contract); /* the text, not its address: string merging is not promised */
    assert_string_equal(d->kernel_starter, starter);
    assert_non_null(d->kernel_check);
    assert_non_null(d->kernel_file);
    const size_t n = strcspn(contract, "\n"); /* the signature the starter begins with */
    assert_int_equal(strncmp(contract, starter, n), 0);
    assert_null(strstr(contract, "*/")); /* it goes into comments */
    return d;
}

/* path's base name */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int ks_test_user_no_device(const char *scene, const char *path, const char *block, ks_run_result *r)
{
    const int nvrtc = ks_nvrtc_built();
    ks_test_run((const char *const[]){NULL, scene, "--backend", "cpu", "--kernel-file", path, NULL}, NULL, r);
    assert_int_equal(r->exit_code, 2);
    assert_int_equal(ks_test_count_lines(r->err), 1);
    char want[600];
    snprintf(want, sizeof want,
             "%s compiles (for sm_90, the default without a device); running it needs a CUDA device, not --backend cpu",
             base_name(path));
    assert_non_null(strstr(r->err, nvrtc ? want : "NVRTC is not in this"));
    ks_test_run((const char *const[]){NULL, "bench", scene, "--backend", "cpu", "--kernel-file", path,
                                      block ? "--block" : NULL, block, NULL},
                NULL, r);
    assert_int_equal(r->exit_code, 2);
    assert_int_equal(ks_test_count_lines(r->err), 1);
    assert_non_null(strstr(r->err, nvrtc ? "running it needs a CUDA device" : "NVRTC is not in this"));
    return nvrtc;
}

void ks_test_user_kernel_name(const char *scene, const char *path, ks_run_result *r)
{
    const char *file = base_name(path);
    ks_test_run((const char *const[]){NULL, scene, "--backend", "cpu", "--kernel-file", path, "--kernel", file, NULL},
                NULL, r);
    assert_non_null(strstr(r->err, "running it needs a CUDA device"));
    ks_test_run((const char *const[]){NULL, scene, "--kernel", file, NULL}, NULL, r);
    assert_int_equal(r->exit_code, 2);
    char want[600];
    snprintf(want, sizeof want, "unknown %s kernel '%s'", scene, file);
    assert_non_null(strstr(r->err, want));
}

void ks_test_user_file_names(const char *scene, const char *dir, const char *ours, const char *path, ks_run_result *r)
{
    char other[512], want[600];
    snprintf(other, sizeof other, "%s/%s", dir, ours);
    ks_test_run((const char *const[]){NULL, scene, "--kernel-file", other, NULL}, NULL, r);
    assert_int_equal(r->exit_code, 2);
    snprintf(want, sizeof want, "'%s' is the name of a built-in kernel", ours);
    assert_non_null(strstr(r->err, want));
    ks_test_run((const char *const[]){NULL, scene, "--kernel-file", path, "--kernel-file", path, NULL}, NULL, r);
    assert_int_equal(r->exit_code, 2);
    snprintf(want, sizeof want, "two files named '%s'", base_name(path));
    assert_non_null(strstr(r->err, want));
}

void ks_test_user_compile_errors(const char *scene, const char *tag, const char *source, const char *first,
                                 const char *second, int bench, ks_run_result *r)
{
    if (!ks_nvrtc_built()) skip();
    char dir[256], path[512], want[1400];
    ks_test_tmpdir(dir, sizeof dir, tag);
    snprintf(path, sizeof path, "%s/bad.cu", dir);
    ks_test_write_file(path, source);
    snprintf(want, sizeof want, "%s:%s\n%s:%s\n", path, first, path, second);
    ks_test_run((const char *const[]){NULL, scene, "--backend", "cpu", "--kernel-file", path, NULL}, NULL, r);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, want); /* one line per error, nothing else */
    if (!bench) return;
    ks_test_run((const char *const[]){NULL, "bench", scene, "--backend", "cpu", "--kernel-file", path, NULL}, NULL, r);
    assert_int_equal(r->exit_code, 2);
    assert_string_equal(r->err, want);
}

int ks_test_user_device(ks_device_info *dev)
{
    if (!ks_test_have_cuda() || !ks_nvrtc_built()) return 0;
    return ks_cuda_probe(dev) == KS_OK && dev->present;
}

ks_kchecker *ks_test_user_checker(void)
{
    ks_kchecker *c = NULL;
    assert_int_equal(ks_kchecker_create(&(ks_kchecker_desc){.exe = ks_test_binary(), .timeout_s = 60}, &c), KS_OK);
    return c;
}

void ks_test_user_check(ks_kchecker *c, const ks_device_info *dev, ks_kcheck_request *req, const char *source,
                        ks_kcheck_result *res)
{
    ks_nvrtc_result code;
    const ks_status st = ks_nvrtc_compile(
        &(ks_nvrtc_desc){.source = source, .name = "mine.cu", .cc_major = dev->cc_major, .cc_minor = dev->cc_minor,
                         .cubin = 1},
        &code);
    if (st != KS_OK) fprintf(stderr, "%s\n%s", ks_error_message(), code.lines ? code.lines : "");
    assert_int_equal(st, KS_OK);
    snprintf(req->file, sizeof req->file, "mine.cu");
    req->code = code.code;
    req->code_size = code.code_size;
    req->cubin = code.cubin;
    assert_int_equal(ks_kchecker_run(c, req, res), KS_OK);
    fprintf(stderr, "check: %s\n", res->message);
    req->code = NULL; /* freed below */
    ks_nvrtc_result_free(&code);
}

void ks_test_user_new_kernel(const char *scene, const char *from, const char *tag, const char *name, char dir[256],
                             char path[512])
{
    ks_test_tmpdir(dir, 256, tag);
    snprintf(path, 512, "%s/%s", dir, name);
    ks_run_result r;
    ks_test_run((const char *const[]){NULL, "new-kernel", scene, from ? "--from" : "-o", from ? from : path,
                                      from ? "-o" : NULL, path, NULL},
                NULL, &r);
    assert_int_equal(r.exit_code, 0);
}

char *ks_test_user_starter_file(const char *scene, const char *tag, const char *name, char dir[256], char path[512])
{
    ks_test_user_new_kernel(scene, NULL, tag, name, dir, path);
    char *text = ks_test_read_file(path);
    assert_non_null(text);
    char want[128];
    snprintf(want, sizeof want, "kernelscope %s --kernel-file", scene);
    assert_non_null(strstr(text, want));
    return text;
}

void ks_test_user_live(const char *const *argv, ks_run_result *r)
{
    ks_test_run(argv, NULL, r);
    if (r->exit_code != 0 && (strstr(r->err, "EGL") || strstr(r->err, "display"))) skip();
    if (r->exit_code != 0) fprintf(stderr, "%s", r->err);
    assert_int_equal(r->exit_code, 0);
    assert_non_null(strstr(r->err, "mine.cu: compiled in"));
}
