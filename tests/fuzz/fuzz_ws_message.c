/* libFuzzer target: a WebSocket text message from a page (ks_req_ws_message:
 * strict UTF-8, then JSON through lws's lejp). Whatever it holds: a close
 * code of 1007 / 1009 or a parsed message whose numbers are finite, whose
 * key is a known one and whose figures are in range; text that is not UTF-8
 * is never parsed. Built and run by scripts/fuzz.sh. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *msg = malloc(size + 1); /* the server hands over a NUL-terminated copy */
    if (!msg) return 0;
    memcpy(msg, data, size);
    msg[size] = '\0';
    ks_ws_input in;
    const int code = ks_req_ws_message(msg, size, &in);
    if (code != 0 && code != 1007 && code != 1009) abort();
    if (code == 1009 && size <= KS_REQ_WS_MSG_MAX) abort();
    if (code == 0 && !ks_req_utf8_valid(data, size)) abort();
    if (code != 0 && in.kind != KS_WS_NONE) abort();
    switch (in.kind) {
    case KS_WS_KEY: if (!in.key) abort(); break;
    case KS_WS_STATS:
        if (!(in.fps >= 0.0 && in.fps <= 100000.0) || (in.codec != 1 && in.codec != 2)) abort();
        break;
    case KS_WS_MOUSE:
        if (!isfinite(in.x) || !isfinite(in.y) || !isfinite(in.dx) || !isfinite(in.dy)) abort();
        if (in.mouse < KS_WS_MOUSE_MOVE || in.mouse > KS_WS_MOUSE_DRAG) abort();
        break;
    default: break;
    }
    free(msg);
    return 0;
}
