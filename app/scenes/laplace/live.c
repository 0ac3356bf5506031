/* The Laplace scenes (3D slice view and 2D heatmap) on either backend: the
 * CUDA solver (kernels/laplace.h) or the CPU gold routine. This file: the
 * scene's life and its frames' compute; the field and the variant in use are
 * live_field.c, the picture live_draw.c, the keys live_keys.c, the panel
 * live_view.c. Users' kernels (--kernel-file) are variants after ours, in the
 * variant set (app/kernel/variant_set.h) with the contract of check.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/ks_util.h"
#include "kernels/laplace/field_histogram.h"
#include "app/best_config.h"

#include "app/scenes/laplace/check.h"
#include "app/scenes/laplace/live.h"
#include "app/scenes/laplace/live_state.h"
#include "kernels/laplace/laplace_multi.h"
#include "kernels/laplace/mpi_job.h"

/* CPU backend: a residual at least this often (ms of frames), for the Convergence panel */
#define KS_LAPLACE_CPU_RESIDUAL_MS 250.0

/* --gpus: the display GPU's solver for slices along the current axis (made
 * on first use, on the stream of the first one made) becomes s->solver. */
static ks_status ensure_view(ks_laplace_scene *s)
{
    if (!s->multi) return KS_OK;
    const int a = s->grid.dims == 3 ? (int)s->axis : 0;
    if (!s->views[a]) {
        const ks_grid vg = ks_lmulti_slice_grid(s->multi, s->axis);
        KS_TRY(ks_lsolver_create(&vg, &s->views[a]));
        if (s->view_owner) KS_TRY(ks_lsolver_use_stream(s->views[a], ks_lsolver_stream(s->view_owner)));
        else s->view_owner = s->views[a];
    }
    s->solver = s->views[a];
    return KS_OK;
}


static void destroy(void *self)
{
    ks_laplace_scene *s = self;
    if (!s) return;
    ks_laplace_say_intervals(s);
    ks_variant_set_destroy(s->set);
    if (s->multi) { /* the slice solvers share the first one's stream: it goes last */
        for (int a = 0; a < 3; ++a)
            if (s->views[a] != s->view_owner) ks_lsolver_destroy(s->views[a]);
        ks_lsolver_destroy(s->view_owner);
        ks_lmulti_destroy(s->multi);
    } else {
        ks_lsolver_destroy(s->solver);
    }
    free(s->u);
    free(s->u_prev);
    free(s->diff_rgba);
    free(s);
}

/* Before a file's code is replaced: no launch of the old code in flight, and no graph holds it. */
static ks_status quiesce(void *scene)
{
    ks_laplace_scene *s = scene;
    if (!s->solver) return KS_OK;
    KS_TRY(ks_lsolver_wait(s->solver));
    ks_lsolver_drop_graphs(s->solver);
    return KS_OK;
}

/* Ours of the scene's rank, then the --kernel-file files (each a variant row, registered with the
 * options): every file built and checked (on the live grid and the block it runs with) before
 * the first frame; the first of them runs unless --kernel names another variant. */
static ks_status variant_set(ks_laplace_scene *s)
{
    const ks_options *opt = s->env->opt;
    const int dims = s->grid.dims;
    int first = 0;
    for (int id = 0; id < ks_lvariant_builtin_count() && s->ours < KS_VARIANT_OURS_MAX; ++id) {
        if (ks_lvariant_get(id)->dims != dims) continue;
        if (id == ks_lvariant_default(dims)) first = s->ours;
        if (opt->kernel_count && strcmp(ks_lvariant_get(id)->name, opt->kernels[0]) == 0) first = s->ours;
        s->our_names[s->ours] = ks_lvariant_get(id)->name;
        s->our_ids[s->ours++] = id;
    }
    int block[3] = {1, 1, 1}; /* a file's block: --block, else the contract's default (its row's) */
    const char *file = ks_laplace_kernel_file(opt, 0);
    const int row = file ? ks_lvariant_find(dims, ks_path_base_name(file)) : -1;
    if (row >= 0) memcpy(block, ks_lvariant_get(row)->default_block, sizeof block);
    if (opt->block_count) memcpy(block, opt->blocks[0], sizeof block);
    const ks_variant_set_desc d = {
        .contract = &ks_laplace_contract, .scene = s, .quiesce = quiesce, .opt = opt, .use_cuda = s->use_cuda,
        .device = s->env->device, .ours = s->ours, .our_names = s->our_names, .first = first,
        .grid = {s->grid.nx, s->grid.ny, s->grid.nz}, .block = {block[0], block[1], block[2]}, .watch = 1,
        .diff = KS_USER_DIFF_SLICE, .diff_reference = ks_lvariant_get(ks_lvariant_default(dims))->name,
    };
    return ks_variant_set_create(&d, &s->set);
}

