/* Command-line parsing: defaults, every accepted form, every bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "app/options.h"
#include "app/scenes.h"
#include "app/bench/bench_live_options.h"
#include "app/scenes/histogram/options.h"
#include "app/scenes/laplace/options.h"
#include "app/scenes/matmul/options.h"
#include "app/scenes/spheres/options.h"

#define PARSE(o, ...)                                                                              \
    ({                                                                                             \
        char *argv_[] = {"kernelscope", __VA_ARGS__, NULL};                                       \
        ks_options_parse((int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_, (o));                  \
    })

static void test_defaults(void **state)
{
    (void)state;
    ks_options o;
    char *argv[] = {"kernelscope", NULL};
    assert_int_equal(ks_options_parse(1, argv, &o), KS_OK);
    assert_int_equal(o.mode, KS_MODE_LIVE);
    assert_string_equal(o.scene->name, "laplace3d");
    assert_int_equal(ks_laplace_opts_get(&o)->bc, KS_BC_HOT_TOP);
    assert_int_equal(o.colormap, KS_CMAP_VIRIDIS);
    assert_int_equal(o.format, KS_FMT_PNG);
    assert_string_equal(o.out_dir, ".");
    assert_int_equal(o.width, 1280);
    assert_int_equal(o.height, 800);
    assert_int_equal(o.frames, 0);
    assert_int_equal(o.range_set, 0);
    ks_options_backend_defaults(&o, 1);
    assert_int_equal(ks_laplace_opts_get(&o)->grid_count, 1);
    assert_int_equal(ks_laplace_opts_get(&o)->grids[0][0], 256);
    assert_int_equal(ks_laplace_opts_get(&o)->grids[0][2], 256);
    assert_int_equal(ks_laplace_opts_get(&o)->iters, 20);
    assert_int_equal(ks_laplace_opts_get(&o)->iters_auto, 1);
    assert_int_equal(ks_laplace_opts_get(&o)->fps_target, 60); /* --iters auto aims at 60 fps */
    ks_options cpu;
    assert_int_equal(ks_options_parse(1, argv, &cpu), KS_OK);
    ks_options_backend_defaults(&cpu, 0);
    /* CPU: a grid the heat crosses in the first second (issue 23 item 6) */
    assert_int_equal(ks_laplace_opts_get(&cpu)->grids[0][0], 48);
    assert_int_equal(ks_laplace_opts_get(&cpu)->iters, 64);
    assert_int_equal(ks_laplace_opts_get(&cpu)->iters_auto, 0);
    char *argv2[] = {"kernelscope", "laplace2d", NULL};
    assert_int_equal(ks_options_parse(2, argv2, &cpu), KS_OK);
    ks_options_backend_defaults(&cpu, 0);
    assert_int_equal(ks_laplace_opts_get(&cpu)->grids[0][0], 128);
    assert_int_equal(ks_laplace_opts_get(&cpu)->grids[0][1], 128);
    assert_int_equal(ks_laplace_opts_get(&cpu)->iters, 256);
}

/* --fps-target: the frame rate --iters auto aims at; 0 asks for the fastest sizing */
static void test_fps_target(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "--fps-target", "30"), KS_OK);
    ks_options_backend_defaults(&o, 1);
    assert_int_equal(ks_laplace_opts_get(&o)->fps_target, 30);
    assert_int_equal(ks_laplace_opts_get(&o)->iters_auto, 1);
    assert_int_equal(PARSE(&o, "laplace2d", "--iters", "auto", "--fps-target", "0"), KS_OK);
    ks_options_backend_defaults(&o, 1);
    assert_int_equal(ks_laplace_opts_get(&o)->fps_target, 0);
    assert_int_equal(ks_laplace_opts_get(&o)->iters_auto, 1);
}

static void test_headless_defaults_frames(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "--headless"), KS_OK);
    assert_int_equal(o.headless, 1);
    assert_int_equal(o.frames, 60);
    assert_int_equal(PARSE(&o, "--headless", "--frames", "7"), KS_OK);
    assert_int_equal(o.frames, 7);
}

