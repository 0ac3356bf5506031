/* The Laplace scenes (3D slice view and 2D heatmap) on either backend: the
 * CUDA solver (kernels/laplace.h) or the CPU gold routine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "kernels/common/ks_util.h"
#include "kernels/common/field_histogram.h"
#include "app/best_config.h"

#include "app/scenes/laplace/laplace_user.h"
#include "app/scenes/laplace/live.h"
#include "app/scenes/laplace/live_state.h"
#include "kernels/laplace/laplace_multi.h"
#include "kernels/common/mpi_job.h"

/* CPU backend: a residual at least this often (ms of frames), for the Convergence panel */
#define KS_LAPLACE_CPU_RESIDUAL_MS 250.0

/* Fails unless `fields` fields of the grid fit in the host memory available
 * now (SIZE_MAX: report that an allocation failed). */
static ks_status check_host_memory(const ks_laplace_scene *s, size_t fields)
{
    const double need = (double)ks_grid_bytes(&s->grid) * (fields == SIZE_MAX ? 2.0 : (double)fields);
    char what[96];
    snprintf(what, sizeof what, "grid %dx%dx%d", s->grid.nx, s->grid.ny, s->grid.nz);
    if (fields != SIZE_MAX) return ks_host_memory_check(need, what);
    return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s needs %.2f GiB of host memory, %.2f GiB available",
                   what, need / 1073741824.0, ks_host_memory_available() / 1073741824.0);
}

/* The initial field: built in a temporary buffer (CUDA) or in place (CPU). */
ks_status ks_laplace_scene_upload_initial(ks_laplace_scene *s)
{
    s->total_iters = 0;
    s->residual = -1.0;
    s->residual_iter = 0;
    s->hist_n = 0;
    s->hist_stride = 1;
    s->have_minmax = 0;
    ks_cadence_restart(&s->res_cad); /* the new field's first residual and histogram at once */
    ks_cadence_restart(&s->hist_cad);
    const size_t bytes = ks_grid_bytes(&s->grid);
    if (!s->use_cuda) {
        ks_laplace_fill_initial(&s->grid, s->bc, s->u);
        memcpy(s->u_prev, s->u, bytes);
        return KS_OK;
    }
    float *initial = malloc(bytes);
    if (!initial) return check_host_memory(s, SIZE_MAX);
    ks_laplace_fill_initial(&s->grid, s->bc, initial);
    ks_status st = s->multi ? ks_lmulti_upload(s->multi, initial) : ks_lsolver_upload(s->solver, initial);
    free(initial);
    return st;
}

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

int ks_laplace_scene_view_index(const ks_laplace_scene *s)
{
    return s->multi ? ks_lmulti_slice_index(s->multi, s->axis, s->index) : s->index;
}

