/* kernelscope: parse the command line, pick the backend, then run the live
 * view or a benchmark. Only this file decides exit codes:
 * 0 ok, 1 failure while running, 2 bad input (flags, sizes, blocks, paths, display). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ks_util.h"
#include "base/cpu_threads.h"
#include "base/cuda_device.h"
#include "base/fma_peak.h"
#include "base/host_peak.h"
#include "kernels/laplace/mpi_job.h"
#include "app/best_config.h"
#include "app/live/live.h"
#include "app/new_kernel.h"
#include "app/kernel/kernel_checker.h"
#include "app/user_kernel.h"
#include "app/options.h"
#include "app/run_outputs.h"
#include "render/image_io.h"
#include "app/scenes.h"
#include "app/signals.h"
#include "video/recorder.h"

enum { KS_EXIT_OK = 0, KS_EXIT_FAILURE = 1, KS_EXIT_USAGE = 2 };

static void notices_flush(void);
static int ks_ranks_parted; /* an MPI live run past the point where rank 0 and the others part */

static int fail(int code)
{
    if (code != KS_EXIT_USAGE) notices_flush(); /* context for a failure, not for bad input */
    fprintf(stderr, "kernelscope: error: %s\n", ks_error_message());
    return code;
}

/* Input problems exit 2; CUDA/GL breaking underneath us exits 1. */
static int setup_exit_code(ks_status st)
{
    return (st == KS_ERR_CUDA || st == KS_ERR_GL) ? KS_EXIT_FAILURE : KS_EXIT_USAGE;
}

/* Notices (CPU fallback, best-config store, headless) wait until the run starts, so
 * that input refused during set-up is the one line on stderr. */
static char ks_notices[4096];
static size_t ks_notices_len;

static void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void notice(const char *fmt, ...)
{
    if (ks_notices_len + 1 >= sizeof ks_notices) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(ks_notices + ks_notices_len, sizeof ks_notices - ks_notices_len, fmt, ap);
    va_end(ap);
    if (n > 0) ks_notices_len += (size_t)n < sizeof ks_notices - ks_notices_len
                                     ? (size_t)n : sizeof ks_notices - ks_notices_len - 1;
}

static void report_line(const char *text) { notice("kernelscope: %s\n", text); }

/* One line naming the device, then the scene's own (e.g. the code path a
 * variant takes on this GPU generation). */
static void report_device(const ks_scene_def *scene, const ks_device_info *d)
{
    notice("kernelscope: %s, compute capability %d.%d, %d SMs, %.1f GiB\n", d->name, d->cc_major,
           d->cc_minor, d->sm_count, (double)d->total_mem / (1u << 30));
    if (scene->report) scene->report(d, report_line);
}

static void notices_flush(void)
{
    fputs(ks_notices, stderr);
    ks_notices[0] = '\0';
    ks_notices_len = 0;
}

/* The CPU backend's threads and waiting, on stdout as a bench starts: its
 * figures depend on them (a live run does not say it: one line of noise on
 * every run). Not among the notices, so that input a bench refuses stays the
 * one line on stderr. */
static void cpu_policy_line(int use_cuda)
{
    if (use_cuda) return;
    char policy[256];
    ks_cpu_policy_text(policy, sizeof policy);
    printf("kernelscope: cpu backend: %s\n", policy);
    fflush(stdout);
}

