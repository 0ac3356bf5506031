/* View model helpers and its JSON (view.h). */
#include "view.h"
#include "view_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void copy_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

void ks_view_num(ks_view *v, ks_vgroup g, const char *label, double value, const char *unit,
                 ks_vfmt fmt)
{
    if (v->nfields >= KS_VIEW_FIELDS) return;
    ks_vfield *f = &v->fields[v->nfields++];
    memset(f, 0, sizeof *f);
    f->group = g;
    copy_str(f->label, sizeof f->label, label);
    copy_str(f->unit, sizeof f->unit, unit);
    f->value = value;
    f->fmt = fmt;
}

void ks_view_text(ks_view *v, ks_vgroup g, const char *label, const char *fmt, ...)
{
    if (v->nfields >= KS_VIEW_FIELDS) return;
    ks_vfield *f = &v->fields[v->nfields++];
    memset(f, 0, sizeof *f);
    f->group = g;
    f->is_text = 1;
    f->value = NAN;
    copy_str(f->label, sizeof f->label, label);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

void ks_view_label(ks_view *v, float x, float y, const char *fmt, ...)
{
    if (v->nlabels >= KS_VIEW_LABELS) return;
    ks_vlabel *l = &v->labels[v->nlabels++];
    l->x = x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; /* NaN lands at 0 */
    l->y = y > 0.0f ? (y < 1.0f ? y : 1.0f) : 0.0f;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text, sizeof l->text, fmt, ap);
    va_end(ap);
}

const ks_vfield *ks_view_find(const ks_view *v, const char *label)
{
    for (int i = 0; i < v->nfields; ++i)
        if (strcmp(v->fields[i].label, label) == 0) return &v->fields[i];
    return NULL;
}

ks_vcontrol *ks_view_control(ks_view *v, const char *label, int key_prev, int key_next)
{
    if (v->ncontrols >= KS_VIEW_CONTROLS) return NULL;
    ks_vcontrol *c = &v->controls[v->ncontrols++];
    memset(c, 0, sizeof *c);
    copy_str(c->label, sizeof c->label, label);
    c->key_prev = key_prev;
    c->key_next = key_next;
    return c;
}

ks_vcontrol *ks_view_toggle(ks_view *v, const char *label, int key, const char *now, const char *other)
{
    ks_vcontrol *c = ks_view_control(v, label, 0, key);
    if (!c) return NULL;
    copy_str(c->choices[0], sizeof c->choices[0], now);
    copy_str(c->choices[1], sizeof c->choices[1], other);
    c->nchoices = 2;
    copy_str(c->value, sizeof c->value, now);
    return c;
}

void ks_view_format_value(double value, ks_vfmt fmt, char *buf, size_t cap)
{
    if (!isfinite(value)) {
        copy_str(buf, cap, "-");
        return;
    }
    switch (fmt) {
    case KS_VFMT_INT: snprintf(buf, cap, "%.0f", value); break;
    case KS_VFMT_F1: snprintf(buf, cap, "%.1f", value); break;
    case KS_VFMT_F2: snprintf(buf, cap, "%.2f", value); break;
    case KS_VFMT_F3: snprintf(buf, cap, "%.3f", value); break;
    case KS_VFMT_F4: snprintf(buf, cap, "%.4f", value); break;
    case KS_VFMT_SCI: snprintf(buf, cap, "%.3e", value); break;
    case KS_VFMT_PCT: snprintf(buf, cap, "%.0f%%", 100.0 * value); break;
    default: snprintf(buf, cap, "%.4g", value); break;
    }
}

void ks_view_format(const ks_vfield *f, char *buf, size_t cap)
{
    if (f->is_text) copy_str(buf, cap, f->text);
    else ks_view_format_value(f->value, f->fmt, buf, cap);
}

/* ---- JSON (render/view_json.h writes it) ---- */

static const char *const ks_group_names[KS_VGROUP_NUM] = {"scene", "kernel", "frame"};
static const char *const ks_fmt_names[KS_VFMT_NUM] = {"g4", "int", "f1", "f2", "f3", "f4", "sci", "pct"};

static void json_fields(jw *w, const ks_view *v)
{
    jw_key(w, "fields");
    jw_puts(w, "[");
    for (int i = 0; i < v->nfields; ++i) {
        const ks_vfield *f = &v->fields[i];
        if (i) jw_puts(w, ",");
        jw_puts(w, "{");
        jw_key(w, "group");
        jw_str(w, f->group < KS_VGROUP_NUM ? ks_group_names[f->group] : "scene");
        jw_puts(w, ",");
        jw_key(w, "label");
        jw_str(w, f->label);
        jw_puts(w, ",");
        jw_key(w, "value");
        if (f->is_text) jw_str(w, f->text);
        else jw_num(w, f->value);
        jw_puts(w, ",");
        jw_key(w, "unit");
        jw_str(w, f->unit);
        jw_puts(w, ",");
        jw_key(w, "format");
        jw_str(w, f->is_text ? "text" : f->fmt < KS_VFMT_NUM ? ks_fmt_names[f->fmt] : "g4");
        jw_puts(w, "}");
    }
    jw_puts(w, "]");
}

