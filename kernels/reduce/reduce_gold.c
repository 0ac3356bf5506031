/* Reduce scene, CPU side (reduce.h): variant table, desc defaults and checks,
 * the input formula, the gold in double, tolerances, the CPU backend, and the
 * picture's levels and drawing. */
#include "reduce.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/colormap.h"
#include "base/cpu_threads.h"
#include "base/ks_util.h"
#include "reduce_input.h"

/* ---- variant table ---- */

static const ks_reduce_variant_info ks_reduce_variants[KS_REDUCE_NUM] = {
    [KS_REDUCE_SUM_ATOMIC] = {"sum_atomic", KS_REDUCE_OP_SUM,
                              "grid-stride float4 loads, then one global atomicAdd per thread", 1},
    [KS_REDUCE_SUM_TREE] = {"sum_tree", KS_REDUCE_OP_SUM,
                            "shared-memory tree per block (a __syncthreads per level), partials in a 2nd pass", 1},
    [KS_REDUCE_SUM_SHUFFLE] = {"sum_shuffle", KS_REDUCE_OP_SUM,
                               "warp-shuffle tree per warp, one shared word per warp, partials in a 2nd pass", 1},
    [KS_REDUCE_SUM_ONEPASS] = {"sum_onepass", KS_REDUCE_OP_SUM,
                               "warp shuffles; the last block to finish (counter + threadfence) adds the partials", 1},
    [KS_REDUCE_SUM_CUB] = {"sum_cub", KS_REDUCE_OP_SUM, "cub::DeviceReduce::Sum", 0},
    [KS_REDUCE_SCAN_BLOCKS] = {"scan_blocks", KS_REDUCE_OP_SCAN,
                               "lecture's three phases: block scans in shared memory, scan of block sums, add back", 1},
    [KS_REDUCE_SCAN_SHUFFLE] = {"scan_shuffle", KS_REDUCE_OP_SCAN,
                                "reduce-then-scan: tile sums, scan of them, tiles rescanned with warp shuffles", 1},
    [KS_REDUCE_SCAN_LOOKBACK] = {"scan_lookback", KS_REDUCE_OP_SCAN,
                                 "single pass, decoupled look-back over 8192-element tiles (512 threads)", 0},
    [KS_REDUCE_SCAN_CUB] = {"scan_cub", KS_REDUCE_OP_SCAN, "cub::DeviceScan::InclusiveSum", 0},
};

const ks_reduce_variant_info *ks_reduce_variant_get(ks_reduce_variant v)
{
    return (int)v >= 0 && v < KS_REDUCE_NUM ? &ks_reduce_variants[v] : NULL;
}

int ks_reduce_variant_parse(const char *name, ks_reduce_variant *out)
{
    for (int v = 0; name && v < KS_REDUCE_NUM; ++v)
        if (strcmp(name, ks_reduce_variants[v].name) == 0) {
            *out = (ks_reduce_variant)v;
            return 0;
        }
    return -1;
}

void ks_reduce_variant_list(ks_reduce_op op, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (int v = 0; v < KS_REDUCE_NUM; ++v) {
        if (op != KS_REDUCE_OP_NUM && ks_reduce_variants[v].op != op) continue;
        const int n = snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "",
                               ks_reduce_variants[v].name);
        if (n > 0) used += (size_t)n;
        if (used >= len) break;
    }
}

const char *ks_reduce_op_name(ks_reduce_op op)
{
    return op == KS_REDUCE_OP_SUM ? "sum" : op == KS_REDUCE_OP_SCAN ? "scan" : "?";
}

ks_reduce_variant ks_reduce_cub_variant(ks_reduce_op op)
{
    return op == KS_REDUCE_OP_SCAN ? KS_REDUCE_SCAN_CUB : KS_REDUCE_SUM_CUB;
}

double ks_reduce_model_bytes(ks_reduce_variant v, long long n)
{
    const ks_reduce_variant_info *i = ks_reduce_variant_get(v);
    if (!i) return 0.0;
    return i->op == KS_REDUCE_OP_SCAN ? 8.0 * (double)n : 4.0 * (double)n;
}

/* ---- desc ---- */

ks_reduce_desc ks_reduce_desc_defaults(const ks_reduce_desc *d)
{
    ks_reduce_desc r = {0};
    if (d) r = *d;
    if (r.n == 0) r.n = KS_REDUCE_DEFAULT_N;
    if (r.seed == 0) r.seed = KS_REDUCE_DEFAULT_SEED;
    if (r.block == 0) r.block = KS_REDUCE_DEFAULT_BLOCK;
    if (r.input == KS_REDUCE_INPUT_DEFAULT) r.input = KS_REDUCE_INPUT_RANDOM;
    return r;
}

