#define _POSIX_C_SOURCE 200809L /* nanosleep */
/* libkernelscope's window (ks_viewer_desc.window) for tests/viewer_window.sh:
 * shows a field with a window, says "drawn" once its first picture is made,
 * then keeps showing until a key from the window asks it to stop, and prints
 * what ks_viewer_poll gave ("quit steps=N paused=P"). Without a display the
 * create must fail with KS_VIEWER_EDISPLAY and one line ("nodisplay" mode). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernelscope.h"

int main(int argc, char **argv)
{
    ks_viewer_desc d;
    memset(&d, 0, sizeof d);
    d.window = 1;
    d.title = "ks-window-test";
    ks_viewer *v = NULL;
    const int st = ks_viewer_create(&d, &v);
    if (argc > 1 && strcmp(argv[1], "nodisplay") == 0) {
        printf("%d %s\n", st, ks_viewer_last_error());
        return st == KS_VIEWER_EDISPLAY && strchr(ks_viewer_last_error(), '\n') == NULL ? 0 : 1;
    }
    if (st != KS_VIEWER_OK) {
        fprintf(stderr, "viewer_window_host: %s\n", ks_viewer_last_error());
        return 1;
    }
    enum { W = 96, H = 64 };
    static float field[W * H];
    int steps = 0, paused = 0, said = 0;
    const time_t give_up = time(NULL) + 60;
    for (long it = 0; time(NULL) < give_up; ++it) {
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) field[y * W + x] = (float)((x + y + it) % 97) / 96.0f;
        ks_viewer_field f;
        memset(&f, 0, sizeof f);
        f.data = field;
        f.dims = 2;
        f.size[0] = W;
        f.size[1] = H;
        if (ks_viewer_show(v, &f) != KS_VIEWER_OK) {
            fprintf(stderr, "viewer_window_host: %s\n", ks_viewer_last_error());
            return 1;
        }
        if (!said && ks_viewer_save(v, argc > 1 ? argv[1] : "/dev/null", NULL, NULL) == KS_VIEWER_OK) {
            printf("drawn\n");
            fflush(stdout);
            said = 1;
        }
        ks_viewer_input in;
        ks_viewer_poll(v, &in);
        steps += in.steps;
        paused = in.paused;
        if (in.steps) { /* the test's signal that a step arrived */
            printf("steps=%d\n", steps);
            fflush(stdout);
        }
        for (int k = 0; k < in.nkeys; ++k) { /* and that a key of the program's arrived */
            printf("key=%s\n", ks_viewer_key_name(in.keys[k]));
            fflush(stdout);
        }
        if (in.quit) {
            printf("quit steps=%d paused=%d\n", steps, paused);
            return ks_viewer_close(v) == KS_VIEWER_OK ? 0 : 1;
        }
        struct timespec nap = {0, 5000000};
        nanosleep(&nap, NULL);
    }
    fprintf(stderr, "viewer_window_host: no Q from the window in 60 s\n");
    ks_viewer_destroy(v);
    return 1;
}