static void test_full_laplace3d(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "laplace3d", "--grid", "37x53x29", "--bc", "sine", "--kernel",
                           "kmarch", "--block", "32x8", "--iters", "5", "--backend", "cpu",
                           "--headless", "--frames", "3", "--out", "/tmp", "--save-every", "2",
                           "--format", "ppm", "--size", "640x480", "--colormap", "turbo",
                           "--range=-1:2.5", "--no-overlay", "--dump-field", "f.npy"),
                     KS_OK);
    ks_grid g = ks_laplace_grid(&o, 0);
    assert_int_equal(g.dims, 3);
    assert_int_equal(g.nx, 37);
    assert_int_equal(g.ny, 53);
    assert_int_equal(g.nz, 29);
    assert_int_equal(ks_laplace_opts_get(&o)->bc, KS_BC_SINE);
    assert_string_equal(o.kernels[0], "kmarch");
    assert_int_equal(o.blocks[0][0], 32);
    assert_int_equal(o.blocks[0][1], 8);
    assert_int_equal(o.blocks[0][2], 1);
    assert_int_equal(ks_laplace_opts_get(&o)->iters, 5);
    assert_int_equal(o.backend, KS_BACKEND_CPU);
    assert_int_equal(o.frames, 3);
    assert_int_equal(o.save_every, 2);
    assert_int_equal(o.format, KS_FMT_PPM);
    assert_int_equal(o.width, 640);
    assert_int_equal(o.height, 480);
    assert_int_equal(o.colormap, KS_CMAP_TURBO);
    assert_true(o.range_set);
    assert_true(o.range_lo == -1.0f && o.range_hi == 2.5f);
    assert_true(o.no_overlay);
    assert_string_equal(o.dump_field, "f.npy");
    assert_int_equal(ks_laplace_opts_get(&o)->residual_every, 0); /* automatic */
    assert_int_equal(ks_laplace_opts_get(&o)->no_graph, 0);
    assert_int_equal(PARSE(&o, "laplace2d", "--residual-every", "8", "--no-graph"), KS_OK);
    assert_int_equal(ks_laplace_opts_get(&o)->residual_every, 8);
    assert_int_equal(ks_laplace_opts_get(&o)->no_graph, 1);
}

static void test_grid_forms(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "laplace2d", "--grid", "300"), KS_OK);
    ks_grid g = ks_laplace_grid(&o, 0);
    assert_int_equal(g.nx, 300);
    assert_int_equal(g.ny, 300);
    assert_int_equal(g.nz, 1);
    assert_int_equal(PARSE(&o, "laplace2d", "--grid=97x61"), KS_OK);
    g = ks_laplace_grid(&o, 0);
    assert_int_equal(g.nx, 97);
    assert_int_equal(g.ny, 61);
    assert_int_equal(PARSE(&o, "--grid", "100"), KS_OK);
    g = ks_laplace_grid(&o, 0);
    assert_int_equal(g.nz, 100);
}

static void test_bench_lists(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "bench", "laplace3d", "--grid", "256,512", "--grid", "64x64x32",
                           "--kernel", "regq,kmarch", "--block", "32x8,64x4", "--backend", "cpu"),
                     KS_OK);
    assert_int_equal(o.mode, KS_MODE_BENCH);
    assert_int_equal(ks_laplace_opts_get(&o)->grid_count, 3);
    assert_int_equal(ks_laplace_opts_get(&o)->grids[1][0], 512);
    assert_int_equal(ks_laplace_opts_get(&o)->grids[2][2], 32);
    assert_int_equal(o.kernel_count, 2);
    assert_string_equal(o.kernels[1], "kmarch");
    assert_int_equal(o.block_count, 2);
    assert_int_equal(o.blocks[1][0], 64);
    assert_int_equal(PARSE(&o, "bench", "spheres", "--spheres", "16,32,64"), KS_OK);
    assert_int_equal(KS_SPHERES_OPTS(&o)->count_n, 3);
    assert_int_equal(o.width, 2048);
}

static void test_spheres_options(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "spheres", "--spheres", "77", "--seed", "42", "--mem", "constant",
                           "--size", "333x199"),
                     KS_OK);
    assert_string_equal(o.scene->name, "spheres");
    assert_int_equal(KS_SPHERES_OPTS(&o)->count, 77);
    assert_true(o.seed == 42);
    assert_string_equal(KS_SPHERES_OPTS(&o)->mem, "constant");
    assert_int_equal(o.width, 333);
    assert_int_equal(PARSE(&o, "spheres"), KS_OK);
    assert_int_equal(KS_SPHERES_OPTS(&o)->count, 256);
    assert_int_equal(o.width, 1024);
    assert_true(o.seed == 1);
}