ks_status ks_reduce_desc_check(const ks_reduce_desc *d)
{
    const ks_reduce_desc r = ks_reduce_desc_defaults(d);
    if (r.n < 1 || r.n > KS_REDUCE_MAX_N)
        return ks_fail(KS_ERR_INVALID, "reduce: %lld elements: the count must be 1..%lld", r.n, KS_REDUCE_MAX_N);
    if (r.block < KS_REDUCE_MIN_BLOCK || r.block > KS_REDUCE_MAX_BLOCK || (r.block & (r.block - 1)))
        return ks_fail(KS_ERR_INVALID, "reduce: block size %d: must be a power of two from %d to %d", r.block,
                       KS_REDUCE_MIN_BLOCK, KS_REDUCE_MAX_BLOCK);
    if ((int)r.input < 0 || r.input >= KS_REDUCE_INPUT_NUM)
        return ks_fail(KS_ERR_INVALID, "reduce: unknown input kind %d", (int)r.input);
    return KS_OK;
}

/* ---- inputs and the gold ---- */

float ks_reduce_input_value(ks_reduce_input kind, unsigned seed, long long i)
{
    return ks_reduce_value(kind == KS_REDUCE_INPUT_INTEGER, seed ? seed : KS_REDUCE_DEFAULT_SEED, i);
}

void ks_reduce_fill(ks_reduce_input kind, unsigned seed, float *x, long long n)
{
    const int integer = kind == KS_REDUCE_INPUT_INTEGER;
    if (seed == 0) seed = KS_REDUCE_DEFAULT_SEED;
#pragma omp parallel for schedule(static) num_threads(ks_cpu_threads((size_t)n))
    for (long long i = 0; i < n; ++i) x[i] = ks_reduce_value(integer, seed, i);
}

double ks_reduce_gold_sum(const float *x, long long n)
{
    double s = 0.0;
    for (long long i = 0; i < n; ++i) s += x[i];
    return s;
}

double ks_reduce_abs_sum(const float *x, long long n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static) num_threads(ks_cpu_threads((size_t)n))
    for (long long i = 0; i < n; ++i) s += fabs((double)x[i]);
    return s;
}

void ks_reduce_gold_scan(const float *x, float *y, long long n)
{
    double s = 0.0;
    for (long long i = 0; i < n; ++i) {
        s += x[i];
        y[i] = (float)s;
    }
}

/* ---- tolerances ---- */

static double reduce_growth(double n)
{
    return 2.0 * sqrt(n) + log2(n) + 2.0;
}

double ks_reduce_sum_tolerance(long long n, double abs_sum)
{
    return n < 1 ? 0.0 : ldexp(1.0, -24) * reduce_growth((double)n) * abs_sum;
}

double ks_reduce_scan_tolerance(long long i, double prefix_abs_sum)
{
    return i < 0 ? 0.0 : ldexp(1.0, -24) * reduce_growth((double)i + 1.0) * prefix_abs_sum;
}

int ks_reduce_sum_check(double got, double gold, long long n, double abs_sum, int exact)
{
    if (isnan(got)) return -1;
    const double err = fabs(got - gold);
    return exact ? (err == 0.0 ? 0 : -1) : (err <= ks_reduce_sum_tolerance(n, abs_sum) ? 0 : -1);
}

long long ks_reduce_scan_mismatch(const float *x, const float *want, const float *got, long long n, int exact,
                                  ks_reduce_mismatch *m)
{
    m->index = -1;
    m->got = m->want = 0.0f;
    m->max_err = 0.0;
    m->max_index = -1;
    double prefix_abs = 0.0;
    for (long long i = 0; i < n; ++i) {
        prefix_abs += fabs((double)x[i]);
        const double err = isnan(got[i]) ? INFINITY : fabs((double)got[i] - (double)want[i]);
        if (err > m->max_err || m->max_index < 0) {
            m->max_err = err;
            m->max_index = i;
        }
        const int bad = exact ? err != 0.0 : !(err <= ks_reduce_scan_tolerance(i, prefix_abs));
        if (bad && m->index < 0) {
            m->index = i;
            m->got = got[i];
            m->want = want[i];
        }
    }
    return m->index;
}

/* ---- CPU backend ---- */

double ks_reduce_cpu_sum(const float *x, long long n)
{
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static) num_threads(ks_cpu_threads((size_t)n))
    for (long long i = 0; i < n; ++i) s += x[i];
    return s;
}

