/* The spheres scene's flags, their storage and checks (options.h). */
#include "app/scenes/spheres/options.h"

#include <stdio.h>
#include <string.h>

#include "app/options_parse.h"
#include "app/scenes.h"
#include "kernels/spheres/spheres.h"

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
static ks_status set_kernel_file(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    return ks_kernel_files_add(&((ks_spheres_opts *)own)->kernel_files, name, v);
}
/* 1 when name is one of our memory variants (a --kernel-file may not take it). */
static int is_ours(const char *name)
{
    ks_spheres_mem m;
    return ks_spheres_mem_parse(name, &m) == 0;
}
static void mems(char *buf, size_t len) { ks_spheres_mem_list(buf, len); }
static void count_help(char *buf, size_t len) { snprintf(buf, len, "%d", KS_SPHERES_MAX); }

static const ks_flag_row ks_spheres_flags[] = {
    {"--spheres", "N", "sphere count, 1..%s (bench: a list, e.g. 16,64,256)", KS_IN_LIVE | KS_IN_BENCH, set_spheres,
     NULL, count_help, 1},
    {"--seed", "S", "random placement seed (default 1)", 0, NULL},
    {"--scene", "FILE", "spheres from a file: 'x y z radius r g b' per line", KS_IN_LIVE | KS_IN_BENCH, set_scene},
    {"--mem", "NAME", "%s", KS_IN_LIVE | KS_IN_BENCH, set_mem, "the CPU gold routine runs", mems},
    {"--kernel-file", "FILE",
     "your own ray-casting kernel, one more variant named after the file\n(the contract below; kernelscope "
     "new-kernel spheres writes a\nstarter); compiled with NVRTC, checked in a child process,\nreloaded on every "
     "save; M reaches it; repeatable",
     KS_IN_LIVE | KS_IN_BENCH, set_kernel_file, NULL, NULL, 1},
    {"--block", "BXxBY", "thread block (default 16x16)", 0, NULL},
};
const ks_option_group ks_spheres_options = {
    "Spheres scene", sizeof(ks_spheres_opts), ks_spheres_flags,
    (int)(sizeof ks_spheres_flags / sizeof ks_spheres_flags[0]), NULL,
};

ks_status ks_spheres_finish_options(ks_options *o)
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
    KS_TRY(ks_kernel_files_check(&sp->kernel_files, 64, is_ours));
    ks_spheres_mem m;
    if (sp->mem && ks_spheres_mem_parse(sp->mem, &m) != 0) { /* here, before any notice or folder */
        char list[128];
        ks_spheres_mem_list(list, sizeof list);
        return ks_fail(KS_ERR_INVALID, "%sspheres: unknown --mem '%s' (one of: %s)",
                       o->mode == KS_MODE_BENCH ? "bench " : "", quoted(sp->mem), list);
    }
    return KS_OK;
}

const char *ks_spheres_kernel_file(const ks_options *o, int i)
{
    return ks_kernel_files_at(&KS_SPHERES_OPTS(o)->kernel_files, i);
}

/* A count that constant memory could not hold on a GPU runs on the CPU backend only. */
int ks_spheres_cpu_notice(const ks_options *o, char *buf, size_t len)
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
