/* Chunks of the marched axis (laplace_chunks.h). */
#include "laplace_chunks.h"

#include <string.h>

unsigned ks_fdiv_up(long long a, long long b) { return (unsigned)((a + b - 1) / b); }

int ks_pick_chunk(int span, long long unit, int group, long long cap, int halo, int min_len)
{
    if (cap < 1) cap = 1;
    int best_len = span;
    double best = -1.0;
    const long long max_groups = (span + group - 1) / group;
    for (long long g = 1; g <= max_groups && g <= 8192; ++g) {
        long long len = (span + g * group - 1) / (g * group);
        if (len < min_len && g > 1) break;
        const long long chunks = (span + len - 1) / len;
        const long long blocks = unit * ((chunks + group - 1) / group);
        const long long waves = (blocks + cap - 1) / cap;
        const double score = (double)blocks / (double)(waves * cap) * (double)len / (double)(len + halo);
        if (score > best + 1e-9) best = score, best_len = (int)len;
    }
    return best_len;
}

ks_status ks_tb_plan_make(const ks_tb_plan_desc *d, ks_tb_plan *out)
{
    memset(out, 0, sizeof *out);
    const int T = d->steps;
    out->lo = d->lo || d->hi ? d->lo : 1;
    out->hi = d->lo || d->hi ? d->hi : d->nz - 1;
    const int span = out->hi - out->lo;
    if (T < 1 || d->tiles < 1 || span < 1 || out->lo < 1 || out->hi > d->nz - 1)
        return ks_fail(KS_ERR_INVALID, "tblock: planes [%d, %d) of a %d-plane grid, %d steps", out->lo, out->hi, d->nz,
                       T);
    const int has_edge = d->edge_hi > d->edge_lo;
    if (has_edge && (d->edge_lo < 1 || d->edge_hi > d->nz - 1 || (d->edge_lo < out->hi && d->edge_hi > out->lo)))
        return ks_fail(KS_ERR_INVALID, "tblock: the edge planes [%d, %d) overlap [%d, %d) or leave the grid",
                       d->edge_lo, d->edge_hi, out->lo, out->hi);
    out->len = out->first_len = ks_pick_chunk(span, d->tiles, 1, d->resident, 2 * T, 4 * T);
    int chunks = (int)ks_fdiv_up(span, out->len);
    if (has_edge) {
        out->edges = 1;
        out->edge_lo = d->edge_lo;
        out->edge_hi = d->edge_hi;
        if (chunks >= 2 && d->tiles * 2 <= d->resident) {
            const int march = d->edge_hi - d->edge_lo + 2 * T;
            int first = (int)ks_fdiv_up(span, chunks) + march * (chunks - 1) / chunks;
            if (first > span - chunks + 1) first = span - chunks + 1; /* each other chunk keeps a plane */
            out->first_len = first;
            out->len = (int)ks_fdiv_up(span - first, chunks - 1);
            chunks = 1 + (int)ks_fdiv_up(span - first, out->len);
        }
    }
    out->chunks = chunks;
    out->low_end = d->low_end;
    if (out->low_end > 0 && (out->low_end <= out->lo || out->low_end > out->lo + out->first_len))
        return ks_fail(KS_ERR_INVALID, "tblock: the low edge [%d, %d) is not within the first chunk of %d planes",
                       out->lo, out->low_end, out->first_len);
    out->signals = (int)(d->tiles * (out->edges + (out->low_end > 0)));
    out->gz = (unsigned)(out->edges + chunks);
    return KS_OK;
}
