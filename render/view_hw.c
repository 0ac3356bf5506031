/* The view's Hardware panel and timeline strip as JSON (view.h): what the
 * page draws, from the same struct the ImGui panels read. */
#include "view.h"
#include "view_json.h"

static void json_hw_row(jw *w, const ks_vhw_row *r)
{
    jw_puts(w, "{");
    jw_key(w, "key");
    jw_str(w, r->key);
    jw_puts(w, ",");
    jw_key(w, "label");
    jw_str(w, r->label);
    jw_puts(w, ",");
    jw_key(w, "value");
    jw_str(w, r->value);
    jw_puts(w, ",");
    jw_key(w, "unit");
    jw_str(w, r->unit);
    jw_puts(w, ",");
    jw_key(w, "hover");
    jw_str(w, r->hover);
    jw_puts(w, ",");
    jw_key(w, "words");
    jw_str(w, r->words);
    jw_puts(w, ",");
    jw_key(w, "number");
    jw_num(w, r->present ? r->number : NAN);
    jw_puts(w, ",");
    jw_key(w, "present");
    jw_puts(w, r->present ? "true" : "false");
    jw_puts(w, "}");
}

static void json_hw(jw *w, const ks_vhardware *h)
{
    jw_key(w, "hardware");
    if (!h->on) {
        jw_puts(w, "null");
        return;
    }
    jw_puts(w, "{");
    jw_key(w, "open");
    jw_puts(w, h->open ? "true" : "false");
    jw_puts(w, ",");
    jw_key(w, "why");
    jw_str(w, h->why);
    jw_puts(w, ",");
    jw_key(w, "what");
    jw_str(w, h->what);
    jw_puts(w, ",");
    jw_key(w, "kernel");
    jw_str(w, h->kernel);
    jw_puts(w, ",");
    jw_key(w, "status");
    jw_str(w, h->status);
    jw_puts(w, ",");
    jw_key(w, "every");
    jw_str(w, h->every);
    jw_puts(w, ",");
    jw_key(w, "measurements");
    jw_num(w, h->measurements);
    jw_puts(w, ",");
    jw_key(w, "frame");
    jw_num(w, h->frame >= 0 ? (double)h->frame : NAN);
    jw_puts(w, ",");
    jw_key(w, "cost_ms");
    jw_num(w, h->measurements > 0 ? h->cost_ms : NAN);
    jw_puts(w, ",");
    jw_key(w, "stale");
    jw_puts(w, h->stale ? "true" : "false");
    jw_puts(w, ",");
    jw_key(w, "rows");
    jw_puts(w, "[");
    for (int i = 0; i < h->nrows && i < KS_VIEW_HW_ROWS; ++i) {
        if (i) jw_puts(w, ",");
        json_hw_row(w, &h->rows[i]);
    }
    jw_puts(w, "]}");
}

/* A percentage column: one decimal is all a strip shows (and keeps the document small). */
static void jw_pct(jw *w, float x)
{
    if (!isfinite(x)) {
        jw_puts(w, "null");
        return;
    }
    char t[16];
    snprintf(t, sizeof t, "%.1f", (double)x);
    jw_puts(w, t);
}

static void json_timeline(jw *w, const ks_vtimeline *t)
{
    jw_key(w, "timeline");
    if (!t->on) {
        jw_puts(w, "null");
        return;
    }
    jw_puts(w, "{");
    jw_key(w, "why");
    jw_str(w, t->why);
    jw_puts(w, ",");
    jw_key(w, "note");
    jw_str(w, t->note);
    jw_puts(w, ",");
    jw_key(w, "window_ms");
    jw_num(w, t->window_ms);
    jw_puts(w, ",");
    jw_key(w, "interval_us");
    jw_num(w, t->interval_us);
    jw_puts(w, ",");
    jw_key(w, "dram_mean");
    jw_num(w, t->dram_mean);
    jw_puts(w, ",");
    jw_key(w, "sm_mean");
    jw_num(w, t->sm_mean);
    const int n = t->n < KS_VIEW_STRIP ? t->n : KS_VIEW_STRIP;
    jw_puts(w, ",");
    jw_key(w, "dram");
    jw_puts(w, "[");
    for (int i = 0; i < n; ++i) {
        if (i) jw_puts(w, ",");
        jw_pct(w, t->dram[i]);
    }
    jw_puts(w, "],");
    jw_key(w, "sm");
    jw_puts(w, "[");
    for (int i = 0; i < n; ++i) {
        if (i) jw_puts(w, ",");
        jw_pct(w, t->sm[i]);
    }
    jw_puts(w, "],");
    jw_key(w, "marks");
    jw_puts(w, "[");
    for (int i = 0; i < t->nmarks && i < KS_VIEW_MARKS; ++i) {
        const ks_vmark *m = &t->marks[i];
        if (i) jw_puts(w, ",");
        jw_puts(w, "{");
        jw_key(w, "x0");
        jw_num(w, m->x0);
        jw_puts(w, ",");
        jw_key(w, "x1");
        jw_num(w, m->x1);
        jw_puts(w, ",");
        jw_key(w, "count");
        jw_num(w, m->count);
        jw_puts(w, ",");
        jw_key(w, "label");
        jw_puts(w, m->label ? "true" : "false");
        jw_puts(w, ",");
        jw_key(w, "name");
        jw_str(w, m->name);
        jw_puts(w, "}");
    }
    jw_puts(w, "]}");
}

int ks_view_hw_json(const ks_view *v, char *buf, size_t cap, size_t *len)
{
    jw w = {buf, cap, *len, 0};
    json_hw(&w, &v->hw);
    jw_puts(&w, ",");
    json_timeline(&w, &v->timeline);
    if (w.overflow) {
        if (*len < cap) buf[*len] = '\0';
        return -1;
    }
    *len = w.len;
    return 0;
}
