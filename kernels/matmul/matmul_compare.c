/* C against an expected C, with a tolerance (matmul.h, ks_matmul_compare). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "matmul.h"

double ks_matmul_check_tolerance(int k)
{
    /* the rounding bound of a float32 sum of K products, each at most 1.5 in size
       (matmul.h's A and B): below the 1/32 that any missing or extra product costs */
    return (double)k * 1.5 * 0x1p-24;
}

ks_status ks_matmul_compare(const float *got, const float *want, const ks_matmul_size *s, ks_matmul_mismatch *out)
{
    memset(out, 0, sizeof *out);
    out->first = -1;
    const double tol = ks_matmul_check_tolerance(s->k);
    const size_t n = (size_t)s->m * s->n;
    for (size_t e = 0; e < n; ++e) {
        const double d = isnan(got[e]) ? INFINITY : fabs((double)got[e] - (double)want[e]);
        if (d > out->max_err) out->max_err = d;
        if (d > tol) {
            if (out->first < 0) out->first = (long long)e;
            ++out->bad;
        }
    }
    if (out->first >= 0) {
        out->got = got[out->first];
        out->want = want[out->first];
    }
    return out->first < 0 ? KS_OK : KS_ERR_INVALID;
}

void ks_matmul_mismatch_text(const ks_matmul_mismatch *m, const ks_matmul_size *s, const char *against, char *buf,
                             size_t cap)
{
    const long long i = m->first / s->n, j = m->first % s->n;
    snprintf(buf, cap,
             "differs from %s at M=%d N=%d K=%d at C[%lld][%lld]: %.9g where %.9g is expected%s; %lld element%s "
             "differ%s, max error %.3g (tolerance %.2g)",
             against, s->m, s->n, s->k, i, j, (double)m->got, (double)m->want,
             isnan(m->got) ? " (never written)" : "", m->bad, m->bad == 1 ? "" : "s", m->bad == 1 ? "s" : "",
             m->max_err, ks_matmul_check_tolerance(s->k));
}
