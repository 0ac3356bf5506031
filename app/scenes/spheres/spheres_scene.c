/* The spheres scene's registry row: its flags, checks, and its part in bench
 * live and bench serve. */
#include "app/scenes/spheres/spheres_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench/bench_live.h"
#include "app/bench/bench_serve.h"
#include "app/options_parse.h"
#include "app/scenes.h"
#include "app/scenes/spheres/bench_spheres.h"
#include "app/signals.h"
#include "kernels/spheres/spheres.h"
#include "kernels/spheres/spheres_bench.h"

static ks_status add_spheres(void *ctx, const char *name, const char *item)
{
    ks_spheres_opts *sp = ctx;
    long long v;
    if (parse_int(item, 1, KS_SPHERES_MAX, &v) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a sphere count (1..%d)", name, quoted(item), KS_SPHERES_MAX);
    if (sp->count_n == KS_MAX_LIST) return ks_fail(KS_ERR_INVALID, "%s: at most %d counts", name, KS_MAX_LIST);
    sp->counts[sp->count_n++] = (int)v;
    return KS_OK;
}
static ks_status set_spheres(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return for_each_item(own, name, v, add_spheres);
}
static ks_status set_scene(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty file name", name);
    ((ks_spheres_opts *)own)->file = v;
    return KS_OK;
}
static ks_status set_mem(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: empty variant name", name);
    ((ks_spheres_opts *)own)->mem = v;
    return KS_OK;
}
static void mems(char *buf, size_t len) { ks_spheres_mem_list(buf, len); }
static void count_help(char *buf, size_t len) { snprintf(buf, len, "%d", KS_SPHERES_MAX); }

static const ks_flag_row ks_spheres_flags[] = {
    {"--spheres", "N", "sphere count, 1..%s (bench: a list, e.g. 16,64,256)", KS_IN_LIVE | KS_IN_BENCH, set_spheres,
     NULL, count_help, 1},
    {"--seed", "S", "random placement seed (default 1)", 0, NULL},
    {"--scene", "FILE", "spheres from a file: 'x y z radius r g b' per line", KS_IN_LIVE | KS_IN_BENCH, set_scene},
    {"--mem", "NAME", "%s", KS_IN_LIVE | KS_IN_BENCH, set_mem, "the CPU gold routine runs", mems},
    {"--block", "BXxBY", "thread block (default 16x16)", 0, NULL},
};
const ks_option_group ks_spheres_options = {
    "Spheres scene", sizeof(ks_spheres_opts), ks_spheres_flags,
    (int)(sizeof ks_spheres_flags / sizeof ks_spheres_flags[0]), NULL,
};

static ks_status finish(ks_options *o)
{
    ks_spheres_opts *sp = ks_options_own(o, &ks_spheres_options);
    if (!o->size_set) { /* the picture: the bench's is larger */
        o->width = o->mode == KS_MODE_BENCH ? 2048 : 1024;
        o->height = o->mode == KS_MODE_BENCH ? 2048 : 768;
    }
    if (sp->count_n && o->mode == KS_MODE_LIVE) sp->count = sp->counts[0];
    if (sp->count_n > 1 && o->mode == KS_MODE_LIVE)
        return ks_fail(KS_ERR_INVALID, "--spheres: one count for the live view (lists are for bench)");
    if (!sp->count) sp->count = 256;
    if (sp->file && sp->count_n)
        return ks_fail(KS_ERR_INVALID, "--scene and --spheres exclude each other (the file fixes the spheres)");
    for (int b = 0; b < o->block_count; ++b)
        if (o->blocks[b][2] != 1)
            return ks_fail(KS_ERR_INVALID, "--block: %dx%dx%d: spheres blocks are 2D (BXxBY)", o->blocks[b][0],
                           o->blocks[b][1], o->blocks[b][2]);
    if (o->mode == KS_MODE_LIVE && o->block_count > 1) return ks_fail(KS_ERR_INVALID, "--block: one value for the live view");
    if (o->mode == KS_MODE_BENCH && o->block_count > 1)
        return ks_fail(KS_ERR_INVALID, "--block: bench spheres takes one block size");
    ks_spheres_mem m;
    if (sp->mem && ks_spheres_mem_parse(sp->mem, &m) != 0) { /* here, before any notice or folder */
        char list[128];
        ks_spheres_mem_list(list, sizeof list);
        return ks_fail(KS_ERR_INVALID, "%sspheres: unknown --mem '%s' (one of: %s)",
                       o->mode == KS_MODE_BENCH ? "bench " : "", quoted(sp->mem), list);
    }
    return KS_OK;
}

/* A count that constant memory could not hold on a GPU runs on the CPU backend only. */
static int cpu_notice(const ks_options *o, char *buf, size_t len)
{
    const ks_spheres_opts *sp = KS_SPHERES_OPTS(o);
    ks_spheres_mem m = KS_SPHERES_MEM_GLOBAL;
    int most = sp->count;
    for (int i = 0; i < sp->count_n; ++i)
        if (sp->counts[i] > most) most = sp->counts[i];
    if (sp->mem && ks_spheres_mem_parse(sp->mem, &m) == 0 && m == KS_SPHERES_MEM_CONSTANT && most > KS_SPHERES_CONST_MAX) {
        snprintf(buf, len,
                 "--spheres %d with --mem constant runs on the cpu backend only "
                 "(a GPU holds at most %d spheres in constant memory)",
                 most, (int)KS_SPHERES_CONST_MAX);
        return 1;
    }
    return 0;
}

static int has_kernel(const ks_scene_def *d, const char *name)
{
    (void)d;
    ks_spheres_mem m;
    return ks_spheres_mem_parse(name, &m) == 0;
}
static void kernel_list(const ks_scene_def *d, char *buf, size_t len)
{
    (void)d;
    ks_spheres_mem_list(buf, len);
}

/* The sphere counts of bench live and bench serve: as given, or 2048 (CPU 64). */
static int runner_count(const ks_spheres_opts *sp, int use_cuda, int i)
{
    return sp->count_n ? sp->counts[i] : use_cuda ? 2048 : 64;
}

/* bench live: each memory variant alone (as bench spheres times it), then live in each mode. */
static ks_status live_bench(const ks_scene_def *d, ks_live_bench *b)
{
    const ks_options *opt = ks_live_bench_options(b);
    const int use_cuda = ks_live_bench_use_cuda(b);
    const ks_spheres_opts *given = KS_SPHERES_OPTS(opt);
    int any = !use_cuda;
    for (int m = 1; m < KS_SPHERES_MEM_NUM; ++m) any |= ks_live_bench_wanted(b, ks_spheres_mem_name((ks_spheres_mem)m));
    if (!any) return KS_OK;
    ks_options run;
    ks_bench_live_run_options(opt, d, &run);
    ks_spheres_opts *sp = ks_options_own(&run, &ks_spheres_options);
    memset(sp, 0, sizeof *sp);
    KS_TRY(finish(&run)); /* the live picture size */
    ks_spheres_bench_result *res = malloc(sizeof *res);
    if (!res) return ks_fail(KS_ERR_OUT_OF_MEMORY, "bench live: out of host memory");
    ks_status st = KS_OK;
    const int ncounts = given->count_n ? given->count_n : 1;
    for (int c = 0; c < ncounts && st == KS_OK && !ks_signals_stop_requested(); ++c) {
        const int count = runner_count(given, use_cuda, c);
        ks_spheres_bench_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.use_cuda = use_cuda;
        bd.width = run.width;
        bd.height = run.height;
        bd.counts = &count;
        bd.count_n = 1;
        bd.reps = opt->reps;
        bd.seed = opt->seed;
        bd.stop = ks_signals_stop_requested;
        st = ks_spheres_bench_run(&bd, res);
        for (int col = 0; col < res->col_n && st == KS_OK && res->count_n == 1; ++col) {
            const ks_spheres_mem mem = (ks_spheres_mem)res->cols[col];
            const char *name = use_cuda ? ks_spheres_mem_name(mem) : "gold";
            if (use_cuda && !ks_live_bench_wanted(b, name)) continue;
            if (!res->cell[0][col].available) {
                printf("skipping spheres %s at %d spheres: the variant cannot hold them\n", name, count);
                continue;
            }
            ks_live_row proto;
            st = ks_live_bench_proto(b, d->name, name, &proto);
            if (st != KS_OK) break;
            snprintf(proto.grid, sizeof proto.grid, "%dx%d/%d", run.width, run.height, count);
            proto.points = (double)run.width * run.height;
            int block[3] = {0, 0, 1};
            ks_spheres_block_default(block);
            if (use_cuda) snprintf(proto.block, sizeof proto.block, "%dx%d", block[0], block[1]);
            else snprintf(proto.block, sizeof proto.block, "-");
            snprintf(proto.block_from, sizeof proto.block_from, "default");
            proto.bench_ms_per_iter = res->cell[0][col].ms;
            ks_options one = run;
            ks_spheres_opts *osp = ks_options_own(&one, &ks_spheres_options);
            osp->count = count;
            osp->mem = use_cuda ? name : NULL;
            st = ks_live_bench_run_modes(b, &one, &proto);
        }
    }
    free(res);
    return st;
}

/* bench serve: binned (the default case), or the memory variant asked for. */
static ks_status serve_case(const ks_scene_def *d, ks_serve_bench *b, const char *variant)
{
    const int use_cuda = ks_serve_bench_use_cuda(b);
    if (!variant) variant = use_cuda ? "binned" : "gold";
    const ks_options *opt = ks_serve_bench_options(b);
    ks_options run;
    ks_bench_live_run_options(opt, d, &run);
    ks_spheres_opts *sp = ks_options_own(&run, &ks_spheres_options);
    memset(sp, 0, sizeof *sp);
    KS_TRY(finish(&run));
    sp->count = runner_count(KS_SPHERES_OPTS(opt), use_cuda, 0);
    sp->mem = use_cuda ? variant : NULL;
    /* half the spheres, then back: a different picture each time */
    return ks_serve_bench_add_case(b, variant, "minus", "plus", &run);
}

static ks_status bench(const ks_bench_env *e) { return ks_bench_spheres(e->opt, e->device, e->use_cuda); }

extern const ks_scene_api ks_scene_spheres_api;

const ks_scene_def ks_scene_spheres = {
    .name = "spheres",
    .rank = 30,
    .sample_args = "--spheres 300 --mem binned",
    .summary = "sphere ray caster: global, read-only, constant, shared, binned memory",
    .options = &ks_spheres_options,
    .takes_live = "--block --seed",
    .takes_bench = "--block --seed --size",
    .size_is_picture = 1,
    .finish_options = finish,
    .live = &ks_scene_spheres_api,
    .bench = bench,
    .cpu_notice = cpu_notice,
    .solver_stage = "render",
    .live_bench = live_bench,
    .serve_case = serve_case,
    .has_kernel = has_kernel,
    .kernel_list = kernel_list,
};