static ks_status create(const ks_scene_env *env, void **self)
{
    *self = NULL;
    const ks_options *opt = env->opt;
    ks_laplace_scene *s = calloc(1, sizeof *s);
    if (!s) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    *self = s;
    s->env = env;
    s->grid = ks_laplace_grid(opt, 0);
    s->bc = ks_laplace_opts_get(opt)->bc;
    s->use_cuda = env->use_cuda;
    s->iters = ks_laplace_opts_get(opt)->iters;
    ks_iters_auto_init(&s->iters_auto, ks_laplace_opts_get(opt)->iters_auto, ks_laplace_opts_get(opt)->fps_target);
    s->use_graph = s->use_cuda && !ks_laplace_opts_get(opt)->no_graph;
    ks_cadence_init(&s->res_cad, ks_laplace_opts_get(opt)->residual_every);
    ks_cadence_init(&s->hist_cad, 0);
    s->cmap = opt->colormap;
    s->auto_range = !opt->range_set;
    s->lo = opt->range_set ? opt->range_lo : 0.0f;
    s->hi = opt->range_set ? opt->range_hi : 1.0f;
    /* 3D: the vertical plane through the middle, across the hot top face, so
     * the first picture shows the heat front moving down from the top edge
     * (a z slice in the middle stays flat for thousands of iterations). */
    s->axis = s->grid.dims == 3 ? KS_AXIS_Y : KS_AXIS_Z;
    s->index = ks_slice_max_index(&s->grid, s->axis) / 2;
    ks_viewport_init(&s->own_view);
    ks_viewport_set_area(&s->own_view, opt->width, opt->height);

    /* Device memory is checked (by the solver) before any large host
     * allocation; host memory against what is available, since an
     * overcommitted malloc would only fail later, by the OOM killer. */
    const size_t bytes = ks_grid_bytes(&s->grid);
    int devices[16];
    s->gpus = s->use_cuda ? ks_laplace_live_gpus(opt, devices) : 1;
    const int mpi = s->use_cuda && ks_mpi_active(); /* mpirun: one GPU a rank, this one (rank 0) leads */
    if (mpi || s->gpus > 1) { /* the field on several GPUs; this one draws the slice */
        const ks_lmulti_desc md = {s->grid, mpi ? 1 : s->gpus, mpi ? NULL : devices, mpi, mpi};
        if (mpi) s->gpus = ks_mpi_size();
        KS_TRY(ks_lmulti_create(&md, &s->multi));
        s->use_graph = 0;
        KS_TRY(ensure_view(s));
    } else if (s->use_cuda) {
        KS_TRY(ks_lsolver_create(&s->grid, &s->solver));
        KS_TRY(ks_lsolver_use_graphs(s->solver, s->use_graph));
    }
    KS_TRY(ks_laplace_scene_check_host_memory(s, s->use_cuda ? 1 : 2));
    if (!s->use_cuda) {
        s->u = malloc(bytes);
        s->u_prev = malloc(bytes);
        if (!s->u || !s->u_prev) return ks_laplace_scene_check_host_memory(s, SIZE_MAX);
    }

    KS_TRY(variant_set(s)); /* users' kernels: built and checked before anything runs */
    if (!ks_variant_set_files(s->set) && !opt->kernel_count && s->use_cuda && env->best && !opt->block_count) {
        /* No choice made: start with the fastest configuration measured here. */
        const int grid[3] = {s->grid.nx, s->grid.ny, s->grid.nz};
        const ks_best_entry *e = ks_best_find(env->best, env->device->name, scene_name(s), NULL, grid);
        for (int k = 0; e && k < s->ours; ++k)
            if (strcmp(s->our_names[k], e->variant) == 0) ks_variant_set_select(s->set, k);
    }
    /* the reason for the run: the first file, unless --kernel names another variant */
    s->variant = ks_laplace_scene_variant_at(s, ks_variant_set_ours(s->set) >= 0 ? ks_variant_set_ours(s->set)
                                                  : s->ours + ks_variant_set_file(s->set));
    ks_laplace_scene_first_block(s);
    ks_status st = ks_laplace_scene_check_block(s, s->variant, s->block);
    if (st != KS_OK) {
        ks_error_prefix("--block %dx%dx%d", s->block[0], s->block[1], s->block[2]);
        return st;
    }
    ks_laplace_scene_refresh_attrs(s);
    return ks_laplace_scene_upload_initial(s);
}

