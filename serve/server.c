/* The server's life cycle: an lws context with one vhost on the given
 * address, its service loop on a thread of its own, the encode worker, the
 * input queue. Other threads only publish into the hub and wake the loop
 * with lws_cancel_service (the one lws call that is safe from any thread). */
#include "server_internal.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void *service_main(void *arg)
{
    ks_server *s = arg;
    while (!atomic_load(&s->stop))
        if (lws_service(s->ctx, 0) < 0) break;
    return NULL;
}

static void wake_service(void *user)
{
    ks_server *s = user;
    lws_cancel_service(s->ctx);
}

/* Binds addr:port once with a plain socket and lets it go: lws would take an
 * address that is not on this machine for "any interface", and we want the
 * user's address or an error. */
static ks_status check_bind(const char *addr, int port)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    if (getaddrinfo(addr, port_text, &hints, &res) != 0 || !res)
        return ks_fail(KS_ERR_INVALID, "--serve: '%s' is not an address of this machine", addr);
    int ok = 0;
    for (struct addrinfo *a = res; a && !ok; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        ok = bind(fd, a->ai_addr, a->ai_addrlen) == 0;
        close(fd);
    }
    freeaddrinfo(res);
    if (!ok) return ks_fail(KS_ERR_INVALID, "--serve: cannot listen on %s port %d (address not here, or port in use)", addr, port);
    return KS_OK;
}

/* Files dir/names[0], dir/names[1], ... one after the other, malloc'd; NULL
 * when any is missing or unreadable (the page then keeps its text area). */
static unsigned char *read_files(const char *dir, const char *const *names, size_t *len)
{
    unsigned char *all = NULL;
    size_t used = 0;
    for (; *names; ++names) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, *names);
        FILE *f = fopen(path, "rb");
        long size = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
        unsigned char *grown = size >= 0 && size < (16 << 20) ? realloc(all, used + (size_t)size + 1) : NULL;
        if (!grown || fseek(f, 0, SEEK_SET) != 0 || fread(grown + used, 1, (size_t)size, f) != (size_t)size) {
            if (f) fclose(f);
            free(grown ? grown : all);
            return NULL;
        }
        fclose(f);
        all = grown;
        used += (size_t)size;
        all[used++] = '\n';
    }
    *len = used;
    return all;
}

/* CodeMirror for the page's editor: the library, its C-like mode (CUDA is
 * C++), bracket matching; its style and a dark theme. */
static void load_editor_code(ks_server *s, const char *dir)
{
    static const char *const js[] = {"lib/codemirror.js", "mode/clike/clike.js", "addon/edit/matchbrackets.js", NULL};
    static const char *const css[] = {"lib/codemirror.css", "theme/material-darker.css", NULL};
    s->editor_js = read_files(dir, js, &s->editor_js_len);
    s->editor_css = s->editor_js ? read_files(dir, css, &s->editor_css_len) : NULL;
    if (!s->editor_css) {
        free(s->editor_js);
        s->editor_js = NULL;
    }
}