static int has_display(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

/* An output file (--dump-field, --record) straight inside the --out folder this run makes. */
static int in_out_dir(const ks_options *opt, const char *d, int writes_out)
{
    const size_t n = strlen(opt->out_dir);
    return writes_out && strncmp(d, opt->out_dir, n) == 0 && d[n] == '/' && d[n + 1] != '\0' &&
           strchr(d + n + 1, '/') == NULL;
}

/* kernelscope new-kernel SCENE [-o FILE]: a starter kernel file. */
static int new_kernel(int argc, char **argv)
{
    char path[1024];
    int help = 0;
    if (ks_new_kernel_run(argc, argv, path, sizeof path, &help) != KS_OK) return fail(KS_EXIT_USAGE);
    if (help) {
        printf("usage: kernelscope new-kernel SCENE [--from VARIANT] [-o FILE]\n"
               "Writes a starter kernel for SCENE (its contract as comments, then a kernel that keeps it)\n"
               "to FILE (default SCENE_kernel.cu here); an existing file is left alone (exit 2).\n"
               "The kernel is the course's simple version, or with --from one of kernelscope's own\n"
               "variants written to the contract (laplace3d: regq, the fastest that does one\n"
               "iteration a launch).\n");
        return KS_EXIT_OK;
    }
    printf("kernelscope: wrote %s\n", KS_QUOTED(path));
    return KS_EXIT_OK;
}

/* --kernel-file where nothing can run it (no CUDA device, or --backend cpu):
 * each file compiled all the same (NVRTC needs no GPU), its errors as
 * FILE:LINE: lines, then one line saying that running needs a device; exit 2. */
static int user_kernels_without_device(const ks_scene_def *scene, const ks_options *opt, int cpu_asked)
{
    for (int i = 0; scene->kernel_file(opt, i); ++i) {
        const char *path = scene->kernel_file(opt, i);
        ks_nvrtc_result r;
        const ks_status st = ks_user_kernel_compile(path, NULL, &r);
        if (st == KS_ERR_PARSE && r.lines && r.lines[0]) {
            fputs(r.lines, stderr);
            ks_nvrtc_result_free(&r);
            return KS_EXIT_USAGE;
        }
        if (st != KS_OK) {
            ks_nvrtc_result_free(&r);
            return fail(KS_EXIT_USAGE);
        }
        if (r.lines[0]) fputs(r.lines, stderr); /* its warnings */
        ks_nvrtc_result_free(&r);
    }
    ks_fail(KS_ERR_NO_DEVICE, "%s compiles (for sm_%d%d, the default without a device); running it needs a CUDA device%s",
            KS_QUOTED(scene->kernel_file(opt, 0)), KS_NVRTC_DEFAULT_CC_MAJOR, KS_NVRTC_DEFAULT_CC_MINOR,
            cpu_asked ? ", not --backend cpu" : "");
    return fail(KS_EXIT_USAGE);
}

/* The checker process (app/kernel/kernel_checker.h): its CUDA context made
 * before the first request (on the GPU its parent named, a spare one beside
 * the live view's), each request checked by its scene's row. */
static int checker_device = -1;

static void checker_warm(void)
{
    if (checker_device >= 0 && ks_cuda_use_device(checker_device) != KS_OK) {
        /* the default device then; the first check says whatever else went wrong */
        ks_error_clear();
    }
    size_t free_b, total_b;
    ks_cuda_free_memory(&free_b, &total_b); /* makes the context; a failure shows in the first check */
    ks_error_clear();
}

static ks_status checker_check(const ks_kcheck_request *req, ks_kcheck_result *out)
{
    const ks_scene_def *d = ks_scene_def_find(req->scene);
    if (!d || !d->kernel_check) return ks_fail(KS_ERR_INVALID, "no scene '%s' checks kernels", KS_QUOTED(req->scene));
    return d->kernel_check(req, out);
}

static int run(int argc, char **argv)
{
    ks_options opt;
    if (ks_options_parse(argc, argv, &opt) != KS_OK) return fail(KS_EXIT_USAGE);
    if (opt.help) {
        ks_options_print_help(&opt);
        return KS_EXIT_OK;
    }
    if (opt.version) {
        printf("kernelscope %s\n", KS_VERSION);
        return KS_EXIT_OK;
    }
    if (opt.list_scenes) {
        ks_options_print_scenes();
        return KS_EXIT_OK;
    }
    const ks_scene_def *scene = opt.scene;

    /* Outputs first, before any device or display work and before the first frame: each
     * folder is tried with a file made and removed (a run that could not write its results
     * is refused, not found out at its end); folders are created only once the run starts.
     * bench writes into results/<scene>-<time>/ unless told. */
    static char results_dir[128];
    if (opt.mode == KS_MODE_BENCH && !opt.out_set) {
        const time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(results_dir, sizeof results_dir, "results/%s-%s", scene->name, stamp);
        if (ks_mpi_bcast(results_dir, sizeof results_dir, 0) != KS_OK) return fail(KS_EXIT_FAILURE); /* rank 0's */
        opt.out_dir = results_dir;
    }
    const int writes_out = opt.mode == KS_MODE_BENCH || opt.save_every || strcmp(opt.out_dir, ".") != 0;
    if (writes_out && ks_output_dir_usable(opt.out_dir) != KS_OK) {
        ks_error_prefix("--out");
        return fail(KS_EXIT_USAGE);
    }
    if (opt.dump_field && !in_out_dir(&opt, opt.dump_field, writes_out) &&
        ks_output_file_usable(opt.dump_field) != KS_OK) {
        ks_error_prefix("--dump-field");
        return fail(KS_EXIT_USAGE);
    }
    if (opt.record && !in_out_dir(&opt, opt.record, writes_out) && ks_recorder_check_path(opt.record) != KS_OK) {
        ks_error_prefix("--record");
        return fail(KS_EXIT_USAGE);
    }
    /* A kernel file that cannot be read (missing, not a file, too big) is bad input: said alone,
     * before the device is probed and its lines printed, and before a bench makes its folder. */
    for (int i = 0; scene->kernel_file && scene->kernel_file(&opt, i); ++i) {
        char *source = NULL;
        if (ks_user_kernel_read(scene->kernel_file(&opt, i), &source) != KS_OK) return fail(KS_EXIT_USAGE);
        /* and a malformed declaration line, said the same way */
        const ks_status declared = ks_user_kernel_declare(scene->kernel_file(&opt, i), &source);
        free(source);
        if (declared != KS_OK) return fail(KS_EXIT_USAGE);
    }
    /* --edit saves the first kernel file from the page through a temporary beside it */
    if (opt.edit && ks_output_file_usable(scene->kernel_file(&opt, 0)) != KS_OK) {
        ks_error_prefix("--edit");
        return fail(KS_EXIT_USAGE);
    }
    if (ks_mpi_active() && opt.mode != KS_MODE_BENCH && !scene->mpi_follow) {
        ks_fail(KS_ERR_UNSUPPORTED, "%s has no live view under mpirun (laplace3d and laplace2d have)", scene->name);
        return fail(KS_EXIT_USAGE);
    }
    if (opt.mode != KS_MODE_BENCH && opt.window && !has_display()) {
        ks_fail(KS_ERR_NO_DEVICE, "no display: set DISPLAY or pass --headless");
        return fail(KS_EXIT_USAGE);
    }
    ks_signals_install();

    /* Backend: CUDA when a device exists, unless told otherwise. */
    ks_device_info device;
    memset(&device, 0, sizeof device);
    int use_cuda = 0;
    if (opt.backend != KS_BACKEND_CPU) {
        ks_status st = ks_cuda_probe(&device);
        if (st != KS_OK) return fail(KS_EXIT_FAILURE);
        if (device.present) {
            use_cuda = 1;
            report_device(scene, &device);
        } else if (opt.backend == KS_BACKEND_CUDA) {
            ks_error_prefix("--backend cuda");
            return fail(KS_EXIT_USAGE);
        } else {
            notice("kernelscope: %s; using the cpu backend\n", ks_error_message());
        }
    }
    if (!use_cuda && scene->kernel_file && scene->kernel_file(&opt, 0))
        return user_kernels_without_device(scene, &opt, opt.backend == KS_BACKEND_CPU);
    ks_options_backend_defaults(&opt, use_cuda);
    if (scene->backend_check && scene->backend_check(&opt, use_cuda, device.device_count) != KS_OK)
        return fail(KS_EXIT_USAGE);
    if (ks_mpi_active() && opt.mode != KS_MODE_BENCH && !use_cuda) { /* alike on every rank: before they part */
        ks_fail(KS_ERR_NO_DEVICE, "under mpirun each rank drives a GPU, and this one has no CUDA device");
        return fail(KS_EXIT_USAGE);
    }
    /* Under mpirun the ranks part here: rank 0 shows the run, the others do their share of every
     * frame. From now on an error may be one rank's alone, and must end the whole job. */
    if (ks_mpi_active() && opt.mode != KS_MODE_BENCH) ks_ranks_parted = 1;
    if (ks_mpi_active() && ks_mpi_rank() != 0 && opt.mode != KS_MODE_BENCH) {
        return scene->mpi_follow(&opt) == KS_OK ? KS_EXIT_OK : fail(KS_EXIT_FAILURE);
    }
    if (!use_cuda) {
        char line[256];
        for (int k = 0; ks_options_cpu_notice(&opt, &k, line, sizeof line);)
            notice("kernelscope: %s\n", line); /* held: an error that follows comes alone */
    }

    ks_best_store *best = calloc(1, sizeof *best);
    if (!best) return fail(KS_EXIT_FAILURE);
    char best_path[1024], best_notice[1200];
    if (ks_best_path(best_path, sizeof best_path) == KS_OK) {
        best->known = ks_scene_knows_kernel; /* entries for kernels this build lacks are stale */
        ks_best_load(best_path, best, best_notice, sizeof best_notice);
        if (best_notice[0]) notice("kernelscope: %s\n", best_notice);
    } else {
        best_path[0] = '\0';
    }

    int code = KS_EXIT_OK;
    if (opt.mode == KS_MODE_BENCH) {
        ks_status st = ks_output_dir_check(opt.out_dir); /* the bench starts: make its folder */
        if (st != KS_OK) {
            ks_error_prefix("--out");
        } else {
            notices_flush();
            printf("kernelscope: results go to %s/\n", opt.out_dir);
            cpu_policy_line(use_cuda);
            const ks_bench_env be = {&opt, &device, use_cuda, best, best_path[0] ? best_path : NULL};
            st = scene->bench(&be);
        }
        if (st != KS_OK) code = fail(setup_exit_code(st));
        else if (ks_signals_exit_code()) code = ks_signals_exit_code();
        free(best);
        return code;
    }

    /* Live view. */
    ks_scene_env env;
    memset(&env, 0, sizeof env);
    ks_host_peak host_peak;
    env.opt = &opt;
    env.use_cuda = use_cuda;
    env.device = &device;
    env.best = best;
    if (use_cuda) {
        /* T_peak: a device-to-device copy of at least the field size (>= 256 MiB). */
        size_t bytes = (size_t)256 << 20;
        const size_t field = scene->field_bytes ? scene->field_bytes(&opt) : 0;
        if (field > bytes && field < device.free_mem / 4) bytes = field;
        if (ks_cuda_measure_copy_gbs(bytes, 10, &env.t_peak_gbs) != KS_OK ||
            ks_cuda_measure_fma_gflops(5, &env.fma_gflops) != KS_OK) { /* the roofline's ceilings */
            free(best);
            return fail(KS_EXIT_FAILURE);
        }
    } else if (ks_host_peak_measure(NULL, &host_peak) == KS_OK) { /* the copy by the solver's threads, repeated */
        env.t_peak_gbs = host_peak.gbs;
        env.host_peak = &host_peak;
    } else {
        ks_error_clear(); /* no memory for the copy: the panel goes without T_peak */
    }

    const ks_scene_api *api = scene->live;
    int headless = opt.headless;
    if (!headless && !opt.window && !has_display()) {
        headless = 1;
        if (!opt.frames && !opt.serve) opt.frames = 60;
        if (opt.frames)
            notice("kernelscope: no display; rendering headless (EGL) for %d %s\n", opt.frames,
                   ks_plural(opt.frames, "frame", "frames"));
        else
            notice("kernelscope: no display; rendering headless (EGL) until stopped\n");
    }
    ks_live *live = NULL;
    const ks_live_desc ld = {&env, api, headless ? KS_LIVE_HEADLESS : KS_LIVE_WINDOW};
    ks_status st = ks_live_create(&ld, &live);
    if (st == KS_OK && writes_out && ks_output_dir_check(opt.out_dir) != KS_OK) {
        ks_error_prefix("--out"); /* the folder is made only now that the run starts */
        st = KS_ERR_IO;
    }
    if (st == KS_OK) notices_flush();
    if (st != KS_OK) {
        code = fail(setup_exit_code(st));
    } else if (ks_live_run(live) != KS_OK) {
        code = fail(KS_EXIT_FAILURE);
    } else if (ks_signals_exit_code()) {
        code = ks_signals_exit_code(); /* 130 after SIGINT, 143 after SIGTERM */
    }
    ks_live_destroy(live);
    free(best);
    return code;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], KS_KCHECK_ARG) == 0) {
        for (int i = 2; i + 1 < argc; ++i)
            if (strcmp(argv[i], KS_KCHECK_DEVICE_ARG) == 0) checker_device = atoi(argv[i + 1]);
        return ks_kchecker_child_main(0, 1, checker_warm, checker_check);
    }
    if (ks_new_kernel_asked(argc, argv)) return new_kernel(argc, argv);
    /* Under mpirun: join the job, take this machine's GPU of the rank, and
     * leave printing to rank 0 (the others' errors still reach stderr). */
    if (ks_mpi_start(&argc, &argv) != KS_OK) return fail(KS_EXIT_USAGE);
    if (ks_mpi_active()) {
        if (ks_mpi_rank() != 0 && !freopen("/dev/null", "w", stdout)) {
            ks_fail(KS_ERR_IO, "rank %d: cannot silence its output", ks_mpi_rank());
            ks_mpi_end(KS_EXIT_FAILURE);
            return fail(KS_EXIT_FAILURE);
        }
        if (ks_cuda_use_device(ks_mpi_local_rank()) != KS_OK) {
            ks_error_prefix("MPI rank %d (rank %d on its machine)", ks_mpi_rank(), ks_mpi_local_rank());
            const int code = fail(KS_EXIT_USAGE);
            ks_mpi_end(code);
            return code;
        }
    }
    const int code = run(argc, argv);
    /* a refusal (2) after the ranks parted was one rank's: the others wait in a collective */
    ks_mpi_end(ks_ranks_parted && code == KS_EXIT_USAGE ? KS_EXIT_FAILURE : code);
    return code;
}