static void *stream(void *self)
{
    ks_laplace_scene *s = self;
    return s->use_cuda ? ks_lsolver_stream(s->solver) : NULL;
}

/* The picture is the view (render/viewport.h): at most the picture area,
 * whatever the grid, so the largest is the window (--size). */
static void max_image_size(void *self, int *w, int *h)
{
    ks_laplace_scene *s = self;
    *w = s->env->opt->width > 0 ? s->env->opt->width : 1;
    *h = s->env->opt->height > 0 ? s->env->opt->height : 1;
}

/* This frame's picture: the view of the slice through the live loop's
 * viewport (zoom, pan, area), or the fit at --size when there is none. */
static void update_view(ks_laplace_scene *s, ks_frame_ctx *ctx)
{
    int w, h;
    ks_slice_dims(&s->grid, s->axis, &w, &h);
    /* the live loop's viewport has our grid (grid_size); one of another grid
     * would map cells we do not have: the fit instead */
    if (ctx->viewport && ctx->viewport->grid_w == w && ctx->viewport->grid_h == h) {
        ks_viewport_map(ctx->viewport, &s->view);
        return;
    }
    ks_viewport_set_grid(&s->own_view, w, h);
    ks_viewport_map(&s->own_view, &s->view);
}

/* The slice's cells, which the live loop's viewport views. */
static void grid_size(void *self, int *w, int *h)
{
    const ks_laplace_scene *s = self;
    ks_slice_dims(&s->grid, s->axis, w, h);
}

/* Jacobi iterations a frame runs now, for bench live's per-iteration figures. */
static double work_per_frame(void *self, const char **label)
{
    *label = "iterations/frame";
    return (double)scene_frame_iters((const ks_laplace_scene *)self);
}

/* The residual of iteration iter: the overlay's figure, and a point of the convergence plot. */
static void note_residual(ks_laplace_scene *s, long long iter, double rms)
{
    s->residual = rms;
    s->residual_iter = iter;
    if (!(rms > 0.0) || iter % s->hist_stride != 0) return;
    if (s->hist_n == KS_HISTORY) {
        /* Full: keep every other point and sample half as often from now on. */
        for (int i = 0; i < KS_HISTORY / 2; ++i) {
            s->hist_x[i] = s->hist_x[2 * i];
            s->hist_y[i] = s->hist_y[2 * i];
        }
        s->hist_n = KS_HISTORY / 2;
        s->hist_stride *= 2;
    }
    s->hist_x[s->hist_n] = (float)iter;
    s->hist_y[s->hist_n] = (float)log10(rms);
    ++s->hist_n;
}

/* The cadences follow the measured medians: one residual (one histogram)
 * against the solver's part of a frame. */
