/* --help and --list-scenes (app/options.h), written from the flag rows and
 * the scene registry. */
#include "app/options.h"

#include <stdio.h>
#include <string.h>

#include "app/options_common.h"
#include "app/scene.h"
#include "app/scenes.h"

static void print_rows(const ks_flag_row *rows, int n)
{
    for (int k = 0; k < n; ++k) {
        const ks_flag_row *r = &rows[k];
        if (!r->help) continue; /* --help, --version: listed at the end */
        char head[64], text[1024], list[512] = "";
        snprintf(head, sizeof head, "%s%s%s", r->name, r->arg ? " " : "", r->arg ? r->arg : "");
        if (r->help_list) r->help_list(list, sizeof list);
        if (r->help_list) snprintf(text, sizeof text, r->help, list);
        else snprintf(text, sizeof text, "%s", r->help);
        /* continuation lines line up under the text */
        char *line = text, *nl;
        printf("  %-22s  ", head);
        while ((nl = strchr(line, '\n'))) {
            printf("%.*s\n  %-22s  ", (int)(nl - line), line, "");
            line = nl + 1;
        }
        printf("%s\n", line);
    }
}

/* The contract of scene d's own kernels (--kernel-file), indented. */
static void print_contract(const ks_scene_def *d)
{
    printf("\n%s kernel contract (your own kernel):\n", d->name);
    for (const char *p = d->kernel_contract; *p;) {
        const size_t n = strcspn(p, "\n");
        printf("  %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* "--frames N" entries wrapped in lines of at most 100 columns, after two spaces. */
static void print_brief(const ks_flag_row *const *rows, int n)
{
    int col = 0;
    for (int k = 0; k < n; ++k) {
        char item[96];
        const int w = snprintf(item, sizeof item, "%s%s%s", rows[k]->name, rows[k]->arg ? " " : "",
                               rows[k]->arg ? rows[k]->arg : "");
        if (col && col + 2 + w > 100) {
            putchar('\n');
            col = 0;
        }
        col += printf("%s%s", col ? "  " : "  ", item);
    }
    if (col) putchar('\n');
}

/* kernelscope SCENE --help (or bench SCENE --help): the scene's flags in
 * full, the flags every view (or bench) takes in brief, its keys and its
 * kernel contract; --help alone prints everything (ks_options_print_help). */
static void print_scene_help(const ks_options *o)
{
    const ks_scene_def *d = o->scene;
    const int bench = o->mode == KS_MODE_BENCH;
    printf("kernelscope %s: %s%s, %s\n\nusage: kernelscope %s%s [options]\n", KS_VERSION, bench ? "bench " : "",
           d->name, d->summary, bench ? "bench " : "", d->name);
    if (d->kernel_contract) printf("       kernelscope new-kernel %s [-o FILE]   (a starter for your own kernel)\n", d->name);
    /* its own rows first (a common flag in its words too), then what it borrows from other
     * scenes' groups, then the common flags: in full those it opts into, in brief the rest */
    const int nflags = ks_flags_count();
    const char *shown[KS_FLAGS_MAX];
    int nshown = 0;
    const ks_flag_row *every[KS_FLAGS_MAX];
    int nevery = 0;
    printf("\n%s%s options:\n", bench ? "bench " : "", d->name);
    for (int pass = 0; pass < 3; ++pass)
        for (int k = 0; k < nflags; ++k) {
            const ks_flag_ref f = ks_flags_at(k);
            if (!f.row->help) continue;
            const int own = f.group && f.group == d->options;
            if (pass == 0 ? !own || !ks_flag_applies_by_name(&f, d, o->mode)
                          : pass == 1 ? !f.group || own || !f.row->set || !ks_flag_applies(&f, d, o->mode)
                                      : f.group || !ks_flag_applies(&f, d, o->mode))
                continue;
            int dup = 0;
            for (int i = 0; i < nshown && !dup; ++i) dup = strcmp(shown[i], f.row->name) == 0;
            /* a borrowed flag the scene's own notes describe in its words (bench live's --grid LIST) */
            if (pass > 0 && d->options && d->options->help_notes && strstr(d->options->help_notes, f.row->name))
                dup = 1;
            if (dup) continue;
            if (pass == 2 && (f.row->in & (bench ? KS_IN_EVERY_BENCH : KS_IN_EVERY_LIVE))) {
                if (strcmp(f.row->name, "--list-scenes") != 0) every[nevery++] = f.row;
                continue;
            }
            print_rows(f.row, 1);
            shown[nshown++] = f.row->name;
        }
    if (d->options && d->options->help_notes) fputs(d->options->help_notes, stdout);
    printf("\nOptions of every %s (kernelscope --help says what each does):\n", bench ? "bench" : "view");
    print_brief(every, nevery);
    if (!bench && d->live && d->live->help) {
        printf("\nKeys (H in the window shows them all; Space pauses, N steps, S saves, Q quits):\n");
        for (const char *p = d->live->help; *p;) {
            const size_t n = strcspn(p, "\n");
            const int title = p == d->live->help && n > 6 && strncmp(p + n - 6, " scene", 6) == 0;
            if (!title) printf("%s%.*s\n", p[0] == ' ' ? "" : "  ", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
    if (d->kernel_contract && ks_flag_named(bench ? d->takes_bench : d->takes_live, "--kernel-file")) print_contract(d);
    else if (d->kernel_contract) {
        for (int k = 0; k < nflags; ++k) {
            const ks_flag_ref f = ks_flags_at(k);
            if (f.group == d->options && strcmp(f.row->name, "--kernel-file") == 0 && ks_flag_applies(&f, d, o->mode)) {
                print_contract(d);
                break;
            }
        }
    }
    printf("\nEvery scene and option: kernelscope --help. Exit status: 0 ok, 1 runtime failure, 2 bad input,\n"
           "130 / 143 stopped by SIGINT / SIGTERM.\n");
}

void ks_options_print_help(const ks_options *o)
{
    if (o && o->scene_given) {
        print_scene_help(o);
        return;
    }
    char views[160], names[160];
    ks_scene_def_names("|", 1, views, sizeof views);
    ks_scene_def_names("|", 0, names, sizeof names);
    printf("kernelscope %s: watch GPU kernels work\n\n"
           "usage: kernelscope [%s] [options]\n"
           "       kernelscope bench %s [options]\n"
           "       kernelscope new-kernel SCENE [-o FILE]   (a starter for your own kernel)\n\nScenes:\n",
           KS_VERSION, views, names);
    for (int i = 0; i < ks_scene_def_count(); ++i)
        printf("  %-22s  %s\n", ks_scene_def_at(i)->name, ks_scene_def_at(i)->summary);
    for (int g = 0; g < ks_option_group_count(); ++g) {
        const ks_option_group *grp = ks_option_group_at(g);
        printf("\n%s:\n", grp->title);
        print_rows(grp->flags, grp->flag_count);
        if (grp->help_notes) fputs(grp->help_notes, stdout);
    }
    for (int i = 0; i < ks_scene_def_count(); ++i) { /* the contract of a user's kernel (--kernel-file) */
        const ks_scene_def *d = ks_scene_def_at(i);
        if (d->kernel_contract) print_contract(d);
    }
    printf("\nAll scenes (flags the scenes above describe apply only where they do):\n");
    for (int k = 0; k < ks_common_flag_count; ++k)
        if (ks_common_flags[k].in) print_rows(&ks_common_flags[k], 1);
    printf("  --help, --version\n\n"
           "A flag given where it means nothing (e.g. --window to bench, --grid to spheres) is refused.\n"
           "Keys: H shows them all in the window. Ctrl-C stops after the frame (again: at once).\n"
           "Exit status: 0 ok, 1 runtime failure, 2 bad input, 130 / 143 stopped by SIGINT / SIGTERM.\n");
}

void ks_options_print_scenes(void)
{
    for (int i = 0; i < ks_scene_def_count(); ++i) {
        const ks_scene_def *d = ks_scene_def_at(i);
        printf("%s %s%s%s\n", d->name, d->live ? "view" : "bench-only", d->sample_args ? " " : "",
               d->sample_args ? d->sample_args : "");
    }
}
