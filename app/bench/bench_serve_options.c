/* `bench serve`'s own flags (--browser, --replot), stored in ks_options through
 * its option group (bench_serve_options.h). */
#include "app/bench/bench_serve_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include "app/options_parse.h"
#include "app/scenes.h"

typedef struct ks_serve_bench_opts {
    const char *browser; /* --browser PATH: a Chromium to open the page with, or NULL */
    const char *replot;  /* --replot CSV: an earlier run's rows drawn again, or NULL */
} ks_serve_bench_opts;

static ks_status set_browser(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    struct stat st; /* a folder is "executable" too: found here, not after the run */
    if (!*v || stat(v, &st) != 0 || !S_ISREG(st.st_mode) || access(v, X_OK) != 0)
        return ks_fail(KS_ERR_INVALID, "%s: '%s' is not a program that can be run", name, quoted(v));
    ((ks_serve_bench_opts *)own)->browser = v;
    return KS_OK;
}

static ks_status set_replot(ks_options *o, void *own, const char *name, const char *v)
{
    (void)o;
    if (!*v) return ks_fail(KS_ERR_INVALID, "%s: an empty path", name);
    ((ks_serve_bench_opts *)own)->replot = v;
    return KS_OK;
}

static const ks_flag_row ks_serve_flags[] = {
    {"--browser", "PATH", "also rows from a headless Chromium on the page (its own fps)", KS_IN_BENCH, set_browser},
    {"--replot", "CSV", "nothing run: an earlier run's bench_serve.csv drawn again into --out (table, .txt, .csv, .png)",
     KS_IN_BENCH, set_replot},
};
const ks_option_group ks_bench_serve_group = {
    "kernelscope bench serve (the live loop with the viewer's server: none, jpeg, h264, record)",
    sizeof(ks_serve_bench_opts), ks_serve_flags, 2,
    "  --kernel LIST           the cases: Laplace kernels / sphere memory variants (default\n"
    "                          spheres binned and laplace3d regq; CPU: laplace2d and spheres)\n"
    "  --grid N, --spheres N   the Laplace grid (default 512^3; CPU 256^2), the sphere count\n"
    "                          (default 2048; CPU 64)\n"
    "  --size WxH              the picture (default 1920x1080; CPU 1280x800)\n"
    "  --frames N, --iters K   timed frames per row after 48 warm-up (default 120), iterations\n"
    "  --fps-target N          the frame rate --iters auto sizes for (default 60; 0: the fastest)\n",
};

const char *ks_bench_serve_browser(const ks_options *o)
{
    const ks_serve_bench_opts *so = ks_options_own_const(o, &ks_bench_serve_group);
    return so ? so->browser : NULL;
}

const char *ks_bench_serve_replot_path(const ks_options *o)
{
    const ks_serve_bench_opts *so = ks_options_own_const(o, &ks_bench_serve_group);
    return so ? so->replot : NULL;
}
