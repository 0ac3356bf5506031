#include "app/run_outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ks_util.h"

void ks_note_wrote(const char *path)
{
    printf("kernelscope: wrote %s\n", path);
    fflush(stdout);
}

ks_status ks_out_path(char *path, size_t cap, const char *dir, const char *name)
{
    const int len = snprintf(path, cap, "%s/%s", dir, name);
    return len > 0 && (size_t)len < cap ? KS_OK : ks_fail(KS_ERR_IO, "--out path too long");
}

ks_status ks_write_text_out(const char *dir, const char *name, char *text)
{
    if (!text) return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    char path[1024];
    ks_status st = ks_out_path(path, sizeof path, dir, name);
    if (st == KS_OK) st = ks_text_write(path, text, strlen(text));
    free(text);
    if (st == KS_OK) ks_note_wrote(path);
    return st;
}

const char *ks_plural(long long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* ---- timings CSV ---- */

ks_status ks_timings_csv_init(ks_timings_csv *c, const char *dir, const char *scene)
{
    memset(c, 0, sizeof *c);
    int n = snprintf(c->path, sizeof c->path, "%s/%s_timings.csv", dir, scene);
    if (n < 0 || (size_t)n >= sizeof c->path)
        return ks_fail(KS_ERR_INVALID, "output path too long under '%s'", KS_QUOTED(dir));
    return KS_OK;
}

static ks_status csv_header(ks_timings_csv *c, const ks_stage_timer *timer)
{
    KS_TRY(ks_stream_open(c->path, &c->stream));
    c->columns = ks_stage_timer_stage_count(timer);
    char line[KS_TIMER_MAX_STAGES * 48 + 16];
    size_t used = (size_t)snprintf(line, sizeof line, "frame");
    for (int s = 0; s < c->columns; ++s) {
        ks_stage_stats st;
        ks_stage_timer_stats(timer, s, &st);
        used += (size_t)snprintf(line + used, sizeof line - used, ",%.32s_ms", st.name);
    }
    used += (size_t)snprintf(line + used, sizeof line - used, "\n");
    return ks_stream_write(c->stream, line, used);
}

ks_status ks_timings_csv_pump(ks_timings_csv *c, ks_stage_timer *timer)
{
    long long frame;
    double ms[KS_TIMER_MAX_STAGES];
    while (ks_stage_timer_pop_frame(timer, &frame, ms)) {
        if (!c->stream) KS_TRY(csv_header(c, timer));
        /* a stage first seen after the header has no column; its times stay in the overlay */
        char line[KS_TIMER_MAX_STAGES * 32 + 32];
        size_t used = (size_t)snprintf(line, sizeof line, "%lld", frame);
        for (int s = 0; s < c->columns; ++s) {
            if (ms[s] >= 0) used += (size_t)snprintf(line + used, sizeof line - used, ",%.6f", ms[s]);
            else used += (size_t)snprintf(line + used, sizeof line - used, ",");
        }
        used += (size_t)snprintf(line + used, sizeof line - used, "\n");
        KS_TRY(ks_stream_write(c->stream, line, used));
        ++c->rows;
    }
    return KS_OK;
}

ks_status ks_timings_csv_close(ks_timings_csv *c, ks_stage_timer *timer)
{
    ks_status st = ks_timings_csv_pump(c, timer);
    if (st == KS_OK && !c->stream) st = csv_header(c, timer); /* no frame finished: header only */
    if (st != KS_OK) {
        ks_stream_abort(c->stream);
        c->stream = NULL;
        return st;
    }
    st = ks_stream_commit(c->stream);
    c->stream = NULL;
    if (st == KS_OK) ks_note_wrote(c->path);
    return st;
}

/* ---- progress ---- */

void ks_progress_init(ks_progress *p, int enabled)
{
    memset(p, 0, sizeof *p);
    p->enabled = enabled;
    p->started = p->last = ks_now_seconds();
}

void ks_progress_tick(ks_progress *p, long long frame, long long frames_asked, const char *status)
{
    if (!p->enabled) return;
    const double t = ks_now_seconds();
    if (t - p->last < 1.0) return;
    const double fps = (double)(frame - p->last_frame) / (t - p->last);
    char of[32] = "";
    if (frames_asked > 0) snprintf(of, sizeof of, "/%lld", frames_asked);
    fprintf(stderr, "kernelscope: frame %lld%s  %s%s%.1f fps\n", frame, of, status ? status : "",
            status && status[0] ? "  " : "", fps);
    fflush(stderr);
    p->last = t;
    p->last_frame = frame;
}

const char *ks_stage_label(const char *name)
{
    return strcmp(name, KS_FRAME_STAGE) == 0 ? KS_FRAME_WORK_LABEL : name;
}

void ks_summary_print(const char *scene, long long frames, const char *status,
                      const ks_stage_timer *timer, const char *written)
{
    char stages[KS_TIMER_MAX_STAGES * 48] = "";
    size_t used = 0;
    const int n = ks_stage_timer_stage_count(timer);
    for (int s = 0; s < n && used < sizeof stages; ++s) {
        ks_stage_stats st;
        ks_stage_timer_stats(timer, s, &st);
        if (st.samples == 0) continue;
        int k = snprintf(stages + used, sizeof stages - used, "%s%s %.3f", used ? ", " : "", ks_stage_label(st.name),
                         st.median_ms);
        if (k > 0) used += (size_t)k;
    }
    char share_text[96] = "";
    ks_stage_share share;
    if (ks_stage_timer_share(timer, &share))
        snprintf(share_text, sizeof share_text, "; solver share %.0f %% of a %.3f ms " KS_FRAME_INTERVAL_LABEL,
                 100.0 * share.share, share.interval_ms);
    printf("kernelscope: %s: %lld %s%s%s; median ms: %s%s; %s\n", scene, frames,
           ks_plural(frames, "frame", "frames"), status && status[0] ? ", " : "", status ? status : "",
           used ? stages : "none", share_text, written && written[0] ? written : "wrote nothing");
    fflush(stdout);
}
