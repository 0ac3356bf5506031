/* Window or headless context. Two backends behind one struct: GLFW (a real
 * window, key and cursor input) and EGL without a surface (the renderer draws
 * into its own framebuffer object anyway). */
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE (sanitizer builds) */
#include "window.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <GL/glew.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLFW/glfw3.h>

#if defined(KS_SANITIZE)
#include <dlfcn.h>
#include <link.h>
#endif

enum {
    KS_KEY_QUEUE = 64,    /* pending key presses; more in one frame are dropped */
    KS_EGL_MAX_DEVICES = 16,
    KS_DEFAULT_W = 1280,
    KS_DEFAULT_H = 800,
};

/* Sanitizer builds only: Mesa's driver (swrast_dri / libgallium, llvmpipe)
 * keeps a few allocations for the life of the process and is dlclose'd by
 * eglTerminate / glfwTerminate; LeakSanitizer then reports them from an
 * "<unknown module>" that no suppression can name. Taking an RTLD_NODELETE
 * reference to every loaded library first keeps the driver mapped until exit,
 * so its allocations stay reachable (or are matched by name in
 * tests/lsan.supp) and leak checking covers the GL paths too. */
#if defined(KS_SANITIZE)
static int pin_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0') {
        void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        (void)h; /* NOLOAD: only another reference, meant to stay */
    }
    return 0;
}
#endif

static void pin_gl_driver(void)
{
#if defined(KS_SANITIZE)
    dl_iterate_phdr(pin_one, NULL);
#endif
}

struct ks_window {
    int headless;
    GLFWwindow *glfw;            /* window backend */
    EGLDisplay egl_dpy;          /* headless backend */
    EGLContext egl_ctx;
    int fb_w, fb_h;              /* framebuffer pixels */
    double scroll;               /* wheel notches not yet taken */
    ks_key_event keys[KS_KEY_QUEUE]; /* ring buffer */
    int key_head, key_count;
    unsigned long events;        /* input and window events seen (ks_window_wait tells a wake from a timeout) */
    char gl_desc[256];           /* "GL_VERSION / GL_RENDERER" */
};

/* ---- GLFW error text: kept, never printed -------------------------------- */

static char ks_glfw_last_error[512];

static const char *glfw_error_name(int code)
{
    switch (code) {
    case GLFW_NOT_INITIALIZED: return "GLFW_NOT_INITIALIZED";
    case GLFW_NO_CURRENT_CONTEXT: return "GLFW_NO_CURRENT_CONTEXT";
    case GLFW_INVALID_ENUM: return "GLFW_INVALID_ENUM";
    case GLFW_INVALID_VALUE: return "GLFW_INVALID_VALUE";
    case GLFW_OUT_OF_MEMORY: return "GLFW_OUT_OF_MEMORY";
    case GLFW_API_UNAVAILABLE: return "GLFW_API_UNAVAILABLE";
    case GLFW_VERSION_UNAVAILABLE: return "GLFW_VERSION_UNAVAILABLE";
    case GLFW_PLATFORM_ERROR: return "GLFW_PLATFORM_ERROR";
    case GLFW_FORMAT_UNAVAILABLE: return "GLFW_FORMAT_UNAVAILABLE";
    case GLFW_NO_WINDOW_CONTEXT: return "GLFW_NO_WINDOW_CONTEXT";
    default: return "GLFW error";
    }
}

static void glfw_error_callback(int code, const char *description)
{
    snprintf(ks_glfw_last_error, sizeof ks_glfw_last_error, "%s: %s", glfw_error_name(code),
             description ? description : "(no description)");
}

static const char *glfw_error_text(void)
{
    return ks_glfw_last_error[0] ? ks_glfw_last_error : "no GLFW error text";
}

/* ---- EGL ----------------------------------------------------------------- */

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
    }
}