static void tune_cadences(ks_laplace_scene *s)
{
    ks_stage_stats jacobi, task;
    ks_stage_timer_stats(s->timer, s->stage_jacobi, &jacobi);
    if (jacobi.samples == 0) return;
    ks_stage_timer_stats(s->timer, s->stage_residual, &task);
    if (task.samples > 0) ks_cadence_tune(&s->res_cad, task.median_ms, jacobi.median_ms);
    /* the CPU's residual costs about one of its few iterations a frame, far over the
     * budget: a point for the Convergence panel a few times a second all the same */
    ks_stage_share share;
    if (!s->use_cuda && ks_stage_timer_share(s->timer, &share))
        ks_cadence_cap_period(&s->res_cad, share.interval_ms, KS_LAPLACE_CPU_RESIDUAL_MS);
    ks_stage_timer_stats(s->timer, s->stage_hist, &task);
    if (task.samples > 0) ks_cadence_tune(&s->hist_cad, task.median_ms, jacobi.median_ms);
}

/* --iters auto: a stepping frame may resize the count from the medians (the
 * solver's time per frame at the count that runs, the frame interval); a
 * frame that does not step (paused, single steps) makes it wait for fresh ones. */
static void tune_iters(ks_laplace_scene *s, const ks_frame_ctx *ctx)
{
    if (!s->iters_auto.on) return;
    if (!ctx->step || ctx->single) {
        ks_iters_auto_restart(&s->iters_auto);
        return;
    }
    ks_stage_share share;
    if (!ks_stage_timer_share(s->timer, &share)) return;
    const int g = s->use_cuda ? ks_lvariant_get(s->variant)->steps_per_launch : 1;
    int iters = scene_frame_iters(s);
    if (ks_iters_auto_step(&s->iters_auto, &iters, share.solver_ms, share.interval_ms, g, 1000000))
        s->iters = iters;
}

/* A stepping frame computes the residual on its cadence; a single step (N)
 * always does, since the user is looking at that very iteration, and so does
 * the last frame of a --frames run, for the summary line. */
static int residual_due(ks_laplace_scene *s, const ks_frame_ctx *ctx)
{
    const int due = ks_cadence_due(&s->res_cad);
    const int frames = s->env->opt->frames;
    return due || ctx->single || (frames > 0 && ctx->frame + 1 == frames);
}

/* Takes in what the GPU has sent back (residual, slice min/max, probe). */
static void poll_readback(ks_laplace_scene *s)
{
    ks_lreadback rb;
    while (ks_lsolver_poll_readback(s->solver, &rb)) {
        if (rb.residual_rms >= 0) note_residual(s, rb.residual_iteration, rb.residual_rms);
        ks_laplace_scene_apply_minmax(s, rb.slice_min, rb.slice_max);
        if (rb.probe[0] >= 0 && s->probe_valid) s->probe_value = rb.probe_value;
    }
}

/* --gpus: the run on every GPU, the residual by an all-reduce, then the
 * slice copied to the display GPU for the picture. The run's stage is its own
 * events' time on the slowest GPU: events on the display stream would begin
 * only once the last frame's picture work there drained, while the GPUs had
 * started at once (tblock 1024^3 on 2 H200s at 40 iterations a frame: 0.423
 * ms an iteration that way, 0.451 in the bench). The residual's all-reduce
 * is waited for on the host: its stage takes the host clock.
 * The run starts once the last frame's picture work is done: beside it, that
 * work slowed the display GPU's update and so, at each exchange, every GPU
 * (laplace2d 16384^2 on 2 H200s, whose slice is the whole field: a live
 * iteration 16 % over the bench's, the picture's 1.2 ms a frame costing 1.7
 * ms of update); one after the other, each stage shows its own time. */
