/* The cell map's validity check (the mapping itself is inline in cellmap.h). */
#include "cellmap.h"

static ks_status check_axis(const ks_cellmap_axis *a, char name)
{
    if (a->cells < 1 || a->cells > KS_CELLMAP_MAX_CELLS)
        return ks_fail(KS_ERR_INVALID, "cell map: %d cells along %c (1..%d)", a->cells, name, KS_CELLMAP_MAX_CELLS);
    if (a->pixels < 1 || a->pixels > KS_CELLMAP_MAX_PIXELS)
        return ks_fail(KS_ERR_INVALID, "cell map: %d pixels along %c (1..%d)", a->pixels, name,
                       KS_CELLMAP_MAX_PIXELS);
    const long long end = (long long)a->cells * KS_CELLMAP_ONE;
    const long long most = (long long)KS_CELLMAP_MAX_CELLS * KS_CELLMAP_ONE;
    if (a->step < 1 || a->step > most)
        return ks_fail(KS_ERR_INVALID, "cell map: step %lld along %c outside 1..%lld", a->step, name, most);
    if (a->origin < 0 || a->origin >= end)
        return ks_fail(KS_ERR_INVALID, "cell map: origin %lld along %c outside the grid", a->origin, name);
    /* the last pixel starts inside the grid (division: no overflow) */
    if ((long long)(a->pixels - 1) > (end - 1 - a->origin) / a->step)
        return ks_fail(KS_ERR_INVALID, "cell map: %d pixels of step %lld from %lld run past the %d cells along %c",
                       a->pixels, a->step, a->origin, a->cells, name);
    return KS_OK;
}

ks_status ks_cellmap_check(const ks_cellmap *m)
{
    if (m == NULL) return ks_fail(KS_ERR_INVALID, "cell map: none given");
    KS_TRY(check_axis(&m->x, 'x'));
    return check_axis(&m->y, 'y');
}
