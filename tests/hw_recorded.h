/* A recorded measurement for the Hardware panel's tests: what one launch of
 * the Laplace kmarch kernel on a 512^3 grid could give on an H200 (GH100),
 * every metric present but L1's (absent, as on a chip without it), the
 * theoretical occupancy from the launch, 4-byte accesses. Header-only. */
#ifndef KS_TEST_HW_RECORDED_H
#define KS_TEST_HW_RECORDED_H

#include <stdio.h>
#include <string.h>

#include "app/scene.h"
#include "counters/counters.h"

/* Fills s and the scene's side of it (sc); the model is 2 x 512^3 x 4 bytes. */
static inline void hw_recorded(ks_counter_set *s, ks_scene_counters *sc)
{
    memset(s, 0, sizeof *s);
    snprintf(s->device, sizeof s->device, "NVIDIA H200");
    snprintf(s->chip, sizeof s->chip, "GH100");
    s->cc = 90;
    s->gen = KS_GEN_HOPPER;
    s->passes = 7;
    s->nkernels = 1;
    for (int id = 0; id < KS_CTR_NUM; ++id) {
        const char *names[KS_CTR_CANDIDATES];
        if (id != KS_CTR_L1_HIT_PCT && id != KS_CTR_OCC_THEORETICAL_PCT &&
            ks_counters_candidates(KS_GEN_HOPPER, (ks_counter_id)id, names, KS_CTR_CANDIDATES) > 0)
            snprintf(s->metric[id], KS_COUNTER_METRIC, "%s", names[0]);
    }
    ks_kernel_counters *k = &s->kernels[0];
    snprintf(k->name, sizeof k->name, "jacobi3d_kmarch_kernel(float const*, float*, int, int, int)");
    for (int id = 0; id < KS_CTR_NUM; ++id) k->present[id] = s->metric[id][0] != '\0';
    k->values[KS_CTR_DURATION_NS] = 460000.0;
    k->values[KS_CTR_DRAM_READ_BYTES] = 551e6;
    k->values[KS_CTR_DRAM_WRITE_BYTES] = 537e6;
    k->values[KS_CTR_DRAM_PEAK_PCT] = 49.5;
    k->values[KS_CTR_L2_HIT_PCT] = 71.25;
    k->values[KS_CTR_GLD_SECTORS] = 4.0 * 134217728.0 * 7 / 32;
    k->values[KS_CTR_GLD_REQUESTS] = 134217728.0 * 7 / 32;
    k->values[KS_CTR_GST_SECTORS] = 4.0 * 134217728.0 / 32;
    k->values[KS_CTR_GST_REQUESTS] = 134217728.0 / 32;
    k->values[KS_CTR_OCC_ACHIEVED_PCT] = 61.5;
    k->values[KS_CTR_SM_CLOCK_HZ] = 1.98e9;
    k->values[KS_CTR_WARP_CYCLES_PER_INST] = 30.0;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_LONG_SCOREBOARD] = 21.0;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_LG_THROTTLE] = 4.5;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_WAIT] = 1.5;
    k->values[KS_CTR_STALL_FIRST + KS_STALL_NOT_SELECTED] = 0.5;
    memset(sc, 0, sizeof *sc);
    sc->model_bytes = 2.0 * 512.0 * 512.0 * 512.0 * 4.0;
    sc->occupancy = 0.75;
    sc->load_bytes = sc->store_bytes = 4;
    snprintf(sc->what, sizeof sc->what, "one launch of kmarch (1 Jacobi iteration), block 128x2, grid 512x512x512");
    snprintf(sc->config, sizeof sc->config, "kmarch 128x2 512x512x512 code 0");
}

#endif
