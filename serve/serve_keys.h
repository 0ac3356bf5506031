/* Key names the pages and POST /key use: GLFW's key names in lower case
 * ("space", "tab", "m", "right", "page_up", "f1"). */
#ifndef KS_SERVE_KEYS_H
#define KS_SERVE_KEYS_H

/* The ks_key (render/window.h) of name, 0 when unknown; *shift set for names that imply it ("plus"). */
int ks_serve_key_from_name(const char *name, int *shift);

/* The page's name of a ks_key code ("tab", "m", "plus"); NULL for none. */
const char *ks_serve_key_name(int key);

#endif
