/* kernelscope new-kernel (app/new_kernel.h). */
#include "app/new_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/scenes.h"
#include "base/out_file.h"

int ks_new_kernel_asked(int argc, char **argv) { return argc > 1 && strcmp(argv[1], "new-kernel") == 0; }

/* "laplace3d, laplace2d": the rows with a kernel contract. */
static void contract_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < ks_scene_def_count() && used < len; ++i) {
        const ks_scene_def *d = ks_scene_def_at(i);
        if (!d->kernel_contract) continue;
        const int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", d->name);
        if (n > 0) used += (size_t)n;
    }
}

/* ", "-separated names new-kernel --from takes for d ("" without any). */
static void from_names(const ks_scene_def *d, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const ks_kernel_from *f = d->kernel_from; f && f->variant && used < len; ++f) {
        const int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", f->variant);
        if (n > 0) used += (size_t)n;
    }
}

const char *ks_new_kernel_from(const ks_scene_def *d, const char *variant)
{
    if (!variant) return d->kernel_starter;
    for (const ks_kernel_from *f = d->kernel_from; f && f->variant; ++f)
        if (strcmp(f->variant, variant) == 0) return f->text;
    return NULL;
}

char *ks_new_kernel_text(const ks_scene_def *d, const char *from, const char *file)
{
    const char *kernel = d->kernel_contract ? ks_new_kernel_from(d, from) : NULL;
    if (!kernel) return NULL;
    size_t lines = 0;
    for (const char *p = d->kernel_contract; *p; ++p) lines += *p == '\n';
    const size_t cap = strlen(d->kernel_contract) + 5 * (lines + 1) + strlen(kernel) + strlen(file) +
                       2 * strlen(d->name) + (from ? strlen(from) : 0) + 512;
    char *text = malloc(cap);
    if (!text) return NULL;
    size_t used = (size_t)snprintf(text, cap,
                                   "// Your own %s kernel for kernelscope (written by kernelscope new-kernel %s%s%s\n"
                                   "// as %s). Compile it: kernelscope %s --kernel-file %s\n"
                                   "//\n"
                                   "// The contract (kernelscope --help shows it too):\n",
                                   d->name, d->name, from ? " --from " : "", from ? from : "", file, d->name, file);
    for (const char *p = d->kernel_contract; *p && used < cap;) {
        const size_t n = strcspn(p, "\n");
        used += (size_t)snprintf(text + used, cap - used, "//   %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    if (used < cap) snprintf(text + used, cap - used, "\n%s", kernel);
    return text;
}

/* Writes text to path through a temporary beside it, linked into place: the
 * link fails when path exists, so a file made meanwhile is never replaced. */
static ks_status write_new(const char *path, const char *text)
{
    ks_out_file *f = NULL;
    ks_status st = ks_out_file_open(&(ks_out_file_desc){.path = path, .no_clobber = 1, .sync = 1}, &f);
    if (st == KS_OK) st = ks_out_file_write(f, text, strlen(text));
    if (st != KS_OK) {
        ks_out_file_abort(f);
        ks_error_prefix("new-kernel");
        return st;
    }
    st = ks_out_file_commit(f);
    if (st == KS_ERR_INVALID)
        return ks_fail(KS_ERR_INVALID, "new-kernel: '%s' exists; it is left as it is (remove it or give -o ANOTHER.cu)",
                       KS_QUOTED(path));
    if (st != KS_OK) ks_error_prefix("new-kernel");
    return st;
}

ks_status ks_new_kernel_run(int argc, char **argv, char *path, size_t path_len, int *help)
{
    char names[256];
    contract_names(names, sizeof names);
    *help = 0;
    const char *scene = NULL, *out = NULL, *from = NULL;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            *help = 1;
            return KS_OK;
        } else if (strcmp(a, "-o") == 0) {
            if (out) return ks_fail(KS_ERR_INVALID, "new-kernel: -o given twice");
            if (i + 1 >= argc || !argv[i + 1][0]) return ks_fail(KS_ERR_INVALID, "new-kernel: -o needs a FILE");
            out = argv[++i];
        } else if (strcmp(a, "--from") == 0 || strncmp(a, "--from=", 7) == 0) {
            if (from) return ks_fail(KS_ERR_INVALID, "new-kernel: --from given twice");
            from = a[6] == '=' ? a + 7 : i + 1 < argc ? argv[++i] : "";
            if (!from[0]) return ks_fail(KS_ERR_INVALID, "new-kernel: --from needs a VARIANT");
        } else if (a[0] == '-' && a[1]) {
            return ks_fail(KS_ERR_INVALID, "new-kernel: unknown option '%s' (usage: kernelscope new-kernel SCENE "
                                           "[--from VARIANT] [-o FILE])", KS_QUOTED(a));
        } else if (scene) {
            return ks_fail(KS_ERR_INVALID, "new-kernel: more than one scene given ('%s')", KS_QUOTED(a));
        } else {
            scene = a;
        }
    }
    if (!scene)
        return ks_fail(KS_ERR_INVALID, "new-kernel needs a scene: kernelscope new-kernel SCENE [--from VARIANT] [-o FILE] (%s)",
                       names);
    const ks_scene_def *d = ks_scene_def_find(scene);
    if (!d) return ks_fail(KS_ERR_INVALID, "new-kernel: unknown scene '%s' (scenes with a kernel contract: %s)",
                           KS_QUOTED(scene), names);
    if (!d->kernel_contract || !d->kernel_starter)
        return ks_fail(KS_ERR_INVALID, "new-kernel: %s has no kernel contract yet (scenes with one: %s)", d->name,
                       names);
    if (from && !ks_new_kernel_from(d, from)) {
        char have[256];
        from_names(d, have, sizeof have);
        if (!have[0])
            return ks_fail(KS_ERR_INVALID, "new-kernel: none of %s's variants is written to its contract yet; without "
                                           "--from the starter is the course's simple kernel", d->name);
        return ks_fail(KS_ERR_INVALID, "new-kernel: --from %s: %s has no such variant written to its contract (it has: "
                                       "%s; without --from, the course's simple kernel)",
                       KS_QUOTED(from), d->name, have);
    }
    if (out) {
        if (snprintf(path, path_len, "%s", out) >= (int)path_len)
            return ks_fail(KS_ERR_INVALID, "new-kernel: -o: the path is too long");
    } else {
        snprintf(path, path_len, "%s_kernel.cu", d->name);
    }
    struct stat sb;
    if (lstat(path, &sb) == 0) /* the friendly check; the link below is the safe one */
        return ks_fail(KS_ERR_INVALID, "new-kernel: '%s' exists; it is left as it is (remove it or give -o ANOTHER.cu)",
                       KS_QUOTED(path));
    char *text = ks_new_kernel_text(d, from, path);
    if (!text) return ks_fail(KS_ERR_OUT_OF_MEMORY, "new-kernel: out of memory");
    const ks_status st = write_new(path, text);
    free(text);
    return st;
}
