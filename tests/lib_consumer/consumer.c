/* A user's program: a 2D heat field, a few Jacobi steps, each shown; the last
 * picture saved to argv[1]. Only the installed header and library. */
#include <stdio.h>
#include <stdlib.h>

#include <kernelscope.h>

enum { NX = 96, NY = 64 };

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer PICTURE.png\n");
        return 2;
    }
    static float u[NY][NX], w[NY][NX];
    for (int x = 0; x < NX; ++x) u[NY - 1][x] = w[NY - 1][x] = 1.0f; /* a hot top edge */
    ks_viewer *v = NULL;
    ks_viewer_desc d = {0};
    d.title = "consumer";
    d.range[1] = 1.0;
    if (ks_viewer_create(&d, &v) != KS_VIEWER_OK) {
        fprintf(stderr, "consumer: %s\n", ks_viewer_last_error());
        return 1;
    }
    for (int it = 0; it < 200; ++it) {
        for (int y = 1; y < NY - 1; ++y)
            for (int x = 1; x < NX - 1; ++x) w[y][x] = 0.25f * (u[y][x - 1] + u[y][x + 1] + u[y - 1][x] + u[y + 1][x]);
        for (int y = 1; y < NY - 1; ++y)
            for (int x = 1; x < NX - 1; ++x) u[y][x] = w[y][x];
        ks_viewer_field f = {0};
        f.data = u;
        f.dims = 2;
        f.size[0] = NX;
        f.size[1] = NY;
        if (ks_viewer_show(v, &f) != KS_VIEWER_OK || ks_viewer_value(v, "step", it) != KS_VIEWER_OK) {
            fprintf(stderr, "consumer: %s\n", ks_viewer_last_error());
            return 1;
        }
    }
    int width = 0, height = 0;
    const int st = ks_viewer_save(v, argv[1], &width, &height);
    if (st != KS_VIEWER_OK) fprintf(stderr, "consumer: %s\n", ks_viewer_last_error());
    else printf("consumer: saved a %d x %d picture\n", width, height);
    ks_viewer_destroy(v);
    return st == KS_VIEWER_OK && width == NX && height == NY ? 0 : 1;
}
