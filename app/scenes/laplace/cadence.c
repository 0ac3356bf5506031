#include "app/scenes/laplace/cadence.h"

#include <math.h>

void ks_cadence_init(ks_cadence *c, int fixed)
{
    c->fixed = fixed > 0 ? fixed : 0;
    c->every = c->fixed ? c->fixed : 1;
    ks_cadence_restart(c);
}

int ks_cadence_auto_every(double task_ms, double solver_ms, double budget)
{
    if (!(task_ms > 0.0) || !(solver_ms > 0.0) || !(budget > 0.0)) return 1;
    const double k = ceil(task_ms / (budget * solver_ms) - 1e-9); /* exact quotients stay put */
    return k < 1.0 ? 1 : k > KS_CADENCE_MAX ? KS_CADENCE_MAX : (int)k;
}

void ks_cadence_tune(ks_cadence *c, double task_ms, double solver_ms)
{
    if (c->fixed) return;
    c->every = ks_cadence_auto_every(task_ms, solver_ms, KS_CADENCE_BUDGET);
}

void ks_cadence_cap_period(ks_cadence *c, double frame_ms, double period_ms)
{
    if (c->fixed || !(frame_ms > 0.0) || !(period_ms > 0.0)) return;
    const double k = floor(period_ms / frame_ms);
    const int most = k < 1.0 ? 1 : k > KS_CADENCE_MAX ? KS_CADENCE_MAX : (int)k;
    if (c->every > most) c->every = most;
}

int ks_cadence_due(ks_cadence *c)
{
    if (c->since + 1 >= c->every) {
        c->since = 0;
        return 1;
    }
    ++c->since;
    return 0;
}

/* since >= every - 1 makes the next call due, whatever every becomes */
void ks_cadence_restart(ks_cadence *c) { c->since = c->fixed > KS_CADENCE_MAX ? c->fixed : KS_CADENCE_MAX; }