static int has_extension(const char *list, const char *name)
{
    if (list == NULL) return 0;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

/* Loads GL entry points for the current context and checks for 3.3 core. */
static ks_status load_gl(char *desc, size_t desc_n)
{
    glewExperimental = GL_TRUE; /* core profiles need it for GLEW to load everything */
    /* Debian's GLEW 2.2 is built for GLX and does not export glewContextInit:
     * glewInit loads the GL entry points first and then fails in its GLX part
     * with GLEW_ERROR_NO_GLX_DISPLAY when the context is not a GLX one (EGL,
     * GLFW on Wayland). That result still means GL itself is loaded. */
    GLenum e = glewInit();
    if (e == GLEW_ERROR_NO_GLX_DISPLAY) e = GLEW_OK;
    if (e != GLEW_OK)
        return ks_fail(KS_ERR_GL, "cannot load OpenGL entry points: GLEW: %s", (const char *)glewGetErrorString(e));
    if (glGenVertexArrays == NULL || glMapBufferRange == NULL || glBlitFramebuffer == NULL)
        return ks_fail(KS_ERR_GL, "cannot load OpenGL 3.3 entry points through GLEW");
    /* GLEW's probing can leave GL_INVALID_ENUM behind in core profiles */
    for (int i = 0; i < 8 && glGetError() != GL_NO_ERROR; ++i) {
    }
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    const char *ver = (const char *)glGetString(GL_VERSION);
    const char *ren = (const char *)glGetString(GL_RENDERER);
    snprintf(desc, desc_n, "OpenGL %s / %s", ver ? ver : "?", ren ? ren : "?");
    if (major * 10 + minor < 33)
        return ks_fail(KS_ERR_UNSUPPORTED, "OpenGL 3.3 core needed, got %s", desc);
    return KS_OK;
}

/* Tries one EGL display: initialise, make a 3.3 core context current without a
 * surface. On failure the display is terminated again and *why says why. */
static int egl_try_display(ks_window *w, EGLDisplay dpy, char *why, size_t why_n)
{
    EGLint maj = 0, min = 0;
    if (dpy == EGL_NO_DISPLAY) {
        snprintf(why, why_n, "no display (%s)", egl_error_name(eglGetError()));
        return 0;
    }
    if (!eglInitialize(dpy, &maj, &min)) {
        snprintf(why, why_n, "eglInitialize: %s", egl_error_name(eglGetError()));
        return 0;
    }
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!has_extension(ext, "EGL_KHR_surfaceless_context")) {
        snprintf(why, why_n, "EGL %d.%d display without EGL_KHR_surfaceless_context", maj, min);
        pin_gl_driver();
        eglTerminate(dpy);
        return 0;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        snprintf(why, why_n, "eglBindAPI(EGL_OPENGL_API): %s", egl_error_name(eglGetError()));
        pin_gl_driver();
        eglTerminate(dpy);
        return 0;
    }
    /* surface type 0: any config will do, we never make a surface */
    const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                               EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLConfig cfg = NULL;
    EGLint ncfg = 0;
    if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &ncfg) || ncfg < 1) {
        snprintf(why, why_n, "no OpenGL-capable EGL config (%s)", egl_error_name(eglGetError()));
        pin_gl_driver();
        eglTerminate(dpy);
        return 0;
    }
    const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                               EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
    if (ctx == EGL_NO_CONTEXT) {
        snprintf(why, why_n, "eglCreateContext(3.3 core): %s", egl_error_name(eglGetError()));
        pin_gl_driver();
        eglTerminate(dpy);
        return 0;
    }
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        snprintf(why, why_n, "eglMakeCurrent: %s", egl_error_name(eglGetError()));
        eglDestroyContext(dpy, ctx);
        pin_gl_driver();
        eglTerminate(dpy);
        return 0;
    }
    if (load_gl(w->gl_desc, sizeof w->gl_desc) != KS_OK) {
        snprintf(why, why_n, "%s", ks_error_message());
        eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(dpy, ctx);
        pin_gl_driver();
        eglTerminate(dpy);
        return 0;
    }
    w->egl_dpy = dpy;
    w->egl_ctx = ctx;
    return 1;
}

