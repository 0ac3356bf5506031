/* --help and --list-scenes (app/options.h), written from the flag rows and
 * the scene registry. */
#include "app/options.h"

#include <stdio.h>
#include <string.h>

#include "app/options_common.h"
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

void ks_options_print_help(void)
{
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
        if (!d->kernel_contract) continue;
        printf("\n%s kernel contract (your own kernel):\n", d->name);
        for (const char *p = d->kernel_contract; *p;) {
            const size_t n = strcspn(p, "\n");
            printf("  %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
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
