/* A kernel editor behind the real server, for the page's editor in a browser
 * without a GPU (tests/serve_editor_browser.sh): the source lives in memory,
 * a save's "build" runs until the page has asked twice (so the page sees it
 * busy, whatever the browser's clock), and a source containing "#error" is refused
 * with a log line, as the live view's editor (app/kernel/kernel_page.c)
 * answers. Prints the URL, then serves for SECONDS, or with 0 until SIGTERM
 * or SIGINT (then it ends the server and exits 0). CODEMIRROR_DIR: where
 * CodeMirror is (a folder without it: the page keeps its plain text area).
 *   serve_editor_host SECONDS [CODEMIRROR_DIR] */
#define _POSIX_C_SOURCE 200809L /* sigwait */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/laplace/laplace_contract.h"
#include "serve/request.h"
#include "serve/server.h"
#include "serve/state_json.h"

typedef struct fake {
    char source[KS_REQ_SOURCE_MAX + 1];
    long long build;
    int refused;
    int asks_left; /* a save's build ends after this many more GET /kernel (0: none running) */
} fake;

static void settle(fake *f)
{
    if (f->asks_left > 0 && --f->asks_left == 0) {
        ++f->build;
        f->refused = strstr(f->source, "#error") != NULL;
    }
}

static size_t describe(void *user, char *buf, size_t cap)
{
    fake *f = user;
    settle(f);
    size_t len = (size_t)snprintf(buf, cap, "{\"file\":\"mine.cu\",\"source\":");
    if (ks_json_append_string(buf, cap, &len, f->source)) return 0;
    const int n = snprintf(buf + len, cap - len,
                           ",\"busy\":%s,\"build\":%lld,\"refused\":%s,\"line\":\"%s\",\"log\":[%s],"
                           "\"save_to_running_ms\":%d}",
                           f->asks_left > 0 ? "true" : "false", f->build, f->refused ? "true" : "false",
                           f->refused ? "1 error; the previous code goes on running"
                                      : "compiled in 14 ms, checked in 12 ms, swapped 0.4 ms",
                           f->refused ? "\"mine.cu:3: error: #error directive\"" : "", f->refused ? 0 : 96);
    if (n < 0 || (size_t)n >= cap - len) return 0;
    return len + (size_t)n;
}

static unsigned submit(void *user, const char *src, size_t len, char *msg, size_t cap)
{
    fake *f = user;
    if (f->asks_left > 0) {
        snprintf(msg, cap, "a build is on its way; Compile again when it is done");
        return 409;
    }
    memcpy(f->source, src, len);
    f->source[len] = '\0';
    f->asks_left = 2;
    return 0;
}

int main(int argc, char **argv)
{
    const int seconds = argc > 1 ? atoi(argv[1]) : 60;
    static fake f;
    snprintf(f.source, sizeof f.source, "%s", KS_LAPLACE3D_STARTER);
    f.build = 1;
    const ks_server_editor ed = {&f, describe, submit};
    ks_server_desc d = {0};
    d.token = "editor-test-token";
    d.editor = &ed;
    d.codemirror_dir = argc > 2 ? argv[2] : NULL;
    /* blocked before the server's threads start, so that they inherit it and sigwait takes the signal */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    if (seconds == 0) sigprocmask(SIG_BLOCK, &stop, NULL);
    ks_server *s = NULL;
    if (ks_server_create(&d, &s) != KS_OK) {
        fprintf(stderr, "serve_editor_host: %s\n", ks_error_message());
        return 1;
    }
    printf("%s\n", ks_server_url(s));
    fflush(stdout);
    if (seconds == 0) {
        int sig = 0;
        sigwait(&stop, &sig);
    }
    for (int i = 0; i < seconds * 10; ++i) nanosleep(&(struct timespec){0, 100000000}, NULL);
    ks_server_destroy(s);
    return 0;
}