static void json_stages(jw *w, const ks_view *v)
{
    jw_key(w, "stages");
    jw_puts(w, "[");
    for (int i = 0; i < v->nstages; ++i) {
        if (i) jw_puts(w, ",");
        jw_puts(w, "{");
        jw_key(w, "name");
        jw_str(w, v->stages[i].name);
        jw_puts(w, ",");
        jw_key(w, "median_ms");
        jw_num(w, v->stages[i].median_ms);
        jw_puts(w, ",");
        jw_key(w, "min_ms");
        jw_num(w, v->stages[i].min_ms);
        jw_puts(w, ",");
        jw_key(w, "samples");
        jw_num(w, v->stages[i].samples);
        jw_puts(w, "}");
    }
    jw_puts(w, "]");
}

static void json_table(jw *w, const ks_vtable *t)
{
    jw_key(w, "table");
    if (t->ncols <= 0) {
        jw_puts(w, "null");
        return;
    }
    jw_puts(w, "{");
    jw_key(w, "title");
    jw_str(w, t->title);
    jw_puts(w, ",");
    jw_key(w, "columns");
    jw_puts(w, "[");
    for (int c = 0; c < t->ncols && c < KS_VIEW_COLS; ++c) {
        if (c) jw_puts(w, ",");
        jw_puts(w, "{");
        jw_key(w, "name");
        jw_str(w, t->cols[c]);
        jw_puts(w, ",");
        jw_key(w, "unit");
        jw_str(w, t->units[c]);
        jw_puts(w, "}");
    }
    jw_puts(w, "],");
    jw_key(w, "rows");
    jw_puts(w, "[");
    for (int r = 0; r < t->nrows && r < KS_VIEW_ROWS; ++r) {
        if (r) jw_puts(w, ",");
        jw_puts(w, "{");
        jw_key(w, "label");
        jw_str(w, t->rows[r].label);
        jw_puts(w, ",");
        jw_key(w, "selected");
        jw_puts(w, t->rows[r].selected ? "true" : "false");
        jw_puts(w, ",");
        jw_key(w, "note");
        jw_str(w, t->rows[r].note);
        jw_puts(w, ",");
        jw_key(w, "cells");
        jw_puts(w, "[");
        for (int c = 0; c < t->ncols && c < KS_VIEW_COLS; ++c) {
            if (c) jw_puts(w, ",");
            jw_num(w, t->rows[r].cell[c]);
        }
        jw_puts(w, "]}");
    }
    jw_puts(w, "]}");
}

static void json_controls(jw *w, const ks_view *v)
{
    jw_key(w, "controls");
    jw_puts(w, "[");
    for (int i = 0; i < v->ncontrols; ++i) {
        const ks_vcontrol *c = &v->controls[i];
        if (i) jw_puts(w, ",");
        jw_puts(w, "{");
        jw_key(w, "label");
        jw_str(w, c->label);
        jw_puts(w, ",");
        jw_key(w, "value");
        jw_str(w, c->value);
        jw_puts(w, ",");
        jw_key(w, "choices");
        jw_puts(w, "[");
        for (int j = 0; j < c->nchoices && j < KS_VIEW_CHOICES; ++j) {
            if (j) jw_puts(w, ",");
            jw_str(w, c->choices[j]);
        }
        jw_puts(w, "],");
        jw_key(w, "current");
        jw_num(w, c->current);
        jw_puts(w, "}");
    }
    jw_puts(w, "]");
}

void ks_roof_log_put(ks_roof_log *log, const char *name, double flops, double bytes, double ms)
{
    if (log == NULL || name == NULL || !(ms > 0.0)) return;
    int i = 0;
    while (i < log->n && strcmp(log->pts[i].name, name) != 0) ++i;
    if (i == log->n) {
        if (log->n >= KS_VIEW_ROOF) return;
        ++log->n;
    }
    ks_vroof_point *p = &log->pts[i];
    copy_str(p->name, sizeof p->name, name);
    p->flops = flops;
    p->bytes = bytes;
    p->ms = ms;
}