static ks_status egl_create(ks_window *w)
{
    char why[256] = "no EGL display tried";
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");

    /* 1. every device in turn: on the GPU machine that is NVIDIA's */
    if (has_extension(client, "EGL_EXT_device_enumeration") &&
        has_extension(client, "EGL_EXT_platform_device") && get_platform_display != NULL) {
        PFNEGLQUERYDEVICESEXTPROC query_devices =
            (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        EGLDeviceEXT devs[KS_EGL_MAX_DEVICES];
        EGLint ndev = 0;
        if (query_devices != NULL && query_devices(KS_EGL_MAX_DEVICES, devs, &ndev)) {
            for (EGLint i = 0; i < ndev; ++i) {
                EGLDisplay dpy = get_platform_display(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
                if (egl_try_display(w, dpy, why, sizeof why)) return KS_OK;
            }
        } else if (query_devices != NULL) {
            snprintf(why, sizeof why, "eglQueryDevicesEXT: %s", egl_error_name(eglGetError()));
        }
    }
    /* 2. Mesa's surfaceless platform */
    if (has_extension(client, "EGL_MESA_platform_surfaceless") && get_platform_display != NULL) {
        EGLDisplay dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (egl_try_display(w, dpy, why, sizeof why)) return KS_OK;
    }
    /* 3. whatever the default display is */
    if (egl_try_display(w, eglGetDisplay(EGL_DEFAULT_DISPLAY), why, sizeof why)) return KS_OK;
    return ks_fail(KS_ERR_NO_DEVICE, "headless: no EGL display gives an OpenGL 3.3 core context (last: %s)", why);
}

/* ---- GLFW ---------------------------------------------------------------- */

static int map_key(int key, int mods)
{
    switch (key) {
    case GLFW_KEY_ESCAPE: return KS_KEY_ESCAPE;
    case GLFW_KEY_SPACE: return KS_KEY_SPACE;
    case GLFW_KEY_TAB: return KS_KEY_TAB;
    case GLFW_KEY_LEFT: return KS_KEY_LEFT;
    case GLFW_KEY_RIGHT: return KS_KEY_RIGHT;
    case GLFW_KEY_UP: return KS_KEY_UP;
    case GLFW_KEY_DOWN: return KS_KEY_DOWN;
    case GLFW_KEY_PAGE_UP: return KS_KEY_PAGE_UP;
    case GLFW_KEY_PAGE_DOWN: return KS_KEY_PAGE_DOWN;
    case GLFW_KEY_LEFT_BRACKET: return KS_KEY_LEFT_BRACKET;
    case GLFW_KEY_RIGHT_BRACKET: return KS_KEY_RIGHT_BRACKET;
    case GLFW_KEY_EQUAL: return (mods & GLFW_MOD_SHIFT) ? KS_KEY_PLUS : KS_KEY_NONE;
    case GLFW_KEY_KP_ADD: return KS_KEY_PLUS;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT: return KS_KEY_MINUS;
    case GLFW_KEY_F1: return KS_KEY_F1;
    case GLFW_KEY_PERIOD:
    case GLFW_KEY_KP_DECIMAL: return KS_KEY_PERIOD;
    case GLFW_KEY_COMMA: return KS_KEY_COMMA;
    case GLFW_KEY_HOME: return KS_KEY_HOME;
    case GLFW_KEY_KP_0: return KS_KEY_0;
    default: break;
    }
    if (key >= GLFW_KEY_0 && key <= GLFW_KEY_9) return '0' + (key - GLFW_KEY_0);
    /* GLFW's letter codes are the upper-case ASCII codes */
    if (key >= GLFW_KEY_A && key <= GLFW_KEY_Z) return 'A' + (key - GLFW_KEY_A);
    return KS_KEY_NONE;
}

static void key_callback(GLFWwindow *gw, int key, int scancode, int action, int mods)
{
    (void)scancode;
    ks_window *w = glfwGetWindowUserPointer(gw);
    if (w != NULL) ++w->events; /* a release too: the panels see it */
    if (w == NULL || (action != GLFW_PRESS && action != GLFW_REPEAT)) return;
    int k = map_key(key, mods);
    if (k == KS_KEY_NONE || w->key_count == KS_KEY_QUEUE) return;
    ks_key_event *ev = &w->keys[(w->key_head + w->key_count) % KS_KEY_QUEUE];
    ev->key = k;
    ev->shift = (mods & GLFW_MOD_SHIFT) != 0;
    ++w->key_count;
}

static void scroll_callback(GLFWwindow *gw, double dx, double dy)
{
    (void)dx;
    ks_window *w = glfwGetWindowUserPointer(gw);
    if (w == NULL) return;
    w->scroll += dy;
    ++w->events;
}

/* The events that change what the panels show without a key: the pointer,
 * its buttons, focus, an expose. Counted only; ImGui's backend, installed
 * after these, chains to them and takes the event itself. */
static void count_event(GLFWwindow *gw)
{
    ks_window *w = glfwGetWindowUserPointer(gw);
    if (w != NULL) ++w->events;
}
static void cursor_pos_callback(GLFWwindow *gw, double x, double y)
{
    (void)x, (void)y;
    count_event(gw);
}
static void cursor_enter_callback(GLFWwindow *gw, int entered)
{
    (void)entered;
    count_event(gw);
}
static void mouse_button_callback(GLFWwindow *gw, int button, int action, int mods)
{
    (void)button, (void)action, (void)mods;
    count_event(gw);
}
static void char_callback(GLFWwindow *gw, unsigned int c)
{
    (void)c;
    count_event(gw);
}
static void focus_callback(GLFWwindow *gw, int focused)
{
    (void)focused;
    count_event(gw);
}
static void refresh_callback(GLFWwindow *gw) { count_event(gw); }

static void framebuffer_size_callback(GLFWwindow *gw, int width, int height)
{
    ks_window *w = glfwGetWindowUserPointer(gw);
    if (w == NULL || w->headless) return;
    w->fb_w = width;
    w->fb_h = height;
    ++w->events;
}

static ks_status glfw_create(ks_window *w, int width, int height, const char *title, int visible)
{
    const char *x11 = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if ((x11 == NULL || x11[0] == '\0') && (wl == NULL || wl[0] == '\0'))
        return ks_fail(KS_ERR_NO_DEVICE, "no display: set DISPLAY or pass --headless");
    ks_glfw_last_error[0] = '\0';
    glfwSetErrorCallback(glfw_error_callback);
    if (!glfwInit())
        return ks_fail(KS_ERR_NO_DEVICE, "no display: set DISPLAY or pass --headless (%s)", glfw_error_text());
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_DEPTH_BITS, 0); /* everything is 2D in an FBO */
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    w->glfw = glfwCreateWindow(width, height, title, NULL, NULL);
    if (w->glfw == NULL) {
        ks_status st = ks_fail(KS_ERR_GL, "cannot create an OpenGL 3.3 core window: %s", glfw_error_text());
        pin_gl_driver();
        glfwTerminate();
        return st;
    }
    glfwSetWindowUserPointer(w->glfw, w);
    glfwSetKeyCallback(w->glfw, key_callback);
    /* before the UI starts: ImGui's GLFW backend chains to it */
    glfwSetScrollCallback(w->glfw, scroll_callback);
    glfwSetFramebufferSizeCallback(w->glfw, framebuffer_size_callback);
    glfwSetCursorPosCallback(w->glfw, cursor_pos_callback);
    glfwSetCursorEnterCallback(w->glfw, cursor_enter_callback);
    glfwSetMouseButtonCallback(w->glfw, mouse_button_callback);
    glfwSetCharCallback(w->glfw, char_callback);
    glfwSetWindowFocusCallback(w->glfw, focus_callback);
    glfwSetWindowRefreshCallback(w->glfw, refresh_callback);
    glfwMakeContextCurrent(w->glfw);
    /* no vsync: the overlay should time kernels, not the display's refresh */
    glfwSwapInterval(0);
    glfwGetFramebufferSize(w->glfw, &w->fb_w, &w->fb_h);
    ks_status st = load_gl(w->gl_desc, sizeof w->gl_desc);
    if (st != KS_OK) {
        glfwDestroyWindow(w->glfw);
        w->glfw = NULL;
        pin_gl_driver();
        glfwTerminate();
        return st;
    }
    return KS_OK;
}

/* ---- public -------------------------------------------------------------- */

ks_status ks_window_create(const ks_window_desc *desc, ks_window **out)
{
    if (out == NULL) return ks_fail(KS_ERR_INVALID, "window: no output pointer");
    *out = NULL;
    ks_window_desc d = desc ? *desc : (ks_window_desc){0};
    if (d.width < 0 || d.height < 0 || d.width > 16384 || d.height > 16384)
        return ks_fail(KS_ERR_INVALID, "window: size %d x %d out of range", d.width, d.height);
    if (d.width == 0) d.width = KS_DEFAULT_W;
    if (d.height == 0) d.height = KS_DEFAULT_H;
    if (d.title == NULL) d.title = "kernelscope";

    ks_window *w = calloc(1, sizeof *w);
    if (w == NULL) return ks_fail(KS_ERR_OUT_OF_MEMORY, "window: out of memory");
    w->headless = d.headless != 0;
    w->egl_dpy = EGL_NO_DISPLAY;
    w->egl_ctx = EGL_NO_CONTEXT;
    ks_status st;
    if (w->headless && !d.hidden) {
        w->fb_w = d.width;
        w->fb_h = d.height;
        st = egl_create(w);
    } else {
        st = glfw_create(w, d.width, d.height, d.title, !w->headless);
        /* headless draws into the renderer's framebuffer of the size asked
         * for, whatever the invisible window got */
        if (st == KS_OK && w->headless) {
            w->fb_w = d.width;
            w->fb_h = d.height;
        }
    }
    if (st != KS_OK) {
        free(w);
        return st;
    }
    *out = w;
    return KS_OK;
}

void ks_window_destroy(ks_window *w)
{
    if (w == NULL) return;
    if (w->glfw != NULL) {
        glfwDestroyWindow(w->glfw);
        pin_gl_driver();
        glfwTerminate();
    }
    if (w->egl_dpy != EGL_NO_DISPLAY) {
        eglMakeCurrent(w->egl_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (w->egl_ctx != EGL_NO_CONTEXT) eglDestroyContext(w->egl_dpy, w->egl_ctx);
        pin_gl_driver();
        eglTerminate(w->egl_dpy);
        eglReleaseThread();
    }
    free(w);
}

int ks_window_is_headless(const ks_window *w) { return w != NULL && w->headless; }

void ks_window_size(const ks_window *w, int *width, int *height)
{
    if (width) *width = w ? w->fb_w : 0;
    if (height) *height = w ? w->fb_h : 0;
}

void ks_window_poll(ks_window *w)
{
    if (w == NULL || w->glfw == NULL) return;
    glfwPollEvents();
    if (w->headless) return; /* an invisible window's size is not the picture's */
    /* the callback covers resizes; this also catches a size set before it was installed */
    glfwGetFramebufferSize(w->glfw, &w->fb_w, &w->fb_h);
}

int ks_window_wait(ks_window *w, double seconds)
{
    if (w == NULL || w->glfw == NULL || w->headless) return 0;
    const unsigned long before = w->events;
    if (seconds > 0.0) glfwWaitEventsTimeout(seconds);
    else glfwPollEvents(); /* GLFW refuses a timeout of 0 */
    glfwGetFramebufferSize(w->glfw, &w->fb_w, &w->fb_h);
    return w->events != before || glfwWindowShouldClose(w->glfw);
}

int ks_window_next_key(ks_window *w, ks_key_event *ev)
{
    if (w == NULL || w->key_count == 0) return 0;
    if (ev) *ev = w->keys[w->key_head];
    w->key_head = (w->key_head + 1) % KS_KEY_QUEUE;
    --w->key_count;
    return 1;
}

int ks_window_cursor(const ks_window *w, double *x, double *y)
{
    if (w == NULL || w->glfw == NULL || w->headless) return 0;
    if (!glfwGetWindowAttrib(w->glfw, GLFW_HOVERED)) return 0;
    double cx = 0, cy = 0;
    int ww = 0, wh = 0;
    glfwGetCursorPos(w->glfw, &cx, &cy);
    glfwGetWindowSize(w->glfw, &ww, &wh);
    if (ww <= 0 || wh <= 0 || w->fb_w <= 0 || w->fb_h <= 0) return 0;
    /* window coordinates -> framebuffer pixels. The framebuffer/window ratio is
     * the scale that actually applies (the content scale can differ from it on
     * X11, where windows are not scaled). Flip y to the bottom-left origin. */
    double sx = (double)w->fb_w / ww, sy = (double)w->fb_h / wh;
    double fx = cx * sx, fy = (double)w->fb_h - cy * sy;
    if (fx < 0 || fy < 0 || fx >= w->fb_w || fy >= w->fb_h) return 0;
    if (x) *x = fx;
    if (y) *y = fy;
    return 1;
}

double ks_window_take_scroll(ks_window *w)
{
    if (w == NULL) return 0.0;
    const double s = w->scroll;
    w->scroll = 0.0;
    return s;
}

int ks_window_left_button(const ks_window *w)
{
    return w != NULL && w->glfw != NULL && !w->headless && glfwGetMouseButton(w->glfw, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
}

void ks_window_max_size(const ks_window *w, int *width, int *height)
{
    int mw = w ? w->fb_w : 0, mh = w ? w->fb_h : 0;
    if (w != NULL && w->glfw != NULL && !w->headless) {
        int ww = 0, wh = 0, count = 0;
        glfwGetWindowSize(w->glfw, &ww, &wh);
        /* framebuffer pixels per screen coordinate (HiDPI), at least 1 */
        const double sx = ww > 0 && w->fb_w > ww ? (double)w->fb_w / ww : 1.0;
        const double sy = wh > 0 && w->fb_h > wh ? (double)w->fb_h / wh : 1.0;
        GLFWmonitor **mons = glfwGetMonitors(&count);
        for (int i = 0; mons != NULL && i < count; ++i) {
            const GLFWvidmode *mode = glfwGetVideoMode(mons[i]);
            if (mode == NULL) continue;
            const int fw = (int)ceil(mode->width * sx), fh = (int)ceil(mode->height * sy);
            if (fw > mw) mw = fw;
            if (fh > mh) mh = fh;
        }
    }
    if (width) *width = mw;
    if (height) *height = mh;
}

int ks_window_should_close(const ks_window *w)
{
    return w != NULL && w->glfw != NULL && !w->headless && glfwWindowShouldClose(w->glfw);
}

ks_status ks_window_present(ks_window *w)
{
    if (w == NULL) return ks_fail(KS_ERR_INVALID, "window: present without window");
    if (w->glfw == NULL || w->headless) return KS_OK;
    ks_glfw_last_error[0] = '\0';
    glfwSwapBuffers(w->glfw);
    if (ks_glfw_last_error[0] != '\0')
        return ks_fail(KS_ERR_GL, "window: glfwSwapBuffers: %s", ks_glfw_last_error);
    return KS_OK;
}

const char *ks_window_gl_description(const ks_window *w) { return w ? w->gl_desc : ""; }

void *ks_window_glfw(const ks_window *w) { return w && !w->headless ? (void *)w->glfw : NULL; }
