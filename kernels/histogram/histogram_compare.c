/* The check of a user's histogram kernel, its host side (histogram_user.h):
 * the live size in a checker request, and counts against expected counts. */
#include <stdio.h>

#include "histogram_user.h"

void ks_hist_check_grid(size_t n, int grid[3])
{
    grid[0] = 1 + (int)(n & ((1u << 30) - 1));
    grid[1] = 1 + (int)(n >> 30);
    grid[2] = 1;
}

size_t ks_hist_check_bytes(const int grid[3])
{
    return ((size_t)(grid[1] - 1) << 30) + (size_t)(grid[0] - 1);
}

ks_status ks_hist_compare(const uint64_t *got, const uint64_t *want, unsigned bins, ks_hist_mismatch *out)
{
    *out = (ks_hist_mismatch){.first = -1};
    for (unsigned b = 0; b < bins; ++b) {
        const uint64_t d = got[b] > want[b] ? got[b] - want[b] : want[b] - got[b];
        if (!d) continue;
        if (out->first < 0) {
            out->first = b;
            out->got = got[b];
            out->want = want[b];
        }
        ++out->bad;
        if (d > out->max_err) out->max_err = d;
    }
    return out->first < 0 ? KS_OK : KS_ERR_INVALID;
}

void ks_hist_mismatch_text(const ks_hist_mismatch *m, size_t n, const char *what, const char *against, char *buf,
                           size_t cap)
{
    char label[32];
    ks_hist_bin_label(KS_HIST_BYTES, 256, (unsigned)m->first, label, sizeof label);
    snprintf(buf, cap,
             "differs from %s on %zu byte%s (%s) at bin %lld ('%s'): %llu where %llu is expected; %lld bin%s "
             "differ%s, max error %llu",
             against, n, n == 1 ? "" : "s", what, m->first, label, (unsigned long long)m->got, (unsigned long long)m->want, m->bad,
             m->bad == 1 ? "" : "s", m->bad == 1 ? "s" : "", (unsigned long long)m->max_err);
}

ks_status ks_hist_decl_check(const ks_kdecl *d, const char *name)
{
    KS_TRY(ks_kdecl_roles_check(d, name, KS_HIST_DECL_ROLES, KS_HIST_DECL_ROLES, KS_HIST_DECL_GRIDS));
    if (d->block_dims > 1)
        return ks_fail(KS_ERR_INVALID, "%s: %s: a histogram kernel's block is one number (block=X)", name, d->entry);
    if (d->multiple)
        return ks_fail(KS_ERR_INVALID, "%s: %s: a histogram kernel takes any count of bytes (the live view counts "
                       "chunks of any size): no multiple", name, d->entry);
    return KS_OK;
}