void ks_view_roof(ks_view *v, const ks_roof_log *log, const char *current, const char *what,
                  double peak_gbs, double peak_gflops)
{
    ks_vroof *r = &v->roof;
    const int show = r->show;
    memset(r, 0, sizeof *r);
    r->show = show;
    r->on = 1;
    r->peak_gbs = peak_gbs;
    r->peak_gflops = peak_gflops;
    copy_str(r->what, sizeof r->what, what ? what : "");
    r->current = -1;
    for (int i = 0; log && i < log->n; ++i) {
        r->pts[r->n] = log->pts[i];
        if (current && strcmp(log->pts[i].name, current) == 0) r->current = r->n;
        ++r->n;
    }
    if (!(peak_gflops > 0.0))
        copy_str(r->note, sizeof r->note, "FMA ceiling not measured on this backend");
}

static void json_roof(jw *w, const ks_vroof *r)
{
    jw_key(w, "roofline");
    if (!r->on) {
        jw_puts(w, "null");
        return;
    }
    jw_puts(w, "{");
    jw_key(w, "peak_gbs");
    jw_num(w, r->peak_gbs);
    jw_puts(w, ",");
    jw_key(w, "peak_gflops");
    jw_num(w, r->peak_gflops > 0.0 ? r->peak_gflops : NAN);
    jw_puts(w, ",");
    jw_key(w, "counts");
    jw_str(w, "model");
    jw_puts(w, ",");
    jw_key(w, "per");
    jw_str(w, r->what);
    jw_puts(w, ",");
    jw_key(w, "note");
    jw_str(w, r->note);
    jw_puts(w, ",");
    jw_key(w, "points");
    jw_puts(w, "[");
    for (int i = 0; i < r->n && i < KS_VIEW_ROOF; ++i) {
        const ks_vroof_point *p = &r->pts[i];
        if (i) jw_puts(w, ",");
        jw_puts(w, "{");
        jw_key(w, "variant");
        jw_str(w, p->name);
        jw_puts(w, ",");
        jw_key(w, "current");
        jw_puts(w, i == r->current ? "true" : "false");
        jw_puts(w, ",");
        jw_key(w, "model_flops");
        jw_num(w, p->flops);
        jw_puts(w, ",");
        jw_key(w, "model_bytes");
        jw_num(w, p->bytes);
        jw_puts(w, ",");
        jw_key(w, "ms");
        jw_num(w, p->ms);
        jw_puts(w, ",");
        jw_key(w, "gflops");
        jw_num(w, p->flops / (p->ms * 1e6));
        jw_puts(w, ",");
        jw_key(w, "intensity");
        jw_num(w, p->bytes > 0.0 ? p->flops / p->bytes : NAN);
        jw_puts(w, "}");
    }
    jw_puts(w, "]}");
}

static void json_int_pair(jw *w, const char *key, int a, int b)
{
    jw_key(w, key);
    jw_puts(w, "[");
    jw_num(w, a);
    jw_puts(w, ",");
    jw_num(w, b);
    jw_puts(w, "]");
}

static void json_viewport(jw *w, const ks_view *v)
{
    jw_key(w, "viewport");
    if (!v->viewport.on) {
        jw_puts(w, "null");
        return;
    }
    jw_puts(w, "{");
    jw_key(w, "zoom");
    jw_num(w, v->viewport.zoom);
    jw_puts(w, ",");
    jw_key(w, "px_per_cell");
    jw_num(w, v->viewport.px_per_cell);
    jw_puts(w, ",");
    json_int_pair(w, "grid", v->viewport.grid_w, v->viewport.grid_h);
    jw_puts(w, ",");
    json_int_pair(w, "shown_x", v->viewport.x0, v->viewport.x1);
    jw_puts(w, ",");
    json_int_pair(w, "shown_y", v->viewport.y0, v->viewport.y1);
    jw_puts(w, ",");
    json_int_pair(w, "picture", v->viewport.pic_w, v->viewport.pic_h);
    jw_puts(w, ",");
    jw_key(w, "rule");
    jw_str(w, v->viewport.rule);
    jw_puts(w, "}");
}