ks_status ks_server_create(const ks_server_desc *d, ks_server **out)
{
    *out = NULL;
    ks_server *s = calloc(1, sizeof *s);
    if (!s) {
        ks_frame_encoder_destroy(d->video);
        ks_frame_encoder_destroy(d->jpeg);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    pthread_mutex_init(&s->stats_lock, NULL);
    ks_status st = KS_OK;
    /* lws reads a vhost's address as an interface name first: "localhost" would be no interface, so the
     * loopback address it stands for (serve_auth.h) is served; the Host check takes both names */
    const char *addr = d->addr && *d->addr ? d->addr : "127.0.0.1";
    if (strcmp(addr, "localhost") == 0) addr = "127.0.0.1";
    snprintf(s->addr, sizeof s->addr, "%s", addr);
    if (d->token && *d->token) snprintf(s->token, sizeof s->token, "%s", d->token);
    if (d->editor && d->editor->describe && d->editor->submit) {
        s->editor = *d->editor;
        load_editor_code(s, d->codemirror_dir ? d->codemirror_dir : KS_CODEMIRROR_DIR);
    }
    ks_frame_encoder *video = d->video, *jpeg = d->jpeg;
    if ((st = check_bind(s->addr, d->port)) != KS_OK || (st = ks_frame_hub_create(&s->hub)) != KS_OK || (st = ks_input_queue_create(&s->input)) != KS_OK ||
        (!jpeg && (st = ks_frame_encoder_jpeg_create(&(ks_frame_encoder_jpeg_desc){.quality = d->jpeg_quality}, &jpeg)) != KS_OK)) {
        ks_frame_encoder_destroy(video);
        ks_frame_encoder_destroy(jpeg);
        ks_server_destroy(s);
        return st;
    }
    ks_encode_worker_desc wd = {s->hub, jpeg, video, wake_service, s};
    if ((st = ks_encode_worker_create(&wd, &s->worker)) != KS_OK) { /* it owns the encoders now */
        ks_server_destroy(s);
        return st;
    }

    lws_set_log_level(0, NULL); /* errors come back to us as one line each */
    struct lws_context_creation_info ci;
    memset(&ci, 0, sizeof ci);
    ci.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    if (!strchr(s->addr, ':')) ci.options |= LWS_SERVER_OPTION_DISABLE_IPV6; /* see the vhost below */
    ci.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    ci.pt_serv_buf_size = KS_SERVE_RX_MAX; /* the most one read hands routes.c (it keeps room for that much) */
    ci.timeout_secs = 10;
    ci.user = s;
    s->ctx = lws_create_context(&ci);
    if (!s->ctx) {
        ks_server_destroy(s);
        return ks_fail(KS_ERR_IO, "--serve: cannot start the web server (libwebsockets)");
    }
    struct lws_context_creation_info vi;
    memset(&vi, 0, sizeof vi);
    vi.vhost_name = "kernelscope";
    vi.iface = s->addr;
    vi.port = d->port;
    vi.protocols = ks_serve_protocols;
    vi.user = s;
    /* every connection a raw socket bound to our protocol: the HTTP and WebSocket framing are routes.c's
     * (lws 4.1's own misreads a pipelined request's body, has no way to refuse an unmasked frame, and
     * counts only the headers it knows against its limit: docs/serve.md) */
    vi.options = LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND | LWS_SERVER_OPTION_ADOPT_APPLY_LISTEN_ACCEPT_CONFIG;
    vi.listen_accept_role = "raw-skt";
    vi.listen_accept_protocol = ks_serve_protocols[0].name;
    /* an IPv4 address on an IPv6 socket is not found and lws would listen on every
     * address: IPv4 addresses get an IPv4 socket (the tests check the bound address) */
    if (!strchr(s->addr, ':')) vi.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    vi.timeout_secs = 10;
    s->vhost = lws_create_vhost(s->ctx, &vi);
    s->port = s->vhost ? lws_get_vhost_listen_port(s->vhost) : -1;
    if (!s->vhost || s->port <= 0) {
        ks_server_destroy(s);
        return ks_fail(KS_ERR_INVALID, "--serve: cannot listen on %s port %d (address not here, or port in use)",
                       d->addr && *d->addr ? d->addr : "127.0.0.1", d->port);
    }
    const int v6 = strchr(s->addr, ':') != NULL;
    snprintf(s->url, sizeof s->url, "http://%s%s%s:%d/%s%s", v6 ? "[" : "", s->addr, v6 ? "]" : "", s->port,
             s->token[0] ? "?token=" : "", s->token);
    if (pthread_create(&s->thread, NULL, service_main, s) != 0) {
        ks_server_destroy(s);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "--serve: cannot start the service thread");
    }
    s->thread_started = 1;
    *out = s;
    return KS_OK;
}

void ks_server_destroy(ks_server *s)
{
    if (!s) return;
    if (s->thread_started) {
        atomic_store(&s->stop, 1);
        lws_cancel_service(s->ctx);
        pthread_join(s->thread, NULL);
    }
    ks_encode_worker_stop(s->worker); /* no more wake-ups into the context after this */
    if (s->ctx) lws_context_destroy(s->ctx); /* closes the connections: their items are released */
    ks_encode_worker_destroy(s->worker);
    ks_input_queue_destroy(s->input);
    ks_frame_hub_destroy(s->hub);
    pthread_mutex_destroy(&s->stats_lock);
    free(s->editor_js);
    free(s->editor_css);
    free(s);
}

int ks_server_port(const ks_server *s) { return s->port; }
const char *ks_server_url(const ks_server *s) { return s->url; }

int ks_server_wants_frame(ks_server *s)
{
    return ks_encode_worker_wanted(s->worker) > 0;
}

int ks_server_frame_pending(ks_server *s)
{
    return ks_encode_worker_inbox_full(s->worker);
}

ks_status ks_server_publish_frame(ks_server *s, const ks_frame_image *img)
{
    return ks_encode_worker_submit(s->worker, img);
}

ks_status ks_server_publish_state(ks_server *s, const char *json, size_t len)
{
    ks_hub_item *it = ks_hub_item_new(len);
    if (!it) return ks_fail(KS_ERR_OUT_OF_MEMORY, "serve: out of host memory for the state");
    memcpy(it->data, json, len);
    ks_frame_hub_put(s->hub, KS_HUB_STATE, it);
    lws_cancel_service(s->ctx);
    return KS_OK;
}

int ks_server_next_input(ks_server *s, ks_input_event *ev)
{
    return ks_input_queue_pop(s->input, ev);
}

int ks_server_wait_input(ks_server *s, double seconds) { return ks_input_queue_wait(s->input, seconds); }

const char *ks_server_encoder_name(const ks_server *s, ks_frame_kind kind)
{
    return ks_encode_worker_encoder_name(s->worker, kind);
}

void ks_server_viewer_stats_get(ks_server *s, ks_server_viewer_stats *out)
{
    pthread_mutex_lock(&s->stats_lock);
    *out = s->viewer;
    pthread_mutex_unlock(&s->stats_lock);
}
