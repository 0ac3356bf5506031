/* The checker process's wire protocol (kernel_check_wire.h): what a request and
 * an answer may hold, for the parent and the child alike. */
#include "app/kernel/kernel_check_wire.h"

#include <stdlib.h>

/* 1 when s (n bytes) is a scene name the header line can carry as one token. */
int ks_kcheck_scene_ok(const char *s, size_t n)
{
    if (n == 0 || n >= KS_KCHECK_NAME_MAX) return 0;
    for (size_t i = 0; i < n; ++i)
        if (s[i] <= ' ' || s[i] > '~') return 0;
    return 1;
}

/* A decimal number lo..hi, digits only (n bytes of s); 0, or -1. */
int ks_kcheck_parse_num(const char *s, size_t n, long long lo, long long hi, long long *v)
{
    long long x = 0;
    if (n == 0 || n > 10) return -1;
    for (size_t i = 0; i < n; ++i) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return x >= lo && x <= hi ? 0 : -1;
}

int ks_kcheck_diff_dims(const ks_kcheck_request *req, int *w, int *h)
{
    if (req->cells[0] || req->cells[1]) {
        if (req->cells[0] < 1 || req->cells[1] < 1) return 0;
        *w = req->cells[0];
        *h = req->cells[1];
        return 1;
    }
    const int *g = req->grid;
    const int flat = g[2] == 1; /* a 2D grid: its one slice, across z */
    if (req->axis < 0 || req->axis > 2 || (flat && req->axis != 2) || req->index < 0 || req->index >= g[req->axis])
        return 0;
    *w = req->axis == 0 ? g[1] : g[0];
    *h = req->axis == 2 ? g[1] : g[2];
    return 1;
}

void ks_kcheck_result_free(ks_kcheck_result *r)
{
    if (!r) return;
    free(r->diff);
    r->diff = NULL;
    r->diff_w = r->diff_h = 0;
}
