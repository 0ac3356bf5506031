#include "state_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "serve/serve_keys.h"

typedef struct out {
    char *buf;
    size_t cap, len;
    int full;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out *o, const char *fmt, ...)
{
    if (o->full) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->cap - o->len) o->full = 1;
    else o->len += (size_t)n;
}

static void put_str(out *o, const char *s)
{
    put(o, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p && !o->full; ++p) {
        if (*p == '"' || *p == '\\') put(o, "\\%c", *p);
        else if (*p < 0x20) put(o, "\\u%04x", *p);
        else put(o, "%c", *p);
    }
    put(o, "\"");
}

int ks_json_append_string(char *buf, size_t cap, size_t *len, const char *s)
{
    out o = {buf, cap, *len, 0};
    put_str(&o, s);
    if (o.full) {
        if (*len < cap) buf[*len] = '\0';
        return -1;
    }
    *len = o.len;
    return 0;
}

static void put_num(out *o, double v)
{
    if (isfinite(v)) put(o, "%.17g", v);
    else put(o, "null");
}

/* "key":value of the first field with one of the labels (text or number), null when none. */
static void put_field(out *o, const ks_view *v, const char *key, const char *const *labels)
{
    put(o, ",");
    put_str(o, key);
    put(o, ":");
    for (; *labels; ++labels) {
        const ks_vfield *f = ks_view_find(v, *labels);
        if (!f) continue;
        if (f->is_text) put_str(o, f->text);
        else put_num(o, f->value);
        return;
    }
    put(o, "null");
}

ks_status ks_serve_state_json(const ks_view *v, char *buf, size_t cap, size_t *len)
{
    out o = {buf, cap, 0, 0};
    put(&o, "{\"scene\":");
    put_str(&o, v->scene);
    put(&o, ",\"frame\":%lld,\"paused\":%s", v->frame, v->paused ? "true" : "false");
    put_field(&o, v, "device", (const char *const[]){"device", NULL});
    put_field(&o, v, "backend", (const char *const[]){"backend", NULL});
    put_field(&o, v, "variant", (const char *const[]){"variant", "kernel", NULL});
    put_field(&o, v, "block", (const char *const[]){"block", "tile", NULL});
    put_field(&o, v, "memory", (const char *const[]){"memory", NULL});
    put_field(&o, v, "grid", (const char *const[]){"grid", "image", "C = A*B", "input", NULL});
    put_field(&o, v, "iteration", (const char *const[]){"iterations", "pass", NULL});
    put_field(&o, v, "residual", (const char *const[]){"residual", NULL});
    put_field(&o, v, "t_eff_gbs", (const char *const[]){"T_eff", "read", "DRAM rate (model)", NULL});
    put_field(&o, v, "t_peak_gbs", (const char *const[]){"T_peak", NULL});
    put_field(&o, v, "fps", (const char *const[]){"fps", NULL});
    put(&o, ",\"stages_ms\":{");
    for (int i = 0; i < v->nstages; ++i) {
        if (i) put(&o, ",");
        put_str(&o, v->stages[i].name);
        put(&o, ":");
        put_num(&o, v->stages[i].median_ms);
    }
    put(&o, "},\"help\":");
    char help[2048];
    snprintf(help, sizeof help, "%s%s", v->help_global ? v->help_global : "", v->help_scene ? v->help_scene : "");
    put_str(&o, help);
    /* the keys behind each control's buttons and choices, by name, for the page's clicks */
    put(&o, ",\"control_keys\":[");
    for (int i = 0; i < v->ncontrols; ++i) {
        const ks_vcontrol *c = &v->controls[i];
        const char *prev = ks_serve_key_name(c->key_prev), *next = ks_serve_key_name(c->key_next);
        put(&o, "%s{\"prev\":", i ? "," : "");
        if (prev) put_str(&o, prev);
        else put(&o, "null");
        put(&o, ",\"next\":");
        if (next) put_str(&o, next);
        else put(&o, "null");
        put(&o, ",\"choices\":[");
        for (int j = 0; j < c->nchoices && j < KS_VIEW_CHOICES; ++j) {
            const char *k = ks_serve_key_name(c->choice_key[j]);
            if (j) put(&o, ",");
            if (k) put_str(&o, k);
            else put(&o, "null");
        }
        put(&o, "]}");
    }
    put(&o, "],\"view\":");
    if (o.full) return ks_fail(KS_ERR_INVALID, "state: %zu bytes are not enough", cap);
    size_t vlen = 0;
    KS_TRY(ks_view_to_json(v, o.buf + o.len, o.cap - o.len, &vlen));
    o.len += vlen;
    put(&o, "}");
    if (o.full) return ks_fail(KS_ERR_INVALID, "state: %zu bytes are not enough", cap);
    *len = o.len;
    return KS_OK;
}

ks_status ks_serve_state_json_viewer(char *buf, size_t cap, size_t *len, double fps, const char *codec,
                                     unsigned long long reports)
{
    if (*len < 2 || *len > cap || buf[*len - 1] != '}') return ks_fail(KS_ERR_INVALID, "state: not a JSON object");
    size_t at = *len - 1;
    while (at > 0 && (buf[at - 1] == ' ' || buf[at - 1] == '\n')) --at;
    const int empty = at > 0 && buf[at - 1] == '{';
    out o = {buf, cap, *len - 1, 0}; /* over the closing brace */
    put(&o, "%s\"viewer_fps\":", empty ? "" : ",");
    put_num(&o, isfinite(fps) && fps >= 0.0 ? fps : 0.0);
    put(&o, ",\"viewer_codec\":");
    put_str(&o, codec ? codec : "");
    put(&o, ",\"viewer_reports\":%llu}", reports);
    if (o.full) {
        buf[*len - 1] = '}'; /* as it was */
        buf[*len] = '\0';
        return ks_fail(KS_ERR_INVALID, "state: larger than %zu bytes", cap);
    }
    *len = o.len;
    return KS_OK;
}