/* Every bad input: KS_ERR_INVALID and a message that names the problem. */
static void expect_bad(const char *needle, int argc, char **argv)
{
    ks_options o;
    ks_status st = ks_options_parse(argc, argv, &o);
    if (st != KS_ERR_INVALID) fail_msg("accepted: %s %s", argv[1], argc > 2 ? argv[2] : "");
    if (!strstr(ks_error_message(), needle))
        fail_msg("message '%s' lacks '%s'", ks_error_message(), needle);
    assert_null(strchr(ks_error_message(), '\n'));
}

#define BAD(needle, ...)                                                                           \
    do {                                                                                           \
        char *argv_[] = {"kernelscope", __VA_ARGS__, NULL};                                       \
        expect_bad(needle, (int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_);                     \
    } while (0)

static void test_bad_inputs(void **state)
{
    (void)state;
    BAD("unknown option", "--frobnicate");
    /* issue 21, defect 8: one spelling for each value, each flag once */
    BAD("--frames", "laplace2d", "--frames", "+5");
    BAD("--range", "laplace2d", "--range", "0:0x10");
    BAD("--range", "laplace2d", "--range", "+0:1");
    BAD("unknown image format", "laplace2d", "--format", "PNG");
    BAD("given twice", "laplace2d", "--frames", "5", "--frames", "6");
    BAD("not a program", "bench", "serve", "--browser", "/tmp");
    BAD("unknown scene", "laplace4d");
    BAD("more than one scene", "laplace3d", "laplace2d");
    BAD("needs a value", "--grid");
    BAD("not a grid size", "--grid", "0");
    BAD("not a grid size", "--grid", "-5");
    BAD("not a grid size", "--grid", "2");
    BAD("not a grid size", "--grid", "abc");
    BAD("not a grid size", "--grid", "64x");
    BAD("not a grid size", "--grid", "64xx64x64");
    BAD("not a grid size", "--grid", "99999999");
    BAD("not a grid size", "--grid", "64x64x64x64");
    BAD("far too large", "--grid", "65536x65536x65536");
    BAD("needs N or NXxNY", "laplace2d", "--grid", "8x8x8");
    BAD("needs N or NXxNYxNZ", "laplace3d", "--grid", "8x8");
    BAD("unknown boundary", "--bc", "cold");
    BAD("unknown laplace3d kernel", "--kernel", "block2d");
    BAD("unknown laplace2d kernel", "laplace2d", "--kernel", "nope");
    BAD("not a block size", "--block", "0x8");
    BAD("not a block size", "--block", "2048x1");
    BAD("not a block size", "--block", "32");
    BAD("not a count", "--iters", "0");
    BAD("not a count", "--iters", "-3");
    BAD("not a count", "--iters", "10abc");
    BAD("not a count of 0..240", "--fps-target", "241");
    BAD("not a count of 0..240", "--fps-target", "-1");
    BAD("not a count of 0..240", "--fps-target", "auto");
    BAD("sizes --iters auto", "--fps-target", "30", "--iters", "8");
    BAD("not a count of 1..100000", "--residual-every", "0");
    BAD("not a count of 1..100000", "--residual-every", "100001");
    BAD("takes no value", "--no-graph=1");
    BAD("unknown backend", "--backend", "opencl");
    BAD("not a positive count", "--frames", "0");
    BAD("not a positive count", "--save-every", "-1");
    BAD("unknown image format", "--format", "jpg");
    BAD("not WxH", "--size", "0x0");
    BAD("not WxH", "--size", "100000x100");
    BAD("not WxH", "--size", "640");
    BAD("unknown colormap", "--colormap", "jet");
    BAD("LO must be below HI", "--range", "1:0");
    BAD("not LO:HI", "--range", "nan:1");
    BAD("not LO:HI", "--range", "0-1");
    BAD("must name a .npy", "--dump-field", "out.txt");
    BAD("not a sphere count", "spheres", "--spheres", "0");
    BAD("not a non-negative integer", "spheres", "--seed", "-1");
    BAD("--mem does not apply to the laplace3d view", "laplace3d", "--mem", "global");
    /* malformed forms refused like the others */
    BAD("not a non-negative integer", "spheres", "--seed", " 5");
    BAD("not a non-negative integer", "spheres", "--seed", "+5");
    BAD("takes no value", "--help=1");
    BAD("takes no value", "--version=1");
    BAD("--window does not apply to bench laplace3d", "bench", "laplace3d", "--window");
    BAD("--window does not apply to bench spheres", "bench", "spheres", "--window");
    BAD("--kernel does not apply to bench spheres", "bench", "spheres", "--kernel", "nope");
    BAD("--dump-field does not apply to the spheres view", "spheres", "--dump-field", "f.npy");
    BAD("spheres blocks are 2D", "spheres", "--block", "32x32x32");
    BAD("spheres blocks are 2D", "bench", "spheres", "--block", "8x8x2");
    BAD("exclude each other", "spheres", "--scene", "a.txt", "--spheres", "16");
    BAD("not a sphere count (1..65536)", "spheres", "--spheres", "65537");
    /* quoted input is escaped: no raw control bytes or invalid UTF-8 in a message */
    BAD("'\\x1b[31mRED\\r'", "--frames", "\x1b[31mRED\r");
    BAD("'\\xff\\xfe'", "--backend", "\xff\xfe");
    BAD("unknown option '--x\\x07'", "--x\x07");
    BAD("'caf\xc3\xa9'", "--colormap", "caf\xc3\xa9"); /* valid UTF-8 stays as is */
    BAD("does not apply", "spheres", "--grid", "64");
    BAD("one grid for the live view", "--grid", "64,128");
    BAD("bench needs a scene", "bench");
    /* a mistyped scene: the views are offered, not the bench-only rows (live, serve) */
    BAD("(scenes: laplace3d, laplace2d, spheres, matmul, histogram", "lapalce3d");
    {
        ks_options o;
        assert_int_equal(PARSE(&o, "lapalce3d"), KS_ERR_INVALID);
        assert_null(strstr(ks_error_message(), "live"));
        assert_null(strstr(ks_error_message(), "serve"));
    }
    BAD("(benches: laplace3d, laplace2d, spheres, matmul, histogram", "bench", "lapalce3d");
    BAD("exclude each other", "--headless", "--window");
    BAD("takes no value", "--headless=yes");
    BAD("empty item", "bench", "laplace3d", "--grid", "64,,128");
}

/* Every flag in every (mode, scene): accepted exactly where it means something.
 * The expected table is written out here on its own, apart from options.c's. */
static void test_flag_applicability(void **state)
{
    (void)state;
    /* columns: live laplace3d, live laplace2d, live spheres, bench laplace3d, bench laplace2d, bench spheres */
    static const struct {
        const char *flag, *value, *where;
    } rows[] = {
        {"--headless", NULL, "111000"},     {"--window", NULL, "111000"},
        {"--no-overlay", NULL, "111000"},   {"--frames", "3", "111000"},
        {"--save-every", "2", "111000"},    {"--format", "ppm", "111000"},
        {"--size", "64x64", "111001"},      {"--backend", "cpu", "111111"},
        {"--out", "/tmp", "111111"},        {"--block", "8x8", "111111"},
        {"--grid", "64", "110110"},         {"--bc", "sine", "110000"},
        {"--iters", "3", "110000"},         {"--colormap", "gray", "110000"},
        {"--fps-target", "30", "110000"},
        {"--range", "0:1", "110000"},       {"--dump-field", "f.npy", "110000"},
        {"--spheres", "16", "001001"},      {"--seed", "5", "001001"},
        {"--scene", "s.txt", "001001"},     {"--mem", "global", "001001"},
        {"--reps", "3", "000111"},         {"--interop", "copy", "111000"},
        {"--cache", "cold", "000111"},      {"--cache", "warm", "000111"},
        {"--residual-every", "4", "110000"}, {"--no-graph", NULL, "110000"},
    };
    static const char *const scenes[3] = {"laplace3d", "laplace2d", "spheres"};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
        for (int col = 0; col < 6; ++col) {
            char *argv[6];
            int argc = 0;
            argv[argc++] = "kernelscope";
            if (col >= 3) argv[argc++] = "bench";
            argv[argc++] = (char *)scenes[col % 3];
            argv[argc++] = (char *)rows[r].flag;
            if (rows[r].value) argv[argc++] = (char *)rows[r].value;
            argv[argc] = NULL;
            ks_options o;
            const ks_status st = ks_options_parse(argc, argv, &o);
            const int want = rows[r].where[col] == '1';
            if (want && st != KS_OK)
                fail_msg("%s %s %s refused: %s", col >= 3 ? "bench" : "", scenes[col % 3],
                         rows[r].flag, ks_error_message());
            if (!want && (st != KS_ERR_INVALID || !strstr(ks_error_message(), "does not apply")))
                fail_msg("%s %s %s: status %d, '%s'", col >= 3 ? "bench" : "", scenes[col % 3],
                         rows[r].flag, (int)st, ks_error_message());
        }
}

/* --interop auto|pbo|copy: default auto, every name, every scene's live view, bad names refused. */
static void test_interop(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "laplace3d"), KS_OK);
    assert_int_equal(o.interop, KS_INTEROP_AUTO);
    const char *names[] = {"auto", "pbo", "copy"};
    const ks_interop_mode modes[] = {KS_INTEROP_AUTO, KS_INTEROP_PBO, KS_INTEROP_COPY};
    const char *scenes[] = {"laplace3d", "laplace2d", "spheres", "matmul", "histogram"};
    for (int s = 0; s < 5; ++s)
        for (int m = 0; m < 3; ++m) {
            if (PARSE(&o, (char *)scenes[s], "--interop", (char *)names[m]) != KS_OK)
                fail_msg("%s --interop %s: %s", scenes[s], names[m], ks_error_message());
            assert_int_equal(o.interop, modes[m]);
            assert_string_equal(ks_interop_mode_name(modes[m]), names[m]);
        }
    assert_int_equal(PARSE(&o, "--interop=copy"), KS_OK);
    assert_int_equal(o.interop, KS_INTEROP_COPY);
    const char *bad[] = {"", "PBO", "cop", "copy ", "none"};
    for (int b = 0; b < 5; ++b) {
        assert_int_equal(PARSE(&o, "--interop", (char *)bad[b]), KS_ERR_INVALID);
        assert_non_null(strstr(ks_error_message(), "--interop: unknown display path"));
        assert_non_null(strstr(ks_error_message(), "(auto, pbo, copy)"));
    }
    assert_int_equal(PARSE(&o, "--interop"), KS_ERR_INVALID);
    assert_int_equal(PARSE(&o, "bench", "laplace2d", "--interop", "copy"), KS_ERR_INVALID);
    assert_non_null(strstr(ks_error_message(), "does not apply"));
    ks_interop_mode m = KS_INTEROP_PBO;
    assert_int_equal(ks_interop_mode_parse(NULL, &m), -1);
    assert_int_equal(m, KS_INTEROP_PBO);
}

