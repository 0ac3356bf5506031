/* The timeline's pure parts: the rings the worker fills and the live loop
 * reads, the clock alignment, and what a strip chart draws. No CUPTI here:
 * the cpu tests feed them recorded samples and spans. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

/* ---- Rings ---- */

ks_status ks_tl_ring_init(ks_tl_ring *r, size_t item_size, uint64_t capacity)
{
    memset(r, 0, sizeof *r);
    if (item_size == 0 || capacity < 2 || capacity > ((uint64_t)1 << 32))
        return ks_fail(KS_ERR_INVALID, "timeline: a ring of %llu items of %zu bytes", (unsigned long long)capacity,
                       item_size);
    r->items = calloc((size_t)capacity, item_size);
    if (r->items == NULL)
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "timeline: no memory for %llu items", (unsigned long long)capacity);
    r->item_size = item_size;
    r->capacity = capacity;
    return KS_OK;
}

void ks_tl_ring_free(ks_tl_ring *r)
{
    free(r->items);
    memset(r, 0, sizeof *r);
}

void ks_tl_ring_push(ks_tl_ring *r, const void *item)
{
    const uint64_t h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    memcpy((char *)r->items + (size_t)(h % r->capacity) * r->item_size, item, r->item_size);
    /* publish after the item is whole */
    __atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
}

uint64_t ks_tl_ring_pushed(const ks_tl_ring *r) { return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE); }

int ks_tl_ring_read(const ks_tl_ring *r, void *out, int max, uint64_t *first_seq)
{
    if (first_seq) *first_seq = 0;
    if (r->items == NULL || out == NULL || max <= 0) return 0;
    const uint64_t h1 = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    uint64_t n = h1 < (uint64_t)max ? h1 : (uint64_t)max;
    if (n > r->capacity - 1) n = r->capacity - 1; /* the slot being written next is never read */
    const uint64_t first = h1 - n;
    for (uint64_t i = 0; i < n; ++i)
        memcpy((char *)out + (size_t)i * r->item_size,
               (const char *)r->items + (size_t)((first + i) % r->capacity) * r->item_size, r->item_size);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    const uint64_t h2 = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    /* While copying, the writer may have published up to h2 - 1 and be writing
     * item h2: every item older than h2 - capacity + 1 may be overwritten. */
    const uint64_t safe = h2 + 1 > r->capacity ? h2 + 1 - r->capacity : 0;
    uint64_t skip = safe > first ? safe - first : 0;
    if (skip > n) skip = n;
    if (skip > 0) memmove(out, (char *)out + (size_t)skip * r->item_size, (size_t)(n - skip) * r->item_size);
    if (first_seq) *first_seq = first + skip;
    return (int)(n - skip);
}

/* ---- Clocks ---- */

/* A piecewise-constant fit: the span edges, moved by a lag, cut the time
 * axis into segments; each sample (by its middle) falls in one, and the
 * activity is modelled as constant in each. The lag whose segments explain
 * the samples best (least squared error, DRAM and SM together) is where the
 * edges of the activity are. Kernels back to back (a spin next to a copy)
 * are told apart by their own levels, not only by busy against idle. */
typedef struct lag_fit {
    int64_t lag;
    double sse;
    int set;
} lag_fit;

typedef struct fit_data {
    int64_t *mid;      /* each usable sample's middle */
    double (*v)[2];    /* its DRAM and SM % (NaN: not sampled) */
    int n;
    int64_t *edge;     /* the spans' starts and ends, sorted */
    int nedges;
    double (*acc)[2][3]; /* per segment and metric: count, sum, sum of squares */
} fit_data;

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static void fit_data_free(fit_data *f)
{
    free(f->mid);
    free(f->v);
    free(f->edge);
    free(f->acc);
    memset(f, 0, sizeof *f);
}

/* 0 when there is nothing to fit (no sample with a figure, no span) or no memory. */
static int fit_data_init(fit_data *f, const ks_tl_sample *s, int ns, const ks_tl_span *spans, int nspans)
{
    memset(f, 0, sizeof *f);
    if (s == NULL || spans == NULL || ns <= 0 || nspans <= 0) return 0;
    f->mid = malloc((size_t)ns * sizeof *f->mid);
    f->v = malloc((size_t)ns * sizeof *f->v);
    f->edge = malloc((size_t)nspans * 2 * sizeof *f->edge);
    f->acc = malloc(((size_t)nspans * 2 + 1) * sizeof *f->acc);
    if (f->mid == NULL || f->v == NULL || f->edge == NULL || f->acc == NULL) {
        fit_data_free(f);
        return 0;
    }
    for (int i = 0; i < ns; ++i) {
        if (isnan(s[i].dram_pct) && isnan(s[i].sm_pct)) continue;
        f->mid[f->n] = (int64_t)(s[i].t0_ns / 2 + s[i].t1_ns / 2);
        f->v[f->n][0] = s[i].dram_pct;
        f->v[f->n][1] = s[i].sm_pct;
        ++f->n;
    }
    for (int k = 0; k < nspans; ++k) {
        f->edge[f->nedges++] = (int64_t)spans[k].start_ns;
        f->edge[f->nedges++] = (int64_t)spans[k].end_ns;
    }
    qsort(f->edge, (size_t)f->nedges, sizeof *f->edge, cmp_i64);
    if (f->n == 0) {
        fit_data_free(f);
        return 0;
    }
    return 1;
}

