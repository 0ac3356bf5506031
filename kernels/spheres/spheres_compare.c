/* The check of a user's sphere kernel against the CPU gold (spheres_user.h):
 * plain C, so the cpu tests hold it without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spheres_user.h"

static int channel_diff(const unsigned char *a, const unsigned char *b)
{
    int most = 0;
    for (int c = 0; c < 4; ++c) {
        const int d = abs((int)a[c] - (int)b[c]);
        if (d > most) most = d;
    }
    return most;
}

int ks_spheres_user_compare(const unsigned char *got, const unsigned char *want, int w, int h, ks_spheres_mismatch *m)
{
    memset(m, 0, sizeof *m);
    m->first_i = m->first_j = -1;
    const long long n = (long long)w * h;
    m->allowed = n * KS_SPHERES_USER_OFF_PPM / 1000000;
    for (long long p = 0; p < n; ++p) {
        const int d = channel_diff(got + 4 * p, want + 4 * p);
        if (d > m->max_abs) m->max_abs = d;
        if (d <= KS_SPHERES_USER_TOL) continue;
        if (m->off++ == 0) {
            m->first_i = (int)(p % w);
            m->first_j = (int)(p / w);
            memcpy(m->got, got + 4 * p, 4);
            memcpy(m->want, want + 4 * p, 4);
        }
    }
    return m->off <= m->allowed;
}

void ks_spheres_mismatch_text(const ks_spheres_mismatch *m, int w, int h, int count, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "differs from the CPU gold on the %dx%d check picture (%d sphere%s) at pixel (%d,%d): %d %d %d %d where "
             "%d %d %d %d is expected; %lld pixel%s off by more than %d (at most %lld may be), max difference %d",
             w, h, count, count == 1 ? "" : "s", m->first_i, m->first_j, m->got[0], m->got[1], m->got[2], m->got[3],
             m->want[0], m->want[1], m->want[2], m->want[3], m->off, m->off == 1 ? " is" : "s are",
             KS_SPHERES_USER_TOL, m->allowed, m->max_abs);
}

void ks_spheres_user_diff(const unsigned char *got, const unsigned char *want, int w, int h, float *diff)
{
    const long long n = (long long)w * h;
    for (long long p = 0; p < n; ++p) diff[p] = (float)channel_diff(got + 4 * p, want + 4 * p);
}
