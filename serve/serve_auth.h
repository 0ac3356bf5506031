/* Where the server listens and who may use it: "[ADDR:]PORT" parsing, the
 * loopback rule (any other address needs a token), token making and checking. */
#ifndef KS_SERVE_AUTH_H
#define KS_SERVE_AUTH_H

#include <stddef.h>

#include "base/ks_error.h"

enum { KS_SERVE_ADDR_MAX = 64, KS_SERVE_TOKEN_MAX = 128 };

/* "8080", "0.0.0.0:8080", "[::1]:8080", "localhost:8080" into addr (default
 * "127.0.0.1") and port (0..65535; 0 picks a free one). KS_ERR_INVALID with
 * a one-line message otherwise. */
ks_status ks_serve_parse_listen(const char *text, char addr[KS_SERVE_ADDR_MAX], int *port);
/* 1 for 127.0.0.1 (any 127.x.y.z), ::1 and localhost. */
int ks_serve_addr_is_loopback(const char *addr);
/* A token may hold letters, digits, '-', '_', '.', '~' (URL-safe), 8..127 characters. */
ks_status ks_serve_check_token_text(const char *token);
/* 32 hex digits from /dev/urandom into out (>= 33 bytes). */
ks_status ks_serve_make_token(char *out, size_t cap);
/* Constant-time comparison; given NULL or "" never matches. */
int ks_serve_token_matches(const char *expected, const char *given);

#endif
