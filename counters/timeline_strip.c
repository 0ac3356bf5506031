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

static uint64_t abs_diff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

ks_tl_domain ks_tl_pick_domain(uint64_t sample_ns, uint64_t cpu_now_ns, int64_t gpu_minus_cpu_ns,
                               int64_t max_skew_ns)
{
    if (llabs(gpu_minus_cpu_ns) <= llabs(max_skew_ns)) return KS_TL_DOMAIN_GPU;
    const uint64_t gpu_now = cpu_now_ns + (uint64_t)gpu_minus_cpu_ns; /* modular: an offset may be negative */
    return abs_diff(sample_ns, gpu_now) <= abs_diff(sample_ns, cpu_now_ns) ? KS_TL_DOMAIN_GPU : KS_TL_DOMAIN_CPU;
}

/* The activity a sample shows: DRAM %, else SM %. */
static double activity(const ks_tl_sample *s) { return !isnan(s->dram_pct) ? s->dram_pct : s->sm_pct; }

int64_t ks_tl_best_lag(const ks_tl_sample *s, int ns, const ks_tl_span *spans, int nspans, int64_t max_lag_ns,
                       int64_t step_ns)
{
    if (s == NULL || spans == NULL || ns <= 0 || nspans <= 0 || step_ns <= 0 || max_lag_ns < 0) return 0;
    int64_t best = 0;
    double best_score = -INFINITY;
    int best_set = 0;
    for (int64_t lag = -max_lag_ns; lag <= max_lag_ns; lag += step_ns) {
        double in_sum = 0, out_sum = 0;
        int in_n = 0, out_n = 0;
        for (int i = 0; i < ns; ++i) {
            const double a = activity(&s[i]);
            if (isnan(a)) continue;
            const int64_t mid = (int64_t)(s[i].t0_ns / 2 + s[i].t1_ns / 2);
            int inside = 0;
            for (int k = 0; k < nspans && !inside; ++k)
                inside = mid >= (int64_t)spans[k].start_ns + lag && mid < (int64_t)spans[k].end_ns + lag;
            if (inside) {
                in_sum += a;
                ++in_n;
            } else {
                out_sum += a;
                ++out_n;
            }
        }
        if (in_n == 0 || out_n == 0) continue;
        const double score = in_sum / in_n - out_sum / out_n;
        /* ties: the lag nearest zero */
        if (score > best_score + 1e-9 || (fabs(score - best_score) <= 1e-9 && llabs(lag) < llabs(best))) {
            best_score = score;
            best = lag;
            best_set = 1;
        }
    }
    return best_set ? best : 0;
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
     * still covers joins it */
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