static ks_status compute_multi(ks_laplace_scene *s, ks_frame_ctx *ctx, int iters)
{
    ks_stage_timer_host_clock(ctx->timer, s->stage_residual);
    KS_TRY(ensure_view(s));
    KS_TRY(ks_lsolver_wait(s->solver));
    poll_readback(s);
    if (iters > 0) {
        const int residual = residual_due(s, ctx);
        KS_TRY(ks_lmulti_run(s->multi, s->variant, s->block, iters, residual ? KS_LPREV_EXACT : KS_LPREV_ANY));
        ks_lmulti_timing run;
        ks_lmulti_last(s->multi, &run);
        ks_stage_timer_record(ctx->timer, s->stage_jacobi, run.run_ms);
        if (residual) {
            KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_residual));
            double rms = 0.0;
            KS_TRY(ks_lmulti_residual(s->multi, &rms));
            KS_TRY(ks_stage_timer_end(ctx->timer, s->stage_residual));
            note_residual(s, s->total_iters + iters, rms);
        }
    }
    KS_TRY(ks_lmulti_slice_into(s->multi, s->axis, s->index, s->solver));
    const int none[3] = {-1, -1, -1};
    int probe[3];
    ks_lmulti_slice_point(s->multi, s->axis, s->probe, probe);
    return ks_lsolver_request_readback(s->solver, s->axis, ks_laplace_scene_view_index(s), s->probe_valid ? probe : none,
                                       s->total_iters + iters);
}

static ks_status compute_cuda(ks_laplace_scene *s, ks_frame_ctx *ctx, int iters)
{
    if (s->multi) return compute_multi(s, ctx, iters);
    poll_readback(s);
    int reloaded = 0; /* a save of the kernel in use, checked and swapped in */
    ks_laplace_note_interval(s);
    ks_variant_set_poll(s->set, s->block, &reloaded); /* a block refused: s->block back to the one it passed at */
    const int *block = ks_variant_set_run_block(s->set); /* a user's kernel runs only at a block it passed the check with */
    memcpy(s->run_block, block, sizeof s->run_block);
    if (reloaded) {
        ks_laplace_scene_refresh_attrs(s);
        ks_iters_auto_restart(&s->iters_auto);
    }
    ks_variant_set_slice_diff(s->set, (int)s->axis, s->index, &s->diff); /* asks, never waits */
    if (iters > 0) {
        /* Back to back: the previous field must be iterate n-1 only when a
         * residual follows; otherwise a temporally blocked variant runs its
         * time blocks alone. One graph replay (or the direct launches). */
        const int residual = residual_due(s, ctx);
        /* --iters auto asks now and then for a solver run alone: the GPU
         * drained first, nothing of GL's queued until it is done */
        const int alone = ctx->step && !ctx->single && ks_iters_auto_wants_alone(&s->iters_auto);
        if (alone) KS_TRY(ks_lsolver_wait(s->solver));
        const double t0 = ks_now_seconds();
        KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_jacobi));
        KS_TRY(ks_lsolver_run(s->solver, s->variant, block, iters,
                              residual ? KS_LPREV_EXACT : KS_LPREV_ANY));
        KS_TRY(ks_stage_timer_end(ctx->timer, s->stage_jacobi));
        if (alone) {
            KS_TRY(ks_lsolver_wait(s->solver));
            ks_iters_auto_alone(&s->iters_auto, (ks_now_seconds() - t0) * 1e3, iters);
        }
        if (residual) {
            KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_residual));
            KS_TRY(ks_lsolver_residual(s->solver));
            KS_TRY(ks_stage_timer_end(ctx->timer, s->stage_residual));
        }
    }
    const int none[3] = {-1, -1, -1};
    return ks_lsolver_request_readback(s->solver, s->axis, s->index,
                                       s->probe_valid ? s->probe : none, s->total_iters + iters);
}

static ks_status compute_cpu(ks_laplace_scene *s, ks_frame_ctx *ctx, int iters)
{
    if (iters > 0) {
        KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_jacobi));
        for (int it = 0; it < iters; ++it) {
            ks_laplace_gold_step(&s->grid, s->u, s->u_prev);
            float *t = s->u;
            s->u = s->u_prev;
            s->u_prev = t;
        }
        KS_TRY(ks_stage_timer_end(ctx->timer, s->stage_jacobi));
        if (residual_due(s, ctx)) {
            KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_residual));
            double sum = ks_laplace_gold_sumsq_diff(&s->grid, s->u, s->u_prev);
            KS_TRY(ks_stage_timer_end(ctx->timer, s->stage_residual));
            note_residual(s, s->total_iters + iters, sqrt(sum / (double)scene_points(s)));
        }
    }
    float mn, mx;
    ks_laplace_cpu_slice_minmax(&s->grid, s->u, s->axis, s->index, &mn, &mx);
    ks_laplace_scene_apply_minmax(s, mn, mx);
    if (s->probe_valid) {
        const size_t idx = (size_t)s->probe[0] +
                           (size_t)s->grid.nx * ((size_t)s->probe[1] + (size_t)s->grid.ny * (size_t)s->probe[2]);
        s->probe_value = s->u[idx];
    }
    return KS_OK;
}

