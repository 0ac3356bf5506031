#include "serve_keys.h"

#include <string.h>

#include "render/window.h"

static const struct {
    const char *name;
    int key;
} ks_named_keys[] = {
    {"escape", KS_KEY_ESCAPE},
    {"space", KS_KEY_SPACE},
    {"tab", KS_KEY_TAB},
    {"left", KS_KEY_LEFT},
    {"right", KS_KEY_RIGHT},
    {"up", KS_KEY_UP},
    {"down", KS_KEY_DOWN},
    {"page_up", KS_KEY_PAGE_UP},
    {"page_down", KS_KEY_PAGE_DOWN},
    {"left_bracket", KS_KEY_LEFT_BRACKET},
    {"right_bracket", KS_KEY_RIGHT_BRACKET},
    {"kp_add", KS_KEY_PLUS},
    {"plus", KS_KEY_PLUS},      /* shift + equal in the window */
    {"equal", KS_KEY_PLUS},
    {"minus", KS_KEY_MINUS},
    {"kp_subtract", KS_KEY_MINUS},
    {"f1", KS_KEY_F1},
};

int ks_serve_key_from_name(const char *name, int *shift)
{
    *shift = 0;
    if (!name) return 0;
    if (name[0] >= 'a' && name[0] <= 'z' && name[1] == '\0') return 'A' + (name[0] - 'a');
    for (size_t i = 0; i < sizeof ks_named_keys / sizeof ks_named_keys[0]; ++i)
        if (strcmp(ks_named_keys[i].name, name) == 0) {
            *shift = ks_named_keys[i].key == KS_KEY_PLUS;
            return ks_named_keys[i].key;
        }
    return 0;
}

const char *ks_serve_key_name(int key)
{
    static const char *const letters[26] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
                                            "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z"};
    if (key >= 'A' && key <= 'Z') return letters[key - 'A'];
    if (key == KS_KEY_PLUS) return "plus";
    for (size_t i = 0; i < sizeof ks_named_keys / sizeof ks_named_keys[0]; ++i)
        if (ks_named_keys[i].key == key) return ks_named_keys[i].name;
    return NULL;
}
