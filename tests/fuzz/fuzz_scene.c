/* libFuzzer target: the sphere scene-file parser (ks_spheres_parse). Any
 * input either parses into 1..KS_SPHERES_MAX spheres within the documented
 * ranges, or fails with one message line holding no raw control byte.
 * Built and run by scripts/fuzz.sh. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/spheres/spheres.h"

static void check_message(void)
{
    for (const unsigned char *p = (const unsigned char *)ks_error_message(); *p; ++p)
        if (*p < 0x20 || *p == 0x7f) abort(); /* input bytes must come back escaped */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ks_sphere *s = NULL;
    int n = -1;
    ks_error_clear();
    const ks_status st = ks_spheres_parse("fuzz.txt", (const char *)data, size, &s, &n);
    if (st != KS_OK) {
        if (s || n != 0) abort(); /* nothing comes back from a bad file */
        check_message();
        return 0;
    }
    if (n < 1 || n > KS_SPHERES_MAX) abort();
    for (int k = 0; k < n; ++k) {
        const ks_sphere *q = &s[k];
        if (!(fabsf(q->x) <= KS_SPHERES_COORD_MAX && fabsf(q->y) <= KS_SPHERES_COORD_MAX &&
              fabsf(q->z) <= KS_SPHERES_COORD_MAX))
            abort();
        if (!(q->radius > 0.0f && q->radius <= KS_SPHERES_RADIUS_MAX)) abort();
        for (int c = 0; c < 3; ++c)
            if (!(q->color[c] >= 0.0f && q->color[c] <= 1.0f)) abort();
    }
    free(s);
    return 0;
}
