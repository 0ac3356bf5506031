/* The viewer's input: keys from the window, its panels and the page, taken on
 * the viewer's thread (Space pauses, N steps, Q or Escape quits, the rest kept)
 * and handed to the program by ks_viewer_poll. */
#include <string.h>

#include "base/ks_error.h"
#include "display/display.h"
#include "render/window.h"
#include "serve/serve_keys.h"
#include "lib/kernelscope.h"
#include "lib/viewer_internal.h"

_Static_assert(KS_KEY_HOME - KS_KEY_TAB == KS_VIEWER_KEY_HOME - KS_VIEWER_KEY_TAB &&
                   KS_KEY_PERIOD - KS_KEY_TAB == KS_VIEWER_KEY_PERIOD - KS_VIEWER_KEY_TAB,
               "the public keys follow render/window.h's order from Tab to Home");

/* One more key for the program's poll (lock held). */
static void put_key(ks_viewer *v, int key)
{
    if (v->nkeys < KS_VIEWER_KEYS) v->keys[v->nkeys++] = key;
    else ++v->keys_dropped;
}

/* A key from the window, its panels or the page (lock held): Space pauses and resumes, N steps, Q or Escape stops. */
void ks_vw_take_key(ks_viewer *v, int key)
{
    if (key == KS_KEY_SPACE) v->paused = !v->paused;
    else if (key == 'N') ++v->steps;
    else if (key == 'Q' || key == KS_KEY_ESCAPE) v->quit = 1;
    else if (key >= KS_KEY_TAB && key <= KS_KEY_HOME) put_key(v, KS_VIEWER_KEY_TAB + (key - KS_KEY_TAB));
    else if ((key >= 'A' && key <= 'Z') || (key >= '0' && key <= '9')) put_key(v, key);
}

void ks_vw_take_input(ks_viewer *v)
{
    ks_display_poll(v->display);
    ks_window *win = ks_display_window(v->display);
    ks_key_event key;
    ks_input_event ev;
    pthread_mutex_lock(&v->lock);
    while (ks_window_next_key(win, &key)) ks_vw_take_key(v, key.key);
    if (win && ks_window_should_close(win)) v->quit = 1;
    while (ks_display_next_input(v->display, &ev))
        if (ev.type == KS_INPUT_KEY) ks_vw_take_key(v, ev.key);
    pthread_mutex_unlock(&v->lock);
}

int ks_viewer_poll(ks_viewer *v, ks_viewer_input *input)
{
    if (!v || !input) return ks_vw_result(ks_fail(KS_ERR_INVALID, "ks_viewer_poll: no viewer or no input to fill"));
    pthread_mutex_lock(&v->lock);
    input->paused = v->paused;
    input->steps = v->steps;
    input->quit = v->quit;
    input->nkeys = v->nkeys;
    memcpy(input->keys, v->keys, sizeof input->keys);
    input->keys_dropped = v->keys_dropped;
    v->nkeys = v->keys_dropped = 0;
    v->steps = 0;
    if (input->steps) v->paused = 1; /* a step pauses after it, as in the live view */
    pthread_mutex_unlock(&v->lock);
    return ks_vw_result(KS_OK);
}

const char *ks_viewer_key_name(int key)
{
    static const char *const digits[10] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
    static const char *const more[] = {"period", "comma", "home"}; /* the window's only */
    if (key >= '0' && key <= '9') return digits[key - '0'];
    if (key >= 'A' && key <= 'Z') return ks_serve_key_name(key);
    if (key < KS_VIEWER_KEY_TAB || key > KS_VIEWER_KEY_HOME) return NULL;
    const int internal = KS_KEY_TAB + (key - KS_VIEWER_KEY_TAB);
    if (internal >= KS_KEY_PERIOD) return more[internal - KS_KEY_PERIOD];
    return ks_serve_key_name(internal);
}
