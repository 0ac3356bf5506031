#include "latency_probe.h"

#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"

void ks_latency_probe_init(ks_latency_probe *p, int want, double timeout_s)
{
    memset(p, 0, sizeof *p);
    p->want = want < 1 ? 1 : want > KS_LATENCY_MAX_SAMPLES ? KS_LATENCY_MAX_SAMPLES : want;
    p->timeout_s = timeout_s > 0.0 ? timeout_s : 5.0;
}

void ks_latency_probe_free(ks_latency_probe *p)
{
    free(p->last);
    p->last = NULL;
    p->last_len = p->last_cap = 0;
}

void ks_latency_probe_start(ks_latency_probe *p)
{
    if (p->state == KS_LATENCY_DONE) return;
    p->state = KS_LATENCY_SETTLE;
    p->same = 0;
    p->last_len = 0;
}

static int same_bytes(const ks_latency_probe *p, const void *data, size_t len)
{
    return p->same > 0 && len == p->last_len && memcmp(p->last, data, len) == 0;
}

static void keep(ks_latency_probe *p, const void *data, size_t len)
{
    if (len > p->last_cap) {
        unsigned char *b = realloc(p->last, len);
        if (!b) {
            p->failed = 1;
            p->same = 0;
            return;
        }
        p->last = b;
        p->last_cap = len;
    }
    memcpy(p->last, data, len);
    p->last_len = len;
}

int ks_latency_probe_frame(ks_latency_probe *p, const void *data, size_t len, double t)
{
    switch (p->state) {
    case KS_LATENCY_WAIT:
        ks_latency_probe_tick(p, t);
        if (p->state != KS_LATENCY_WAIT || same_bytes(p, data, len)) break;
        p->samples_ms[p->n++] = (t - p->sent_at) * 1e3;
        p->state = p->n >= p->want ? KS_LATENCY_DONE : KS_LATENCY_SETTLE;
        keep(p, data, len); /* the changed picture starts the next static run */
        p->same = p->failed ? 0 : 1;
        break;
    case KS_LATENCY_SETTLE:
    case KS_LATENCY_READY:
        if (same_bytes(p, data, len)) {
            ++p->same;
        } else {
            keep(p, data, len);
            p->same = p->failed ? 0 : 1;
        }
        p->state = p->same >= KS_LATENCY_STATIC_FRAMES ? KS_LATENCY_READY : KS_LATENCY_SETTLE;
        break;
    default: break;
    }
    return p->state == KS_LATENCY_READY;
}

void ks_latency_probe_sent(ks_latency_probe *p, double t)
{
    if (p->state != KS_LATENCY_READY) return;
    p->state = KS_LATENCY_WAIT;
    p->sent_at = t;
}

void ks_latency_probe_tick(ks_latency_probe *p, double t)
{
    if (p->state != KS_LATENCY_WAIT || t - p->sent_at <= p->timeout_s) return;
    ++p->timeouts;
    p->state = KS_LATENCY_SETTLE;
    p->same = 0;
}

double ks_latency_probe_median(const ks_latency_probe *p)
{
    double v[KS_LATENCY_MAX_SAMPLES];
    memcpy(v, p->samples_ms, (size_t)p->n * sizeof v[0]);
    return p->n ? ks_median_sort(v, p->n) : 0.0;
}
