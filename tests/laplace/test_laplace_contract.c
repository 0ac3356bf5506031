/* The Laplace scenes' kernel contract (kernels/laplace/laplace_contract.h):
 * each row with a contract has a starter that keeps its signature and compiles
 * with NVRTC (no GPU needed), and --help shows the contract. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/scenes.h"
#include "app/kernel/nvrtc_compile.h"
#include "tests/test_util.h"

static void test_rows(void **state)
{
    (void)state;
    const char *with[] = {"laplace3d", "laplace2d"};
    for (size_t s = 0; s < sizeof with / sizeof with[0]; ++s) {
        const ks_scene_def *d = ks_scene_def_find(with[s]);
        assert_non_null(d);
        assert_non_null(d->kernel_contract);
        assert_non_null(d->kernel_starter);
        /* the contract's first line is the signature the starter begins with */
        const size_t n = strcspn(d->kernel_contract, "\n");
        assert_int_equal(strncmp(d->kernel_contract, d->kernel_starter, n), 0);
        assert_null(strstr(d->kernel_contract, "*/")); /* it goes into comments */
        assert_int_equal(d->kernel_contract[strlen(d->kernel_contract) - 1], '\n');
    }
}

static void test_starters_compile(void **state)
{
    (void)state;
    if (!ks_nvrtc_built()) skip();
    int compiled = 0;
    for (int i = 0; i < ks_scene_def_count(); ++i) {
        const ks_scene_def *d = ks_scene_def_at(i);
        if (!d->kernel_starter) continue;
        char name[64];
        snprintf(name, sizeof name, "%s_kernel.cu", d->name);
        ks_nvrtc_result r;
        const ks_status st = ks_nvrtc_compile(&(ks_nvrtc_desc){.source = d->kernel_starter, .name = name}, &r);
        if (st != KS_OK) fprintf(stderr, "%s\n%s", ks_error_message(), r.lines ? r.lines : "");
        assert_int_equal(st, KS_OK);
        /* extern "C": the name the contract's first line gives, unmangled */
        const char *fn = strstr(d->kernel_contract, " void ") + 6;
        char entry[64];
        snprintf(entry, sizeof entry, ".entry %.*s(", (int)strcspn(fn, "("), fn);
        assert_non_null(strstr(r.code, entry));
        assert_string_equal(r.lines, "");                /* not even a warning */
        ks_nvrtc_result_free(&r);
        ++compiled;
    }
    assert_true(compiled >= 3); /* laplace3d, laplace2d, matmul */
}

static void test_help_shows_contract(void **state)
{
    (void)state;
    static ks_run_result r;
    const char *argv[] = {NULL, "--help", NULL};
    assert_int_equal(ks_test_run(argv, NULL, &r), 0);
    const ks_scene_def *d = ks_scene_def_find("laplace3d");
    const size_t n = strcspn(d->kernel_contract, "\n");
    char head[256];
    snprintf(head, sizeof head, "  %.*s\n", (int)n, d->kernel_contract);
    assert_non_null(strstr(r.out, "laplace3d kernel contract"));
    assert_non_null(strstr(r.out, "laplace2d kernel contract"));
    assert_non_null(strstr(r.out, head));
    assert_non_null(strstr(r.out, "the mean of its 6 neighbours"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_starters_compile),
        cmocka_unit_test(test_help_shows_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
