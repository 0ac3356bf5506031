/* libFuzzer target: a POST /key and its body as it arrives. The first line
 * is the Content-Length text, the rest the body, cut into chunks whose sizes
 * come from the input. A key is acted on only when the length was valid, not
 * over KS_REQ_BODY_MAX, and exactly that many bytes came; more than declared
 * is refused (the connection would close). Built and run by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    const size_t cl_len = nl ? (size_t)(nl - data) : size;
    if (cl_len > 64) return 0;
    char cl[65];
    memcpy(cl, data, cl_len);
    cl[cl_len] = '\0';
    ks_req r;
    memset(&r, 0, sizeof r);
    r.method = KS_REQ_POST;
    r.path = "/key";
    r.args[r.nargs++] = "k=space";
    r.host = "localhost:8000";
    r.addr = "127.0.0.1";
    r.port = 8000;
    r.content_length = strlen(cl) == cl_len ? cl : ""; /* a NUL inside: as lws copies it, cut there */
    ks_req_answer a;
    ks_req_decide(&r, &a);
    const long long want = ks_req_content_length(r.content_length);
    if (a.route == KS_ROUTE_KEY) {
        if (want < 0 || want > KS_REQ_BODY_MAX || a.body_len != want) abort();
    } else if (a.status != 400 && a.status != 413) {
        abort();
    }
    if (a.route != KS_ROUTE_KEY) return 0;
    /* the body: chunk sizes from the bytes themselves (1..64) */
    const uint8_t *body = nl ? nl + 1 : data + size;
    size_t left = (size_t)(data + size - body), got = 0;
    ks_req_body b = {a.body_len, 0};
    int done = a.body_len == 0, refused = 0;
    while (left && !refused) {
        size_t n = (size_t)(body[got] % 64) + 1;
        if (n > left) n = left;
        const int rc = ks_req_body_feed(&b, n);
        if (rc < 0) {
            refused = 1;
            if ((long long)(got + n) <= a.body_len) abort(); /* refused within what was declared */
        } else {
            got += n;
            left -= n;
            done = rc == 1;
            if (done != ((long long)got == a.body_len)) abort();
        }
    }
    if (b.got > b.declared) abort();
    (void)done;
    return 0;
}