/* Two passes over per-thread chunks: chunk sums (double), their exclusive scan,
 * then each chunk scanned from its offset (double, stored as float). */
void ks_reduce_cpu_scan(const float *x, float *y, long long n)
{
    int threads = 1;
#ifdef _OPENMP
    threads = ks_cpu_threads((size_t)n); /* 1 below two threads' worth (cpu_threads.h) */
#endif
    if (threads < 2) {
        ks_reduce_gold_scan(x, y, n);
        return;
    }
    double *part = calloc((size_t)threads + 1, sizeof *part);
    if (!part) {
        ks_reduce_gold_scan(x, y, n);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        const long long b = n * t / nt, e = n * (t + 1) / nt;
        double s = 0.0;
        for (long long i = b; i < e; ++i) s += x[i];
        part[t + 1] = s;
#pragma omp barrier
#pragma omp single
        for (int k = 1; k <= nt; ++k) part[k] += part[k - 1];
        s = part[t];
        for (long long i = b; i < e; ++i) {
            s += x[i];
            y[i] = (float)s;
        }
    }
    free(part);
}

/* ---- levels and the picture ---- */

long long ks_reduce_levels_layout(ks_reduce_op op, long long n, int block, ks_reduce_levels *lv)
{
    memset(lv, 0, sizeof *lv);
    lv->op = op;
    lv->block = block;
    if (op == KS_REDUCE_OP_SCAN) {
        lv->count = 4;
        lv->len[0] = n;
        lv->len[1] = n;
        lv->len[2] = (n + block - 1) / block;
        lv->len[3] = n;
    } else {
        long long len = n;
        lv->len[lv->count++] = len;
        do {
            len = (len + block - 1) / block;
            lv->len[lv->count++] = len;
        } while (len > 1 && lv->count < KS_REDUCE_MAX_LEVELS);
    }
    long long off = 0;
    for (int s = 0; s < lv->count; ++s) {
        lv->offset[s] = off;
        off += lv->len[s];
    }
    return off;
}

void ks_reduce_levels_describe(const ks_reduce_levels *lv, char *buf, size_t cap)
{
    if (!buf || !cap) return;
    buf[0] = '\0';
    size_t used = 0;
    if (lv->count < 1) return;
    ks_text_append(buf, cap, &used, "%lld values", lv->len[0]);
    if (lv->op == KS_REDUCE_OP_SCAN) {
        if (lv->count == 4)
            ks_text_append(buf, cap, &used, "; their scans within blocks of %d; the %lld block sums; the scan",
                           lv->block, lv->len[2]);
        return;
    }
    for (int s = 1; s < lv->count; ++s) {
        if (lv->len[s] == 1) ks_text_append(buf, cap, &used, "; the total");
        else ks_text_append(buf, cap, &used, "; %lld sums of %d", lv->len[s], lv->block);
    }
}

void ks_reduce_levels_strip_name(const ks_reduce_levels *lv, int s, char *buf, size_t cap)
{
    if (!buf || !cap) return;
    buf[0] = '\0';
    size_t used = 0;
    if (s < 0 || s >= lv->count) return;
    if (s == 0) ks_text_append(buf, cap, &used, "%lld values", lv->len[0]);
    else if (lv->op == KS_REDUCE_OP_SCAN && s == 1) ks_text_append(buf, cap, &used, "scans within blocks of %d", lv->block);
    else if (lv->op == KS_REDUCE_OP_SCAN && s == 2) ks_text_append(buf, cap, &used, "%lld block sums", lv->len[2]);
    else if (lv->op == KS_REDUCE_OP_SCAN) ks_text_append(buf, cap, &used, "the scan");
    else if (lv->len[s] == 1) ks_text_append(buf, cap, &used, "the total");
    else ks_text_append(buf, cap, &used, "%lld sums of %d", lv->len[s], lv->block);
}

int ks_reduce_levels_at(const ks_reduce_levels *lv, int w, int h, int a, int b, int *strip, long long *index)
{
    if (lv->count < 1 || w < 1 || h < 1 || a < 0 || b < 0 || a >= w || b >= h) return 0;
    const int r = h - 1 - b; /* rows from the top, as the strips go */
    const int s = (int)((long long)r * lv->count / h);
    *strip = s;
    *index = (long long)a * lv->len[s] / w;
    return 1;
}