static void test_help_and_version(void **state)
{
    (void)state;
    ks_options o;
    assert_int_equal(PARSE(&o, "--help"), KS_OK);
    assert_true(o.help);
    assert_int_equal(PARSE(&o, "--version"), KS_OK);
    assert_true(o.version);
}

/* Flags marked GPU-only in the flag table: one notice line each on the cpu backend. */
static void test_cpu_notices(void **state)
{
    (void)state;
    ks_options o;
    char line[256];
    int k = 0;
    assert_int_equal(PARSE(&o, "laplace3d", "--kernel", "kmarch", "--block", "32x8", "--grid", "32"), KS_OK);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_string_equal(line, "--block has no effect on the cpu backend (the CPU gold routine runs)");
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_string_equal(line, "--kernel has no effect on the cpu backend (the CPU gold routine runs)");
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0); /* stays done */

    k = 0;
    assert_int_equal(PARSE(&o, "bench", "matmul", "--tile", "16"), KS_OK);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_string_equal(line, "--tile has no effect on the cpu backend (the CPU gold routine runs)");
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0);

    /* Constant memory: a count a GPU could not hold gets its own line; one that fits does not. */
    k = 0;
    assert_int_equal(PARSE(&o, "bench", "spheres", "--mem", "constant", "--spheres", "100,3000"), KS_OK);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_string_equal(line, "--mem has no effect on the cpu backend (the CPU gold routine runs)");
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_non_null(strstr(line, "--spheres 3000 with --mem constant"));
    assert_non_null(strstr(line, "at most 2048 spheres"));
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0);
    k = 0;
    assert_int_equal(PARSE(&o, "spheres", "--mem", "constant", "--spheres", "2048"), KS_OK);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0);

    /* --interop: its own reason */
    k = 0;
    assert_int_equal(PARSE(&o, "laplace2d", "--interop", "pbo"), KS_OK);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_string_equal(line, "--interop has no effect on the cpu backend (its pictures are uploaded from host memory)");
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0);

    /* --cache: the CPU has no L2 to flush */
    k = 0;
    assert_int_equal(PARSE(&o, "bench", "reduce", "--cache", "cold"), KS_OK);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 1);
    assert_string_equal(line, "--cache has no effect on the cpu backend (no L2 flush: its rows are timed back to back, "
                              "warm)");
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0);

    /* Nothing GPU-only given: nothing to say. */
    k = 0;
    assert_int_equal(PARSE(&o, "spheres", "--spheres", "5000"), KS_OK);
    assert_int_equal(ks_options_cpu_notice(&o, &k, line, sizeof line), 0);
}