static ks_status compute(void *self, ks_frame_ctx *ctx)
{
    ks_laplace_scene *s = self;
    s->timer = ctx->timer;
    s->stage_jacobi = ks_stage_timer_solver_stage(ctx->timer, s->env->opt->scene->solver_stage);
    s->stage_residual = ks_stage_timer_stage(ctx->timer, "residual");
    s->stage_slice = ks_stage_timer_stage(ctx->timer, "slice+colormap");
    s->stage_hist = ks_stage_timer_stage(ctx->timer, "histogram");
    update_view(s, ctx);
    /* the probe names a cell of the pixel under the cursor (cellmap.h) */
    s->probe_valid = ctx->probe_valid && ctx->probe_a >= 0 && ctx->probe_a < s->view.x.pixels &&
                     ctx->probe_b >= 0 && ctx->probe_b < s->view.y.pixels;
    if (s->probe_valid) {
        int a0, a1, b0, b1;
        ks_cellmap_range(&s->view.x, ctx->probe_a, &a0, &a1);
        ks_cellmap_range(&s->view.y, ctx->probe_b, &b0, &b1);
        s->probe_span[0] = a1 - a0;
        s->probe_span[1] = b1 - b0;
        s->probe_cell[0] = ks_cellmap_probe(&s->view.x, ctx->probe_a);
        s->probe_cell[1] = ks_cellmap_probe(&s->view.y, ctx->probe_b);
        ks_slice_point(&s->grid, s->axis, s->index, s->probe_cell[0], s->probe_cell[1], s->probe);
    }
    tune_cadences(s);
    tune_iters(s, ctx);
    const int iters = ctx->single ? 1 : ctx->step ? scene_frame_iters(s) : 0;
    /* what this frame asks of the GPU comes back a frame or so later: frames
     * that step, follow a key or move the probe are followed by a few more
     * before a paused run may idle (ready) */
    const int probe_moved = s->probe_valid != s->asked_probe_valid ||
                            (s->probe_valid && memcmp(s->probe, s->asked_probe, sizeof s->probe) != 0);
    if (iters > 0 || s->keyed || probe_moved) s->readback_frames = KS_LAPLACE_READBACK_FRAMES;
    else if (s->readback_frames > 0) --s->readback_frames;
    s->keyed = 0;
    s->asked_probe_valid = s->probe_valid;
    memcpy(s->asked_probe, s->probe, sizeof s->probe);
    if (s->use_cuda) KS_TRY(compute_cuda(s, ctx, iters));
    else KS_TRY(compute_cpu(s, ctx, iters));
    if (iters > 0) s->last_iters = iters;
    s->total_iters += iters;
    return KS_OK;
}

