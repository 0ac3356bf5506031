/* The checker process's wire protocol (kernel_check_wire.h): what a request and
 * an answer may hold, for the parent and the child alike. */
#include "app/kernel/kernel_check_wire.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* The next number of an answer line and the space after it; NULL when malformed. */
static const char *answer_num(const char *p, long long hi, long long *v)
{
    const size_t k = strcspn(p, " ");
    return p[k] && ks_kcheck_parse_num(p, k, 0, hi, v) == 0 ? p + k + 1 : NULL;
}

/* Strict parse of an answer line into out (the difference slice's size in
 * diff_w, diff_h; no values yet); 0, or -1 when malformed. */
int ks_kcheck_parse_answer(const char *line, ks_kcheck_result *out)
{
    static const char magic[] = KCHECK_MAGIC " ";
    const char *p = line + sizeof magic - 1;
    long long passed, fatal, us, w = 0, h = 0;
    if (strncmp(line, magic, sizeof magic - 1) != 0 || ks_kcheck_parse_num(p, 1, 0, 1, &passed) != 0 || p[1] != ' ' ||
        ks_kcheck_parse_num(p + 2, 1, 0, 1, &fatal) != 0 || p[3] != ' ')
        return -1;
    p += 4;
    if (!(p = answer_num(p, 9999999999LL, &us)) || !(p = answer_num(p, INT_MAX, &w)) || !(p = answer_num(p, INT_MAX, &h)))
        return -1;
    size_t n = 0;
    for (; *p; ++p) {
        char ch = *p;
        if (ch == '\\') {
            ch = p[1] == 'n' ? '\n' : p[1] == '\\' ? '\\' : '\0';
            if (!ch) return -1;
            ++p;
        }
        if (n + 1 >= sizeof out->message) return -1;
        out->message[n++] = ch;
    }
    out->message[n] = '\0';
    out->passed = (int)passed;
    out->fatal = (int)fatal;
    out->child_ms = (double)us / 1000.0;
    out->diff_w = (int)w;
    out->diff_h = (int)h;
    return 0;
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
