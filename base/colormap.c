#include "colormap.h"

#include <stdio.h>
#include <string.h>

static const char *const ks_colormap_names[KS_CMAP_NUM] = {"viridis", "viridis", "inferno", "turbo",
                                                           "gray"};

const char *ks_colormap_name(ks_colormap map)
{
    return (map >= 0 && map < KS_CMAP_NUM) ? ks_colormap_names[map] : "?";
}

int ks_colormap_parse(const char *name, ks_colormap *map)
{
    for (int m = KS_CMAP_VIRIDIS; m < KS_CMAP_NUM; ++m) {
        if (strcmp(name, ks_colormap_names[m]) == 0) {
            *map = (ks_colormap)m;
            return 0;
        }
    }
    return -1;
}

void ks_colormap_list(char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (int m = KS_CMAP_VIRIDIS; m < KS_CMAP_NUM && used < len; ++m) {
        const int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", ks_colormap_names[m]);
        if (n < 0) break;
        used += (size_t)n;
    }
}

ks_colormap ks_colormap_next(ks_colormap map)
{
    int next = (int)map + 1;
    if (map == KS_CMAP_DEFAULT) next = KS_CMAP_VIRIDIS + 1;
    return next >= KS_CMAP_NUM ? KS_CMAP_VIRIDIS : (ks_colormap)next;
}

void ks_colormap_table_rgba(ks_colormap map, unsigned char rgba[256][4])
{
    const unsigned char(*table)[3] = ks_colormap_viridis_rgb;
    if (map == KS_CMAP_INFERNO) table = ks_colormap_inferno_rgb;
    if (map == KS_CMAP_TURBO) table = ks_colormap_turbo_rgb;
    for (int i = 0; i < 256; ++i) {
        for (int c = 0; c < 3; ++c)
            rgba[i][c] = map == KS_CMAP_GRAY ? (unsigned char)i : table[i][c];
        rgba[i][3] = 255;
    }
}

float ks_colormap_inv_span(float lo, float hi)
{
    float span = hi - lo;
    return span > 0.0f ? 1.0f / span : 0.0f;
}
