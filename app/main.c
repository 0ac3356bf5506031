/* kernelscope: parse the command line, pick the backend, then run the live
 * view or a benchmark. Only this file decides exit codes:
 * 0 ok, 1 failure while running, 2 bad input (flags, sizes, blocks, paths, display). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/common/cuda_device.h"
#include "bench_laplace.h"
#include "bench_matmul.h"
#include "bench_spheres.h"
#include "best_config.h"
#include "live.h"
#include "options.h"
#include "scene.h"

enum { KS_EXIT_OK = 0, KS_EXIT_FAILURE = 1, KS_EXIT_USAGE = 2 };

static int fail(int code)
{
    fprintf(stderr, "kernelscope: error: %s\n", ks_error_message());
    return code;
}

/* Input problems exit 2; CUDA/GL breaking underneath us exits 1. */
static int setup_exit_code(ks_status st)
{
    return (st == KS_ERR_CUDA || st == KS_ERR_GL) ? KS_EXIT_FAILURE : KS_EXIT_USAGE;
}

static double host_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The CPU backend's ceiling: memcpy bandwidth, read + write bytes, median of 5. */
static double measure_host_copy_gbs(size_t bytes)
{
    char *a = malloc(bytes), *b = malloc(bytes);
    double best[5] = {0};
    if (!a || !b) {
        free(a);
        free(b);
        return 0.0;
    }
    memset(a, 0x5a, bytes);
    memset(b, 0, bytes);
    for (int r = 0; r < 5; ++r) {
        const double t0 = host_seconds();
        memcpy(b, a, bytes);
        best[r] = 2.0 * (double)bytes / (host_seconds() - t0) / 1e9;
    }
    free(a);
    free(b);
    for (int i = 1; i < 5; ++i)
        for (int j = i; j > 0 && best[j] < best[j - 1]; --j) {
            double t = best[j];
            best[j] = best[j - 1];
            best[j - 1] = t;
        }
    return best[2];
}

static int has_display(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

int main(int argc, char **argv)
{
    ks_options opt;
    if (ks_options_parse(argc, argv, &opt) != KS_OK) return fail(KS_EXIT_USAGE);
    if (opt.help) {
        ks_options_print_help();
        return KS_EXIT_OK;
    }
    if (opt.version) {
        printf("kernelscope %s\n", KS_VERSION);
        return KS_EXIT_OK;
    }

    /* Backend: CUDA when a device exists, unless told otherwise. */
    ks_device_info device;
    memset(&device, 0, sizeof device);
    int use_cuda = 0;
    if (opt.backend != KS_BACKEND_CPU) {
        ks_status st = ks_cuda_probe(&device);
        if (st != KS_OK) return fail(KS_EXIT_FAILURE);
        if (device.present) {
            use_cuda = 1;
        } else if (opt.backend == KS_BACKEND_CUDA) {
            ks_error_prefix("--backend cuda");
            return fail(KS_EXIT_USAGE);
        } else {
            fprintf(stderr, "kernelscope: %s; using the cpu backend\n", ks_error_message());
        }
    }
    ks_options_backend_defaults(&opt, use_cuda);
    if (!use_cuda) {
        char line[256];
        for (int k = 0; ks_options_cpu_notice(&opt, &k, line, sizeof line);)
            fprintf(stderr, "kernelscope: %s\n", line);
    }

    if (opt.mode == KS_MODE_BENCH || opt.save_every || strcmp(opt.out_dir, ".") != 0) {
        if (ks_output_dir_check(opt.out_dir) != KS_OK) {
            ks_error_prefix("--out");
            return fail(KS_EXIT_USAGE);
        }
    }

    ks_best_store *best = calloc(1, sizeof *best);
    if (!best) return fail(KS_EXIT_FAILURE);
    char best_path[1024], notice[1200];
    if (ks_best_path(best_path, sizeof best_path) == KS_OK) {
        ks_best_load(best_path, best, notice, sizeof notice);
        if (notice[0]) fprintf(stderr, "kernelscope: %s\n", notice);
    } else {
        best_path[0] = '\0';
    }

    int code = KS_EXIT_OK;
    if (opt.mode == KS_MODE_BENCH) {
        ks_status st = KS_OK;
        if (ks_scene_dims(opt.scene) != 0)
            st = ks_bench_laplace(&opt, &device, use_cuda, best, best_path[0] ? best_path : NULL);
        else if (opt.scene == KS_SCENE_MATMUL)
            st = ks_bench_matmul(&opt, &device, use_cuda);
        else
            st = ks_bench_spheres(&opt, &device, use_cuda);
        if (st != KS_OK) code = fail(setup_exit_code(st));
        free(best);
        return code;
    }

    /* Live view. */
    ks_scene_env env;
    memset(&env, 0, sizeof env);
    env.opt = &opt;
    env.use_cuda = use_cuda;
    env.device = &device;
    env.best = best;
    if (use_cuda) {
        /* T_peak: a device-to-device copy of at least the field size (>= 256 MiB). */
        size_t bytes = (size_t)256 << 20;
        if (ks_scene_dims(opt.scene)) {
            ks_grid g = ks_options_grid(&opt, 0);
            if (ks_grid_bytes(&g) > bytes && ks_grid_bytes(&g) < device.free_mem / 4)
                bytes = ks_grid_bytes(&g);
        }
        if (ks_cuda_measure_copy_gbs(bytes, 10, &env.t_peak_gbs) != KS_OK) {
            free(best);
            return fail(KS_EXIT_FAILURE);
        }
    } else {
        env.t_peak_gbs = measure_host_copy_gbs((size_t)128 << 20);
    }

    const ks_scene_api *api = ks_scene_dims(opt.scene) ? &ks_scene_laplace : &ks_scene_spheres;
    if (opt.scene == KS_SCENE_MATMUL) api = &ks_scene_matmul;
    int headless = opt.headless;
    if (opt.window && !has_display()) {
        free(best);
        ks_fail(KS_ERR_NO_DEVICE, "no display: set DISPLAY or pass --headless");
        return fail(KS_EXIT_USAGE);
    }
    if (!headless && !opt.window && !has_display()) {
        headless = 1;
        if (!opt.frames) opt.frames = 60;
        fprintf(stderr, "kernelscope: no display; rendering headless (EGL) for %d frames\n",
                opt.frames);
    }
    ks_live *live = NULL;
    ks_status st = ks_live_create(&env, api, headless, &live);
    if (st != KS_OK) {
        code = fail(setup_exit_code(st));
    } else if (ks_live_run(live) != KS_OK) {
        code = fail(KS_EXIT_FAILURE);
    }
    ks_live_destroy(live);
    free(best);
    return code;
}