static ks_status finish(void *self)
{
    ks_laplace_scene *s = self;
    /* the live loop has waited for every frame: the last readback is in, so
     * the summary gets the last frame's residual */
    if (s->use_cuda) poll_readback(s);
    /* CPU: u_prev is iterate n-1 of the final field u, so the summary gets the
     * final field's residual even when a stop (Ctrl-C, Q) came off the cadence */
    if (!s->use_cuda && s->total_iters > 0 && s->residual_iter != s->total_iters) {
        note_residual(s, s->total_iters,
                      sqrt(ks_laplace_gold_sumsq_diff(&s->grid, s->u, s->u_prev) / (double)scene_points(s)));
    }
    const char *path = s->env->opt->dump_field;
    if (!path) return KS_OK;
    const float *field = s->u;
    float *host = NULL;
    if (s->use_cuda) {
        host = malloc(ks_grid_bytes(&s->grid));
        if (!host) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for --dump-field");
        ks_status st = s->multi ? ks_lmulti_download(s->multi, host) : ks_lsolver_download(s->solver, host);
        if (st != KS_OK) {
            free(host);
            return st;
        }
        field = host;
    }
    size_t shape[3];
    int ndim;
    if (s->grid.dims == 3) {
        shape[0] = (size_t)s->grid.nz;
        shape[1] = (size_t)s->grid.ny;
        shape[2] = (size_t)s->grid.nx;
        ndim = 3;
    } else {
        shape[0] = (size_t)s->grid.ny;
        shape[1] = (size_t)s->grid.nx;
        ndim = 2;
    }
    ks_status st = ks_npy_write_f32(path, field, ndim, shape);
    free(host);
    return st;
}

static void status(void *self, char *buf, size_t cap)
{
    const ks_laplace_scene *s = self;
    if (s->residual >= 0 && s->residual_iter == s->total_iters)
        snprintf(buf, cap, "%lld iterations, residual %.3e", s->total_iters, s->residual);
    else if (s->residual >= 0) /* the GPU's last residual came before the last iterations */
        snprintf(buf, cap, "%lld iterations, residual %.3e at iteration %lld", s->total_iters, s->residual,
                 s->residual_iter);
    else
        snprintf(buf, cap, "%lld iterations", s->total_iters);
}

/* Its users' kernels: the page's editor (--edit), a build that waits for a frame (app/scene.h). */
static ks_variant_set *variant_set_of(void *self)
{
    ks_laplace_scene *s = self;
    return s->set;
}

/* A paused run idles unless this says 1 (or the variant set, for a user's
 * build or difference answer): on the GPU, the residual, slice range and
 * probe that a recent frame asked for are still on their way back
 * (poll_readback). */
static int ready(void *self)
{
    ks_laplace_scene *s = self;
    return s->use_cuda && s->readback_frames > 0;
}

ks_status ks_laplace_mpi_follow(const ks_options *o)
{
    const ks_lmulti_desc md = {ks_laplace_grid(o, 0), 1, NULL, 1, 1};
    ks_lmulti *m = NULL;
    KS_TRY(ks_lmulti_create(&md, &m));
    const ks_status st = ks_lmulti_follow(m);
    ks_lmulti_destroy(m);
    return st;
}

const ks_scene_api ks_scene_laplace_api = {
    .help = "Laplace scene\n"
            "  Tab        next kernel variant\n"
            "  [ / ]      smaller / larger thread block\n"
            "  + / -      double / halve iterations per frame (tblock: whole time blocks)\n"
            "  I          iterations per frame: automatic again (--fps-target, default 60 fps)\n"
            "  X Y Z      slice axis (3D)\n"
            "  arrows     slice index -1 / +1 (3D)\n"
            "  PgUp/PgDn  slice index +10% / -10% (3D)\n"
            "  C          next colormap\n"
            "  A          auto range on / off\n"
            "  R          reset the field\n"
            "  D          difference view: |your kernel - ours| on the slice (--kernel-file)\n"
            "  wheel . ,  zoom in / out at the cursor (to 64 pixels per cell)\n"
            "  drag       pan the zoomed picture (left button)\n"
            "  0 / Home   whole grid again (zoom to fit)\n",
    .create = create,
    .destroy = destroy,
    .variant_set = variant_set_of,
    .ready = ready,
    .stream = stream,
    .zoomable = 1,
    .max_image_size = max_image_size,
    .compute = compute,
    .draw = ks_laplace_scene_draw,
    .key = ks_laplace_scene_key,
    .view = ks_laplace_scene_view,
    .full_picture = ks_laplace_scene_full_picture,
    .finish = finish,
    .status = status,
    .grid_size = grid_size,
    .work_per_frame = work_per_frame,
    .counters = ks_laplace_scene_counters,
};
