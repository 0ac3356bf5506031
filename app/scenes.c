#include "app/scenes.h"

#include <stdio.h>
#include <string.h>

#define KS_SCENE(def) extern const ks_scene_def def;
#include "app/scenes/registry.h"
#undef KS_SCENE

#define KS_SCENE(def) &def,
static const ks_scene_def *const ks_scene_rows[] = {
#include "app/scenes/registry.h"
};
#undef KS_SCENE
enum { KS_SCENE_ROWS = (int)(sizeof ks_scene_rows / sizeof ks_scene_rows[0]) };

/* The rows in rank order, and the distinct option groups, worked out once. */
static const ks_scene_def *ks_sorted[KS_SCENE_ROWS];
static const ks_option_group *ks_groups[KS_SCENE_ROWS];
static int ks_group_n = -1;

static void order_rows(void)
{
    if (ks_group_n >= 0) return;
    for (int i = 0; i < KS_SCENE_ROWS; ++i) {
        int j = i;
        for (; j > 0 && ks_sorted[j - 1]->rank > ks_scene_rows[i]->rank; --j) ks_sorted[j] = ks_sorted[j - 1];
        ks_sorted[j] = ks_scene_rows[i];
    }
    int n = 0;
    for (int i = 0; i < KS_SCENE_ROWS; ++i) {
        const ks_option_group *g = ks_sorted[i]->options;
        int seen = !g;
        for (int k = 0; k < n && !seen; ++k) seen = ks_groups[k] == g;
        if (!seen) ks_groups[n++] = g;
    }
    ks_group_n = n;
}

int ks_scene_def_count(void) { return KS_SCENE_ROWS; }

const ks_scene_def *ks_scene_def_at(int i)
{
    order_rows();
    return i >= 0 && i < KS_SCENE_ROWS ? ks_sorted[i] : NULL;
}

const ks_scene_def *ks_scene_def_default(void) { return ks_scene_def_at(0); }

const ks_scene_def *ks_scene_def_find(const char *name)
{
    for (int i = 0; i < KS_SCENE_ROWS; ++i)
        if (strcmp(ks_scene_rows[i]->name, name) == 0) return ks_scene_rows[i];
    return NULL;
}

void ks_scene_def_names(const char *sep, int views_only, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (int i = 0; i < KS_SCENE_ROWS && used < len; ++i) {
        const ks_scene_def *d = ks_scene_def_at(i);
        if (views_only && !d->live) continue;
        const int n = snprintf(buf + used, len - used, "%s%s", used ? sep : "", d->name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

int ks_option_group_count(void)
{
    order_rows();
    return ks_group_n;
}

const ks_option_group *ks_option_group_at(int i)
{
    order_rows();
    return i >= 0 && i < ks_group_n ? ks_groups[i] : NULL;
}

int ks_option_group_index(const ks_option_group *g)
{
    order_rows();
    for (int i = 0; i < ks_group_n; ++i)
        if (ks_groups[i] == g) return i;
    return -1;
}

int ks_flag_named(const char *list, const char *flag)
{
    const size_t n = strlen(flag);
    for (const char *p = list ? strstr(list, flag) : NULL; p; p = strstr(p + 1, flag))
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) return 1;
    return 0;
}

int ks_scene_knows_kernel(const char *scene, const char *variant)
{
    const ks_scene_def *d = ks_scene_def_find(scene);
    return d && d->has_kernel && d->has_kernel(d, variant);
}
