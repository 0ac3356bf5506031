#include "serve_auth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


ks_status ks_serve_parse_listen(const char *text, char addr[KS_SERVE_ADDR_MAX], int *port)
{
    const char *port_text = text;
    snprintf(addr, KS_SERVE_ADDR_MAX, "127.0.0.1");
    if (!text || !*text) return ks_fail(KS_ERR_INVALID, "--serve: empty value (PORT or ADDR:PORT)");
    if (text[0] == '[') { /* [IPv6]:PORT */
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':' || close == text + 1 || (size_t)(close - text - 1) >= KS_SERVE_ADDR_MAX)
            return ks_fail(KS_ERR_INVALID, "--serve: '%s' is not [ADDR]:PORT", KS_QUOTED(text));
        memcpy(addr, text + 1, (size_t)(close - text - 1));
        addr[close - text - 1] = '\0';
        port_text = close + 2;
    } else {
        const char *colon = strrchr(text, ':');
        if (colon) {
            if (colon == text || strchr(text, ':') != colon || (size_t)(colon - text) >= KS_SERVE_ADDR_MAX)
                return ks_fail(KS_ERR_INVALID, "--serve: '%s' is not [ADDR:]PORT (IPv6 as [ADDR]:PORT)",
                               KS_QUOTED(text));
            memcpy(addr, text, (size_t)(colon - text));
            addr[colon - text] = '\0';
            port_text = colon + 1;
        }
    }
    for (const char *p = addr; *p; ++p)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '.' ||
              *p == '-' || *p == ':'))
            return ks_fail(KS_ERR_INVALID, "--serve: '%s' is not an address", KS_QUOTED(addr));
    char *end = NULL;
    errno = 0;
    long v = (*port_text >= '0' && *port_text <= '9') ? strtol(port_text, &end, 10) : -1;
    if (v < 0 || v > 65535 || errno || !end || *end)
        return ks_fail(KS_ERR_INVALID, "--serve: '%s' is not a port (0..65535)", KS_QUOTED(port_text));
    *port = (int)v;
    return KS_OK;
}

int ks_serve_addr_is_loopback(const char *addr)
{
    return strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0 || strcmp(addr, "localhost") == 0;
}

ks_status ks_serve_check_token_text(const char *token)
{
    size_t n = token ? strlen(token) : 0;
    if (n < 8 || n >= KS_SERVE_TOKEN_MAX)
        return ks_fail(KS_ERR_INVALID, "--token: give 8..%d characters", KS_SERVE_TOKEN_MAX - 1);
    for (size_t i = 0; i < n; ++i) {
        const char c = token[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' ||
              c == '.' || c == '~'))
            return ks_fail(KS_ERR_INVALID, "--token: only letters, digits, '-', '_', '.' and '~' (it goes into URLs)");
    }
    return KS_OK;
}

ks_status ks_serve_make_token(char *out, size_t cap)
{
    unsigned char raw[16];
    if (cap < 2 * sizeof raw + 1) return ks_fail(KS_ERR_INVALID, "token buffer too small");
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f) return ks_fail(KS_ERR_IO, "--serve: cannot open /dev/urandom for a token: %s", strerror(errno));
    size_t got = fread(raw, 1, sizeof raw, f);
    fclose(f);
    if (got != sizeof raw) return ks_fail(KS_ERR_IO, "--serve: short read from /dev/urandom");
    for (size_t i = 0; i < sizeof raw; ++i) snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return KS_OK;
}

int ks_serve_token_matches(const char *expected, const char *given)
{
    if (!expected || !given || !*expected) return 0;
    const size_t n = strlen(expected), m = strlen(given);
    unsigned diff = (unsigned)(n ^ m);
    for (size_t i = 0; i < n; ++i) diff |= (unsigned char)expected[i] ^ (unsigned char)(i < m ? given[i] : 0);
    return diff == 0;
}