/* Edges at or before t: the segment t falls in. */
static int segment_of(const fit_data *f, int64_t t)
{
    int lo = 0, hi = f->nedges;
    while (lo < hi) {
        const int m = (lo + hi) / 2;
        if (f->edge[m] <= t)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

static double sse_at(fit_data *f, int64_t lag)
{
    const int nseg = f->nedges + 1;
    memset(f->acc, 0, (size_t)nseg * sizeof *f->acc);
    for (int i = 0; i < f->n; ++i) {
        const int g = segment_of(f, f->mid[i] - lag); /* the edges moved by lag */
        for (int m = 0; m < 2; ++m) {
            const double x = f->v[i][m];
            if (isnan(x)) continue;
            f->acc[g][m][0] += 1.0;
            f->acc[g][m][1] += x;
            f->acc[g][m][2] += x * x;
        }
    }
    double sse = 0.0;
    for (int g = 0; g < nseg; ++g)
        for (int m = 0; m < 2; ++m)
            if (f->acc[g][m][0] > 0) sse += f->acc[g][m][2] - f->acc[g][m][1] * f->acc[g][m][1] / f->acc[g][m][0];
    return sse;
}

/* The best lag in [lo, hi] (steps of step); ties go to the lag nearest prefer. */
static lag_fit fit_range(fit_data *f, int64_t lo, int64_t hi, int64_t step, int64_t prefer)
{
    lag_fit best = {0, INFINITY, 0};
    for (int64_t lag = lo; lag <= hi; lag += step) {
        const double sse = sse_at(f, lag);
        const double tol = 1e-9 * (1.0 + fabs(best.sse));
        if (!best.set || sse < best.sse - tol ||
            (fabs(sse - best.sse) <= tol && llabs(lag - prefer) < llabs(best.lag - prefer))) {
            best.lag = lag;
            best.sse = sse;
            best.set = 1;
        }
    }
    return best;
}

int64_t ks_tl_best_lag(const ks_tl_sample *s, int ns, const ks_tl_span *spans, int nspans, int64_t max_lag_ns,
                       int64_t step_ns)
{
    if (step_ns <= 0 || max_lag_ns < 0) return 0;
    fit_data f;
    if (!fit_data_init(&f, s, ns, spans, nspans)) return 0;
    const lag_fit best = fit_range(&f, -(max_lag_ns / step_ns) * step_ns, max_lag_ns, step_ns, 0);
    fit_data_free(&f);
    return best.set ? best.lag : 0;
}

/* Mean SM % (DRAM % where SM was not sampled) of the samples inside [a, b) minus outside it. */
static double contrast_of(const ks_tl_sample *s, int ns, int64_t a, int64_t b)
{
    int use_sm = 0;
    for (int i = 0; i < ns && !use_sm; ++i) use_sm = !isnan(s[i].sm_pct);
    double in = 0, out = 0;
    int nin = 0, nout = 0;
    for (int i = 0; i < ns; ++i) {
        const double x = use_sm ? s[i].sm_pct : s[i].dram_pct;
        if (isnan(x)) continue;
        const int64_t mid = (int64_t)(s[i].t0_ns / 2 + s[i].t1_ns / 2);
        if (mid >= a && mid < b) {
            in += x;
            ++nin;
        } else {
            out += x;
            ++nout;
        }
    }
    return nin > 0 && nout > 0 ? in / nin - out / nout : NAN;
}

ks_tl_clock_fit ks_tl_fit_clock(const ks_tl_sample *s, int ns, uint64_t cpu_start, uint64_t cpu_end,
                                int64_t gpu_minus_cpu_ns, int64_t interval_ns)
{
    ks_tl_clock_fit out;
    memset(&out, 0, sizeof out);
    out.domain = KS_TL_DOMAIN_CPU;
    out.contrast = NAN;
    if (interval_ns < 1000) interval_ns = 1000;
    /* searched: each clock, 2 ms around it (a clock of its own nearby shows too) */
    const int64_t tol = 2 * interval_ns, window = 4 * interval_ns > 2000000 ? 4 * interval_ns : 2000000;
    const int64_t step = interval_ns / 4 > 1000 ? interval_ns / 4 : 1000;
    const int64_t off = gpu_minus_cpu_ns;
    out.distinct = llabs(off) > 2 * tol;
    if (cpu_end <= cpu_start) return out;
    ks_tl_span marker;
    memset(&marker, 0, sizeof marker);
    marker.start_ns = cpu_start;
    marker.end_ns = cpu_end;
    fit_data f;
    if (!fit_data_init(&f, s, ns, &marker, 1)) return out;
    lag_fit best;
    const int64_t lo = (off < 0 ? off : 0) - window, hi = (off > 0 ? off : 0) + window;
    if (hi - lo <= 40000000) {
        best = fit_range(&f, lo, hi, step, 0); /* one search over both clocks and what lies between */
    } else {
        /* clocks far apart: only around each */
        best = fit_range(&f, -window, window, step, 0);
        const lag_fit g = fit_range(&f, off - window, off + window, step, off);
        if (g.set && (!best.set || g.sse < best.sse)) best = g;
    }
    fit_data_free(&f);
    if (!best.set) return out;
    out.fitted_ns = best.lag;
    out.contrast = contrast_of(s, ns, (int64_t)cpu_start + best.lag, (int64_t)cpu_end + best.lag);
    /* the marker keeps every SM busy: without a clear step the samples tell nothing */
    out.measured = !isnan(out.contrast) && out.contrast >= 20.0;
    if (!out.measured) return out;
    const int64_t to_cpu = llabs(best.lag), to_gpu = llabs(best.lag - off);
    if (to_cpu <= tol && to_cpu <= to_gpu) {
        out.domain = KS_TL_DOMAIN_CPU;
        out.samples_minus_cpu_ns = 0;
    } else if (to_gpu <= tol) {
        out.domain = KS_TL_DOMAIN_GPU;
        out.samples_minus_cpu_ns = off;
    } else {
        out.domain = KS_TL_DOMAIN_OTHER;
        out.samples_minus_cpu_ns = best.lag;
    }
    return out;
}

/* ---- Strip chart ---- */

static int cmp_span_start(const void *a, const void *b)
{
    const ks_tl_span *x = *(const ks_tl_span *const *)a, *y = *(const ks_tl_span *const *)b;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns ? 1 : 0;
}

ks_status ks_tl_strip_build(const ks_tl_sample *s, int ns, const ks_tl_span *spans, int nspans, uint64_t t1,
                            uint64_t window_ns, int width, int label_px, ks_tl_strip *out)
{
    if (out == NULL || width < 1 || width > KS_TL_STRIP_COLUMNS || window_ns == 0 || ns < 0 || nspans < 0 ||
        (ns > 0 && s == NULL) || (nspans > 0 && spans == NULL))
        return ks_fail(KS_ERR_INVALID, "timeline: a strip of %d columns over %llu ns", width,
                       (unsigned long long)window_ns);
    memset(out, 0, sizeof *out);
    out->width = width;
    if (t1 == 0) {
        for (int i = 0; i < ns; ++i)
            if (s[i].t1_ns > t1) t1 = s[i].t1_ns;
        for (int i = 0; i < nspans; ++i)
            if (spans[i].end_ns > t1) t1 = spans[i].end_ns;
    }
    const uint64_t t0 = t1 > window_ns ? t1 - window_ns : 0;
    out->t0_ns = t0;
    out->t1_ns = t1;
    const double col_ns = (double)(t1 - t0) / width;

    /* samples: each column the time-weighted mean of what overlaps it */
    static const int metrics = 2;
    double sum[2][KS_TL_STRIP_COLUMNS], wsum[2][KS_TL_STRIP_COLUMNS];
    memset(sum, 0, sizeof sum);
    memset(wsum, 0, sizeof wsum);
    double all_sum[2] = {0, 0}, all_w[2] = {0, 0};
    for (int i = 0; i < ns && col_ns > 0; ++i) {
        const uint64_t a = s[i].t0_ns > t0 ? s[i].t0_ns : t0, b = s[i].t1_ns < t1 ? s[i].t1_ns : t1;
        if (b <= a) continue;
        const double v[2] = {s[i].dram_pct, s[i].sm_pct};
        int c0 = (int)((double)(a - t0) / col_ns), c1 = (int)((double)(b - t0) / col_ns);
        if (c1 >= width) c1 = width - 1;
        for (int c = c0; c <= c1; ++c) {
            const double lo = t0 + c * col_ns, hi = lo + col_ns;
            const double ov = fmin((double)b, hi) - fmax((double)a, lo);
            if (ov <= 0) continue;
            for (int m = 0; m < metrics; ++m) {
                if (isnan(v[m])) continue;
                sum[m][c] += ov * v[m];
                wsum[m][c] += ov;
            }
        }
        for (int m = 0; m < metrics; ++m) {
            if (isnan(v[m])) continue;
            all_sum[m] += (double)(b - a) * v[m];
            all_w[m] += (double)(b - a);
        }
    }
    for (int c = 0; c < width; ++c) {
        out->dram_pct[c] = wsum[0][c] > 0 ? (float)(sum[0][c] / wsum[0][c]) : NAN;
        out->sm_pct[c] = wsum[1][c] > 0 ? (float)(sum[1][c] / wsum[1][c]) : NAN;
    }
    out->dram_mean_pct = all_w[0] > 0 ? all_sum[0] / all_w[0] : NAN;
    out->sm_mean_pct = all_w[1] > 0 ? all_sum[1] / all_w[1] : NAN;

    /* spans: oldest first; a span that starts in a column the previous mark
     * still covers joins it when it is the same kernel (a sweep of launches is
     * one mark). A kernel of another name keeps a mark of its own, so the small
     * kernels between sweeps (a residual, a colormap) stay visible whatever the
     * window: the previous mark gives up the columns from where this one starts,
     * or, when that would leave it none, this one starts after it; only with no
     * column left does it join. */
    const ks_tl_span **order = nspans > 0 ? malloc((size_t)nspans * sizeof *order) : NULL;
    if (nspans > 0 && order == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "timeline: no memory for %d spans", nspans);
    int n = 0;
    for (int i = 0; i < nspans; ++i)
        if (spans[i].end_ns > t0 && spans[i].start_ns < t1 && spans[i].end_ns >= spans[i].start_ns)
            order[n++] = &spans[i];
    if (n > 1) qsort(order, (size_t)n, sizeof *order, cmp_span_start);
    uint64_t longest = 0; /* of the mark being built */
    for (int i = 0; i < n; ++i) {
        const ks_tl_span *sp = order[i];
        const uint64_t a = sp->start_ns > t0 ? sp->start_ns : t0, b = sp->end_ns < t1 ? sp->end_ns : t1;
        int x0 = (int)floor((double)(a - t0) / col_ns), x1 = (int)ceil((double)(b - t0) / col_ns);
        if (x0 >= width) x0 = width - 1;
        if (x0 < 0) x0 = 0;
        if (x1 > width) x1 = width;
        if (x1 <= x0) x1 = x0 + 1;
        ks_tl_mark *prev = out->nmarks > 0 ? &out->marks[out->nmarks - 1] : NULL;
        if (prev != NULL && x0 < prev->x1 && strcmp(prev->name, sp->name) != 0) {
            if (x0 > prev->x0) {
                prev->x1 = x0;
                prev->label = prev->x1 - prev->x0 >= label_px;
            } else if (prev->x1 < width) {
                x0 = prev->x1;
                if (x1 <= x0) x1 = x0 + 1;
            }
        }
        if (prev != NULL && x0 < prev->x1) {
            if (x1 > prev->x1) prev->x1 = x1;
            prev->count++;
            if (sp->end_ns - sp->start_ns > longest) {
                longest = sp->end_ns - sp->start_ns;
                snprintf(prev->name, sizeof prev->name, "%s", sp->name);
            }
            prev->label = prev->x1 - prev->x0 >= label_px;
            continue;
        }
        if (out->nmarks == KS_TL_STRIP_MARKS) {
            /* keep the newest: the live edge matters most */
            memmove(&out->marks[0], &out->marks[1], (KS_TL_STRIP_MARKS - 1) * sizeof out->marks[0]);
            out->nmarks--;
            out->marks_dropped++;
        }
        ks_tl_mark *m = &out->marks[out->nmarks++];
        m->x0 = x0;
        m->x1 = x1;
        m->count = 1;
        snprintf(m->name, sizeof m->name, "%s", sp->name);
        m->label = x1 - x0 >= label_px;
        longest = sp->end_ns - sp->start_ns;
    }
    free(order);
    return KS_OK;
}

void ks_tl_short_name(const char *full, char *out, size_t cap)
{
    if (out == NULL || cap == 0) return;
    if (full == NULL) full = "";
    if (strncmp(full, "void ", 5) == 0) full += 5; /* a template's demangled return type */
    size_t n = strcspn(full, "(");
    if (n >= cap) n = cap - 1;
    memcpy(out, full, n);
    out[n] = '\0';
}

ks_tl_sample ks_tl_decode_sample(uint64_t t0_ns, uint64_t t1_ns, double dram_pct, double dram_read_pct,
                                 double dram_write_pct, double sm_pct)
{
    ks_tl_sample s;
    s.t0_ns = t0_ns;
    s.t1_ns = t1_ns;
    double dram = dram_pct;
    if (isnan(dram) && !isnan(dram_read_pct) && !isnan(dram_write_pct)) dram = dram_read_pct + dram_write_pct;
    s.dram_pct = (float)dram;
    s.sm_pct = (float)sm_pct;
    return s;
}