/* bench --cache cold|warm: the policy every GPU row is timed under; default auto
 * (cold under 4x the L2); anything else refused with the flag and the value. */
static void test_cache_option(void **state)
{
    (void)state;
    static const char *const scenes[] = {"laplace3d", "laplace2d", "spheres", "matmul", "histogram", "reduce"};
    ks_options o;
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        assert_int_equal(PARSE(&o, "bench", (char *)scenes[i]), KS_OK);
        assert_int_equal(o.cache, KS_CACHE_AUTO);
        if (PARSE(&o, "bench", (char *)scenes[i], "--cache", "cold") != KS_OK)
            fail_msg("bench %s --cache cold: %s", scenes[i], ks_error_message());
        assert_int_equal(o.cache, KS_CACHE_COLD);
        assert_int_equal(PARSE(&o, "bench", (char *)scenes[i], "--cache=warm"), KS_OK);
        assert_int_equal(o.cache, KS_CACHE_WARM);
    }
    /* what the bench's timing loop gets: the policy, and --reps only when given */
    assert_int_equal(PARSE(&o, "bench", "matmul", "--cache", "warm"), KS_OK);
    assert_int_equal(o.cache, KS_CACHE_WARM);
    assert_int_equal(ks_options_given(&o, "--reps"), 0);
    assert_int_equal(PARSE(&o, "bench", "matmul", "--reps", "7"), KS_OK);
    assert_int_equal(ks_options_given(&o, "--reps"), 1);
    BAD("--cache: 'hot' is not cold or warm", "bench", "matmul", "--cache", "hot");
    BAD("--cache: 'auto' is not cold or warm", "bench", "matmul", "--cache", "auto"); /* the default, not a choice */
    BAD("--cache: 'COLD' is not cold or warm", "bench", "matmul", "--cache", "COLD");
    BAD("--cache: '' is not cold or warm", "bench", "matmul", "--cache", "");
    BAD("--cache: 'cold ' is not cold or warm", "bench", "matmul", "--cache", "cold ");
    BAD("option --cache needs a value", "bench", "matmul", "--cache");
    BAD("--cache does not apply", "laplace3d", "--cache", "cold");
    BAD("given twice", "bench", "matmul", "--cache", "cold", "--cache", "warm");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),        cmocka_unit_test(test_headless_defaults_frames),
        cmocka_unit_test(test_fps_target),
        cmocka_unit_test(test_full_laplace3d),  cmocka_unit_test(test_grid_forms),
        cmocka_unit_test(test_bench_lists),     cmocka_unit_test(test_spheres_options),
        cmocka_unit_test(test_bad_inputs),      cmocka_unit_test(test_flag_applicability),      cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_cpu_notices),     cmocka_unit_test(test_interop),
        cmocka_unit_test(test_cache_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
