#include "app/live/live_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/ks_util.h"
#include "app/scenes.h"

void ks_live_output_init(ks_live_output *o, const ks_live_output_desc *desc)
{
    *o = (ks_live_output){0};
    o->d = *desc;
    o->scene_name = desc->opt->scene->name;
}

ks_status ks_live_output_start(ks_live_output *o)
{
    const ks_options *opt = o->d.opt;
    if (opt->save_every) KS_TRY(ks_timings_csv_init(&o->csv, opt->out_dir, o->scene_name));
    ks_progress_init(&o->progress, o->d.headless && (opt->progress || isatty(2)));
    return KS_OK;
}

int ks_live_output_saves(const ks_live_output *o, long long frames_done)
{
    const ks_options *opt = o->d.opt;
    if (!opt->save_every || frames_done <= 0) return 0;
    if (frames_done % opt->save_every == 0) return 1;
    return o->d.headless && opt->frames && frames_done == opt->frames;
}

ks_status ks_live_output_save(ks_live_output *o, ks_image_format fmt, ks_live_save what, const char *tag,
                              long long frame, char *msg, size_t msg_cap)
{
    if (msg_cap) msg[0] = '\0';
    unsigned char *rgba = NULL;
    int w = 0, h = 0;
    if (what == KS_SAVE_FIELD && o->d.api->full_picture) KS_TRY(o->d.api->full_picture(o->d.scene, &rgba, &w, &h));
    else if (what != KS_SAVE_SCREEN) KS_TRY(ks_renderer_read_image(o->d.renderer, &rgba, &w, &h));
    else KS_TRY(ks_renderer_read_frame(o->d.renderer, &rgba, &w, &h));
    const char *dir = o->d.opt->out_dir;
    char path[1024];
    int n = snprintf(path, sizeof path, "%s/%s_%06lld%s.%s", dir, o->scene_name, frame, tag, ks_image_format_ext(fmt));
    ks_status st = (n > 0 && (size_t)n < sizeof path)
                       ? ks_image_write(path, fmt, rgba, w, h)
                       : ks_fail(KS_ERR_IO, "output path too long under '%s'", KS_QUOTED(dir));
    free(rgba);
    if (st == KS_OK) {
        ks_note_wrote(path);
        ++o->saved;
        size_t used = 0;
        if (!o->d.headless && msg_cap) ks_text_append(msg, msg_cap, &used, "saved %s (%dx%d)", path, w, h);
    }
    return st;
}

ks_status ks_live_output_frame(ks_live_output *o, long long frames_done, int overlay)
{
    if (!ks_live_output_saves(o, frames_done)) return KS_OK;
    return ks_live_output_save(o, o->d.opt->format, overlay ? KS_SAVE_SCREEN : KS_SAVE_PICTURE, "", frames_done,
                               NULL, 0);
}

ks_status ks_live_output_pump(ks_live_output *o, ks_stage_timer *timer)
{
    return o->d.opt->save_every ? ks_timings_csv_pump(&o->csv, timer) : KS_OK;
}

void ks_live_output_progress(ks_live_output *o, long long frames_done)
{
    if (!o->d.headless) return;
    char status[160] = "";
    if (o->d.api->status) o->d.api->status(o->d.scene, status, sizeof status);
    ks_progress_tick(&o->progress, frames_done, o->d.opt->frames, status);
}

ks_status ks_live_output_close(ks_live_output *o, ks_stage_timer *timer)
{
    return o->d.opt->save_every ? ks_timings_csv_close(&o->csv, timer) : KS_OK;
}

void ks_live_output_summary(ks_live_output *o, long long frames, const ks_stage_timer *timer, const char *video,
                            const ks_display_video *rec)
{
    const ks_options *opt = o->d.opt;
    /* the flag table lets --dump-field reach only the scenes that write it */
    const int dumped = opt->dump_field != NULL;
    if (dumped) ks_note_wrote(opt->dump_field);

    char status[160] = "", written[1400] = "";
    if (o->d.api->status) o->d.api->status(o->d.scene, status, sizeof status);
    size_t used = 0;
    if (o->saved)
        ks_text_append(written, sizeof written, &used, "%lld %s in %s", o->saved,
                       ks_plural(o->saved, "picture", "pictures"), opt->out_dir);
    if (opt->save_every)
        ks_text_append(written, sizeof written, &used, "%stimings in %s", used ? ", " : "", o->csv.path);
    if (dumped)
        ks_text_append(written, sizeof written, &used, "%sfield in %s", used ? ", " : "", opt->dump_field);
    if (video[0]) ks_text_append(written, sizeof written, &used, "%s%s", used ? ", " : "", video);
    else if (rec->videos)
        ks_text_append(written, sizeof written, &used, "%s%d %s, the last %s", used ? ", " : "", rec->videos,
                       ks_plural(rec->videos, "video", "videos"), rec->last);
    char line[1408] = "";
    if (used) snprintf(line, sizeof line, "wrote %s", written);
    ks_summary_print(o->scene_name, frames, status, timer, line);
}

void ks_live_output_abort(ks_live_output *o) { ks_stream_abort(o->csv.stream); }