void ks_reduce_levels_element(const ks_reduce_levels *lv, int strip, long long i, char *buf, size_t cap)
{
    if (!buf || !cap) return;
    buf[0] = '\0';
    if (strip < 0 || strip >= lv->count || i < 0 || i >= lv->len[strip]) return;
    const long long B = lv->block;
    if (strip == 0) {
        snprintf(buf, cap, "value %lld of %lld", i, lv->len[0]);
    } else if (lv->op == KS_REDUCE_OP_SCAN) {
        const long long n = lv->len[0];
        if (strip == 1)
            snprintf(buf, cap, "block scan at %lld: values %lld .. %lld", i, i / B * B, i);
        else if (strip == 2)
            snprintf(buf, cap, "block sum %lld of %lld: values %lld .. %lld", i, lv->len[2], i * B,
                     ((i + 1) * B < n ? (i + 1) * B : n) - 1);
        else
            snprintf(buf, cap, "scan at %lld: values 0 .. %lld", i, i);
    } else {
        const long long above = lv->len[strip - 1], hi = ((i + 1) * B < above ? (i + 1) * B : above) - 1;
        const char *what = strip == 1 ? "values" : "sums";
        if (lv->len[strip] == 1)
            snprintf(buf, cap, "the total of the %lld %s above", above, what);
        else
            snprintf(buf, cap, "sum %lld of %lld: %s %lld .. %lld", i, lv->len[strip], what, i * B, hi);
    }
}

void ks_reduce_levels_scales(ks_reduce_levels *lv, const float *data)
{
    for (int s = 0; s < lv->count; ++s) {
        const float *p = data + lv->offset[s];
        float m = 0.0f;
        for (long long i = 0; i < lv->len[s]; ++i) {
            const float a = fabsf(p[i]);
            if (a > m) m = a;
        }
        lv->scale[s] = m > 0.0f ? m : 1.0f;
    }
}

void ks_reduce_levels_cpu(ks_reduce_op op, const float *x, long long n, int block, float *data, ks_reduce_levels *lv)
{
    ks_reduce_levels_layout(op, n, block, lv);
    memcpy(data, x, (size_t)n * sizeof *x);
    if (op == KS_REDUCE_OP_SCAN) {
        float *local = data + lv->offset[1], *sums = data + lv->offset[2];
#pragma omp parallel for schedule(static) num_threads(ks_cpu_threads((size_t)n))
        for (long long b = 0; b < lv->len[2]; ++b) {
            const long long e = (b + 1) * block < n ? (b + 1) * block : n;
            double s = 0.0;
            for (long long i = b * block; i < e; ++i) {
                s += x[i];
                local[i] = (float)s;
            }
            sums[b] = (float)s;
        }
        ks_reduce_gold_scan(x, data + lv->offset[3], n);
    } else {
        for (int s = 1; s < lv->count; ++s) {
            const float *in = data + lv->offset[s - 1];
            float *out = data + lv->offset[s];
            const long long len = lv->len[s - 1];
#pragma omp parallel for schedule(static) num_threads(ks_cpu_threads((size_t)len))
            for (long long b = 0; b < lv->len[s]; ++b) {
                const long long e = (b + 1) * block < len ? (b + 1) * block : len;
                double acc = 0.0;
                for (long long i = b * block; i < e; ++i) acc += in[i];
                out[b] = (float)acc;
            }
        }
    }
    ks_reduce_levels_scales(lv, data);
}

void ks_reduce_draw_cpu(const ks_reduce_levels *lv, const float *data, int w, int h, const unsigned char lut[256][4],
                        float lo, float hi, unsigned char *rgba)
{
    const float inv_span = ks_colormap_inv_span(lo, hi);
    float inv_scale[KS_REDUCE_MAX_LEVELS];
    for (int s = 0; s < lv->count; ++s) inv_scale[s] = 1.0f / lv->scale[s];
    for (int y = 0; y < h; ++y) {
        const int r = h - 1 - y; /* from the top */
        const int s = (int)((long long)r * lv->count / h);
        const int first = (int)(((long long)s * h + lv->count - 1) / lv->count);
        unsigned char *row = rgba + (size_t)y * w * 4;
        for (int c = 0; c < w; ++c) {
            unsigned char *px = row + (size_t)c * 4;
            if (s > 0 && r == first) {
                px[0] = px[1] = px[2] = 0;
                px[3] = 255;
                continue;
            }
            const long long idx = (long long)c * lv->len[s] / w;
            const float v = data[lv->offset[s] + idx] * inv_scale[s];
            const unsigned char *e = lut[ks_colormap_index(v, lo, inv_span)];
            px[0] = e[0];
            px[1] = e[1];
            px[2] = e[2];
            px[3] = e[3];
        }
    }
}
