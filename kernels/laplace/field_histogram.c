/* The float field histogram's CPU gold (field_histogram.h). */
#include "field_histogram.h"

float ks_field_hist_scale(float lo, float hi, unsigned bins)
{
    return (float)bins / (hi - lo);
}

void ks_field_hist_gold(const float *v, size_t n, float lo, float hi, unsigned bins, uint64_t *hist)
{
    const float scale = ks_field_hist_scale(lo, hi, bins);
    for (size_t i = 0; i < n; ++i) {
        if (v[i] != v[i]) continue; /* NaN */
        const float t = (v[i] - lo) * scale;
        const unsigned b = t < 1.0f ? 0u : t >= (float)bins ? bins - 1 : (unsigned)t;
        ++hist[b];
    }
}