ks_status ks_view_to_json(const ks_view *v, char *buf, size_t cap, size_t *len)
{
    if (v == NULL || buf == NULL || cap == 0) return ks_fail(KS_ERR_INVALID, "view: JSON without view or buffer");
    jw w = {buf, cap, 0, 0};
    buf[0] = '\0';
    jw_puts(&w, "{");
    jw_key(&w, "scene");
    jw_str(&w, v->scene);
    jw_puts(&w, ",");
    jw_key(&w, "image_name");
    jw_str(&w, v->image_name);
    jw_puts(&w, ",");
    jw_key(&w, "frame");
    jw_num(&w, (double)v->frame);
    jw_puts(&w, ",");
    jw_key(&w, "paused");
    jw_puts(&w, v->paused ? "true" : "false");
    jw_puts(&w, ",");
    json_fields(&w, v);
    jw_puts(&w, ",");
    json_stages(&w, v);
    jw_puts(&w, ",");
    json_table(&w, &v->table);
    jw_puts(&w, ",");
    json_controls(&w, v);
    jw_puts(&w, ",");
    jw_key(&w, "colorbar");
    if (v->colorbar.on) {
        jw_puts(&w, "{");
        jw_key(&w, "colormap");
        jw_str(&w, ks_colormap_name(v->colorbar.cmap));
        jw_puts(&w, ",");
        jw_key(&w, "lo");
        jw_num(&w, v->colorbar.lo);
        jw_puts(&w, ",");
        jw_key(&w, "hi");
        jw_num(&w, v->colorbar.hi);
        jw_puts(&w, ",");
        jw_key(&w, "label");
        jw_str(&w, v->colorbar.label);
        jw_puts(&w, ",");
        /* the map itself, 17 evenly spaced entries as "#rrggbb", so the page draws the gradient in use */
        jw_key(&w, "stops");
        jw_puts(&w, "[");
        {
            unsigned char rgba[256][4];
            ks_colormap_table_rgba(v->colorbar.cmap, rgba);
            for (int i = 0; i <= 16; ++i) {
                const unsigned char *c = rgba[i * 255 / 16];
                char hex[16];
                snprintf(hex, sizeof hex, "#%02x%02x%02x", c[0], c[1], c[2]);
                if (i) jw_puts(&w, ",");
                jw_str(&w, hex);
            }
        }
        jw_puts(&w, "],");
        jw_key(&w, "histogram");
        if (v->colorbar.hist_n > 0) {
            jw_puts(&w, "{");
            jw_key(&w, "lo");
            jw_num(&w, v->colorbar.hist_lo);
            jw_puts(&w, ",");
            jw_key(&w, "hi");
            jw_num(&w, v->colorbar.hist_hi);
            jw_puts(&w, ",");
            jw_key(&w, "of");
            jw_str(&w, v->colorbar.hist_what);
            jw_puts(&w, ",");
            jw_key(&w, "counts");
            jw_puts(&w, "[");
            for (int i = 0; i < v->colorbar.hist_n && i < KS_VIEW_HIST; ++i) {
                if (i) jw_puts(&w, ",");
                jw_num(&w, v->colorbar.hist[i]);
            }
            jw_puts(&w, "]}");
        } else {
            jw_puts(&w, "null");
        }
        jw_puts(&w, "}");
    } else {
        jw_puts(&w, "null");
    }
    jw_puts(&w, ",");
    jw_key(&w, "plot");
    if (v->plot.n > 0) {
        jw_puts(&w, "{");
        jw_key(&w, "title");
        jw_str(&w, v->plot.title);
        jw_puts(&w, ",");
        jw_key(&w, "x");
        jw_puts(&w, "[");
        for (int i = 0; i < v->plot.n && i < KS_VIEW_PLOT; ++i) {
            if (i) jw_puts(&w, ",");
            jw_num(&w, v->plot.x[i]);
        }
        jw_puts(&w, "],");
        jw_key(&w, "y");
        jw_puts(&w, "[");
        for (int i = 0; i < v->plot.n && i < KS_VIEW_PLOT; ++i) {
            if (i) jw_puts(&w, ",");
            jw_num(&w, v->plot.y[i]);
        }
        jw_puts(&w, "]}");
    } else {
        jw_puts(&w, "null");
    }
    jw_puts(&w, ",");
    json_roof(&w, &v->roof);
    jw_puts(&w, ",");
    json_viewport(&w, v);
    jw_puts(&w, ",");
    if (!w.overflow && ks_view_hw_json(v, w.buf, w.cap, &w.len) != 0) w.overflow = 1;
    jw_puts(&w, ",");
    jw_key(&w, "hover");
    jw_str(&w, v->hover);
    jw_puts(&w, ",");
    jw_key(&w, "message");
    jw_str(&w, v->message);
    jw_puts(&w, ",");
    jw_key(&w, "message_kind");
    jw_str(&w, v->message_kind == KS_VMSG_NOTICE ? "notice" : "error");
    jw_puts(&w, "}");
    if (len) *len = w.len;
    if (w.overflow) {
        buf[0] = '\0';
        return ks_fail(KS_ERR_INVALID, "view: JSON needs more than %zu bytes", cap);
    }
    return KS_OK;
}