static void destroy(void *self)
{
    ks_laplace_scene *s = self;
    if (!s) return;
    ks_laplace_user_destroy(s->user);
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
    KS_TRY(check_host_memory(s, s->use_cuda ? 1 : 2));
    if (!s->use_cuda) {
        s->u = malloc(bytes);
        s->u_prev = malloc(bytes);
        if (!s->u || !s->u_prev) return check_host_memory(s, SIZE_MAX);
    }

    if (s->use_cuda) { /* users' kernels: built and checked before anything runs */
        const ks_laplace_user_desc ud = {opt, env->device, scene_name(s), s->grid, 1, opt->edit};
        KS_TRY(ks_laplace_user_create(&ud, &s->user));
    }
    const int dims = s->grid.dims;
    s->variant = ks_lvariant_default(dims);
    if (s->user && !opt->kernel_count) {
        s->variant = ks_laplace_user_first(s->user); /* the reason for the run */
    } else if (opt->kernel_count) {
        s->variant = ks_lvariant_find(dims, opt->kernels[0]);
    } else if (s->use_cuda && env->best && !opt->block_count) {
        /* No choice made: start with the fastest configuration measured here. */
        const int grid[3] = {s->grid.nx, s->grid.ny, s->grid.nz};
        const ks_best_entry *e = ks_best_find(env->best, env->device->name, scene_name(s), NULL, grid);
        if (e) s->variant = ks_lvariant_find(dims, e->variant);
    }
    if (opt->block_count) memcpy(s->block, opt->blocks[0], sizeof s->block);
    else ks_laplace_scene_default_block(s, s->variant, s->block);
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

void ks_laplace_scene_apply_minmax(ks_laplace_scene *s, float mn, float mx)
{
    s->slice_min = mn;
    s->slice_max = mx;
    s->have_minmax = 1;
    if (s->auto_range) {
        s->lo = mn;
        s->hi = mx > mn ? mx : mn + 1e-6f;
    }
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
    int reloaded = 0, reverted = 0; /* a save of the kernel in use, checked and swapped in; a block refused */
    int block[3]; /* a user's kernel runs only at a block it passed the check with */
    KS_TRY(ks_laplace_user_poll(s->user, s->solver, s->variant, s->block, &reloaded, block, &reverted));
    if (reverted) memcpy(s->block, block, sizeof s->block);
    memcpy(s->run_block, block, sizeof s->run_block);
    if (reloaded) {
        ks_laplace_scene_refresh_attrs(s);
        ks_iters_auto_restart(&s->iters_auto);
    }
    ks_laplace_user_diff(s->user, s->diff_on, s->axis, s->index, &s->diff); /* asks, never waits */
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
    s->stage_jacobi = ks_stage_timer_solver_stage(ctx->timer, "jacobi");
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
    if (s->use_cuda) KS_TRY(compute_cuda(s, ctx, iters));
    else KS_TRY(compute_cpu(s, ctx, iters));
    if (iters > 0) s->last_iters = iters;
    s->total_iters += iters;
    return KS_OK;
}

/* The whole field's values in bins over the colour range, on the frames the
 * picture is drawn: on the GPU (the solver's stream, read back a frame or so
 * later without a stall), on the CPU backend with the gold. */
static ks_status histogram_values(ks_laplace_scene *s, ks_frame_ctx *ctx)
{
    if (s->use_cuda) {
        ks_lhist got;
        if (ks_lsolver_poll_histogram(s->solver, &got)) s->vhist = got;
    }
    /* on its cadence, and on the last frame of a --frames run (what the run ends with) */
    const int frames = s->env->opt->frames;
    const int due = ks_cadence_due(&s->hist_cad) || (frames > 0 && ctx->frame + 1 == frames);
    if (!(s->lo < s->hi) || !due) return KS_OK;
    if (s->use_cuda && ks_lsolver_histogram_pending(s->solver)) {
        /* the last one is still on its way: count this one next frame (and
         * time no request that would be skipped) */
        ks_cadence_restart(&s->hist_cad);
        return KS_OK;
    }
    KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_hist));
    if (s->use_cuda) {
        KS_TRY(ks_lsolver_request_histogram(s->solver, s->lo, s->hi, KS_LAPLACE_HIST_BINS,
                                            s->total_iters));
    } else {
        uint64_t counts[KS_LAPLACE_HIST_BINS] = {0};
        ks_field_hist_gold(s->u, scene_points(s), s->lo, s->hi, KS_LAPLACE_HIST_BINS, counts);
        s->vhist.bins = KS_LAPLACE_HIST_BINS;
        s->vhist.lo = s->lo;
        s->vhist.hi = s->hi;
        s->vhist.iteration = s->total_iters;
        for (int b = 0; b < KS_LAPLACE_HIST_BINS; ++b) s->vhist.counts[b] = (unsigned)counts[b];
    }
    return ks_stage_timer_end(ctx->timer, s->stage_hist);
}

/* --gpus: a white line across the picture where one GPU's slab meets the
 * next (the slow axis runs up the picture in every slice but a 3D z slice,
 * which one GPU holds whole). */
static ks_status draw_decomposition(ks_laplace_scene *s, void *rgba)
{
    if (s->grid.dims == 3 && s->axis == KS_AXIS_Z) return KS_OK;
    unsigned char *pic = rgba;
    const size_t row = (size_t)s->view.x.pixels * 4;
    for (int r = 1; r < ks_lmulti_domains(s->multi); ++r) {
        const int plane = ks_lmulti_slab(s->multi, r)->first;
        for (int q = 0; q < s->view.y.pixels; ++q) {
            int y0, y1;
            ks_cellmap_range(&s->view.y, q, &y0, &y1);
            if (y0 <= plane && plane < y1) { /* the lowest pixel row showing the slab's first plane */
                KS_TRY(ks_lsolver_fill_bytes(s->solver, pic + (size_t)q * row, 0xff, row));
                break;
            }
        }
    }
    return KS_OK;
}

/* 1 when this frame shows the difference view's values: they are of the
 * slice shown (a new slice's are on their way meanwhile: the field). */
int ks_laplace_scene_diff_shown(const ks_laplace_scene *s)
{
    const ks_laplace_diff *d = &s->diff;
    return s->diff_on && d->state == KS_LDIFF_READY && (int)s->axis == d->axis && s->index == d->index &&
           d->w == s->view.x.cells && d->h == s->view.y.cells;
}

/* The difference picture: made on the host (the values came from the check
 * process, and a picture the size of the screen is milliseconds of work) only
 * when the values or the view change, then copied into the frame's picture. */
static ks_status draw_diff(ks_laplace_scene *s, void *rgba)
{
    const size_t bytes = (size_t)s->view.x.pixels * (size_t)s->view.y.pixels * 4;
    if (bytes > s->diff_cap) {
        unsigned char *p = realloc(s->diff_rgba, bytes);
        if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the difference picture");
        s->diff_rgba = p;
        s->diff_cap = bytes;
        s->diff_serial = 0;
    }
    const ks_laplace_diff *d = &s->diff;
    if (s->diff_serial != d->serial || memcmp(&s->diff_map, &s->view, sizeof s->view) != 0) {
        KS_TRY(ks_laplace_diff_render_view(d->values, d->w, d->h, &s->view, scene_diff_range(d), s->diff_rgba));
        s->diff_serial = d->serial;
        s->diff_map = s->view;
    }
    if (s->use_cuda) return ks_lsolver_upload_bytes(s->solver, rgba, s->diff_rgba, bytes);
    memcpy(rgba, s->diff_rgba, bytes);
    return KS_OK;
}

static ks_status draw(void *self, ks_frame_ctx *ctx, void *rgba, int *w, int *h)
{
    ks_laplace_scene *s = self;
    /* the picture of the view: its cost follows the screen, not the grid */
    *w = s->view.x.pixels;
    *h = s->view.y.pixels;
    KS_TRY(ks_stage_timer_begin(ctx->timer, s->stage_slice));
    s->diff_drawn = ks_laplace_scene_diff_shown(s);
    if (s->diff_drawn) {
        KS_TRY(draw_diff(s, rgba));
    } else if (s->use_cuda) {
        KS_TRY(ks_lsolver_render_view(s->solver, s->axis, ks_laplace_scene_view_index(s), &s->view, s->cmap, s->lo,
                                      s->hi, rgba));
        if (s->multi) KS_TRY(draw_decomposition(s, rgba));
    } else
        KS_TRY(ks_laplace_cpu_render_view(&s->grid, s->u, s->axis, s->index, &s->view, s->cmap, s->lo,
                                          s->hi, rgba));
    KS_TRY(ks_stage_timer_end(ctx->timer, s->stage_slice));
    return histogram_values(s, ctx);
}

/* F: the slice at one pixel per cell (not the view), rows top-down. */
static ks_status full_picture(void *self, unsigned char **rgba, int *w, int *h)
{
    ks_laplace_scene *s = self;
    *rgba = NULL;
    ks_slice_dims(&s->grid, s->axis, w, h);
    const size_t row = (size_t)*w * 4;
    unsigned char *p = malloc(row * (size_t)*h);
    if (!p) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory for the %d x %d picture", *w, *h);
    ks_status st = KS_OK;
    if (s->diff_drawn && ks_laplace_scene_diff_shown(s)) { /* what is shown: the difference, one pixel a cell */
        const ks_cellmap one = {{KS_CELLMAP_ONE, 0, *w, *w}, {KS_CELLMAP_ONE, 0, *h, *h}};
        st = ks_laplace_diff_render_view(s->diff.values, s->diff.w, s->diff.h, &one, scene_diff_range(&s->diff), p);
    } else if (s->use_cuda)
        st = ks_lsolver_read_slice_rgba(s->solver, s->axis, ks_laplace_scene_view_index(s), s->cmap, s->lo, s->hi, p);
    else
        ks_laplace_cpu_render_slice(&s->grid, s->u, s->axis, s->index, s->cmap, s->lo, s->hi, p);
    if (st != KS_OK) {
        free(p);
        return st;
    }
    /* the picture's rows are bottom-up; a saved file's top-down */
    for (int y = 0; y < *h / 2; ++y) {
        unsigned char *a = p + (size_t)y * row, *b = p + (size_t)(*h - 1 - y) * row;
        for (size_t i = 0; i < row; ++i) {
            const unsigned char t = a[i];
            a[i] = b[i];
            b[i] = t;
        }
    }
    *rgba = p;
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

static const struct ks_server_editor *editor(void *self)
{
    ks_laplace_scene *s = self;
    return ks_laplace_user_editor(s->user);
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
    .name = "laplace",
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
    .editor = editor,
    .stream = stream,
    .zoomable = 1,
    .max_image_size = max_image_size,
    .compute = compute,
    .draw = draw,
    .key = ks_laplace_scene_key,
    .view = ks_laplace_scene_view,
    .full_picture = full_picture,
    .finish = finish,
    .status = status,
    .grid_size = grid_size,
    .work_per_frame = work_per_frame,
};
