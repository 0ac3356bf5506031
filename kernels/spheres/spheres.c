/* Sphere scenes: generator, drift, scene-file parser, packing, image
 * comparison and the memory-variant table. Plain C; no device needed. */
#include "spheres.h"
#include "base/ks_util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Generator ---- */

/* splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, same stream everywhere. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 24 bits: exact in float, so no rounding differs by platform. */
static float unit(uint64_t *state)
{
    return (float)(splitmix64(state) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform in [-n/2, n/2). */
static float centred(uint64_t *state, int n)
{
    return (float)n * unit(state) - (float)n * 0.5f;
}

void ks_spheres_generate(unsigned long long seed, int count, int width, int height, ks_sphere *out)
{
    uint64_t state = (uint64_t)seed;
    const int depth = width > height ? width : height;
    for (int k = 0; k < count; ++k) {
        ks_sphere *s = &out[k];
        s->x = centred(&state, width);
        s->y = centred(&state, height);
        s->z = centred(&state, depth);
        s->radius = 20.0f + 100.0f * unit(&state);
        s->color[0] = unit(&state);
        s->color[1] = unit(&state);
        s->color[2] = unit(&state);
    }
}

void ks_spheres_velocities(unsigned long long seed, int count, float *vel)
{
    /* A stream of its own, so turning the animation on changes no sphere. */
    uint64_t state = (uint64_t)seed ^ 0x5DEECE66DA5A5A5Aull;
    for (int k = 0; k < 3 * count; ++k) vel[k] = 3.0f * unit(&state) - 1.5f;
}

/* p0 + v t folded back and forth between lo and hi (a triangle wave). */
static float bounce(float p0, float v, double t, float lo, float hi)
{
    if (p0 < lo) lo = p0;
    if (p0 > hi) hi = p0;
    const double span = (double)hi - (double)lo;
    if (span <= 0.0) return p0;
    double u = fmod((double)p0 - lo + (double)v * t, 2.0 * span);
    if (u < 0.0) u += 2.0 * span;
    return (float)(lo + (u <= span ? u : 2.0 * span - u));
}

void ks_spheres_animate(const ks_sphere *base, const float *vel, int count, double t, int width,
                        int height, ks_sphere *out)
{
    const int depth = width > height ? width : height;
    for (int k = 0; k < count; ++k) {
        out[k] = base[k];
        if (t == 0.0) continue;
        out[k].x = bounce(base[k].x, vel[3 * k + 0], t, -0.5f * (float)width, 0.5f * (float)width);
        out[k].y = bounce(base[k].y, vel[3 * k + 1], t, -0.5f * (float)height, 0.5f * (float)height);
        out[k].z = bounce(base[k].z, vel[3 * k + 2], t, -0.5f * (float)depth, 0.5f * (float)depth);
    }
}

void ks_spheres_pack(const ks_sphere *s, int count, ks_sphere_packed *out)
{
    for (int k = 0; k < count; ++k) {
        out[k].x = s[k].x;
        out[k].y = s[k].y;
        out[k].z = s[k].z;
        out[k].r2 = s[k].radius * s[k].radius;
        out[k].red = s[k].color[0];
        out[k].green = s[k].color[1];
        out[k].blue = s[k].color[2];
        out[k].radius = s[k].radius;
    }
}

/* ---- Scene-file parser ---- */

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when invalid or NUL. */
static size_t utf8_seq(const unsigned char *p, size_t left)
{
    if (p[0] == 0) return 0;
    return p[0] < 0x80 ? 1 : ks_utf8_seq_len(p, left);
}

/* A plain decimal number as docs/scenes.md gives it: [+-]digits[.digits] or
 * [+-][digits].digits, then an optional e[+-]digits. No hex, inf, nan or
 * leading whitespace, which strtod would take. */
static int is_decimal(const char *t, size_t len)
{
    size_t k = 0, digits = 0;
    if (k < len && (t[k] == '+' || t[k] == '-')) ++k;
    while (k < len && t[k] >= '0' && t[k] <= '9') ++k, ++digits;
    if (k < len && t[k] == '.') {
        ++k;
        while (k < len && t[k] >= '0' && t[k] <= '9') ++k, ++digits;
    }
    if (digits == 0) return 0;
    if (k < len && (t[k] == 'e' || t[k] == 'E')) {
        ++k;
        if (k < len && (t[k] == '+' || t[k] == '-')) ++k;
        size_t exp = 0;
        while (k < len && t[k] >= '0' && t[k] <= '9') ++k, ++exp;
        if (exp == 0) return 0;
    }
    return k == len;
}

static const char *const ks_field_names[7] = {"x", "y", "z", "radius", "r", "g", "b"};

/* Parses one field; the message names it. */
static ks_status parse_field(const char *name, int line, int field, const char *tok,
                             size_t tok_len, float *out)
{
    char buf[KS_SPHERES_LINE_MAX + 1];
    memcpy(buf, tok, tok_len);
    buf[tok_len] = '\0';
    const char *what = ks_field_names[field];
    char shown[KS_QUOTE_MAX];
    errno = 0;
    char *end = NULL;
    const double d = strtod(buf, &end);
    const int whole = end != buf && *end == '\0';
    if (!is_decimal(tok, tok_len) && !(whole && !isfinite(d))) /* nan, inf: said below */
        return ks_fail(KS_ERR_PARSE, "%s:%d: field %d (%s): '%s' is not a number (plain decimals only)",
                       name, line, field + 1, what, ks_quote_n(tok, tok_len, shown, sizeof shown));
    if (!whole)
        return ks_fail(KS_ERR_PARSE, "%s:%d: field %d (%s): '%s' is not a number", name, line,
                       field + 1, what, ks_quote(buf, shown, sizeof shown));
    const float f = (float)d;
    if (!isfinite(d) || !isfinite(f))
        return ks_fail(KS_ERR_PARSE, "%s:%d: field %d (%s): '%s' is not a finite number", name,
                       line, field + 1, what, ks_quote(buf, shown, sizeof shown));
    if (field < 3 && fabsf(f) > KS_SPHERES_COORD_MAX)
        return ks_fail(KS_ERR_PARSE, "%s:%d: field %d (%s): %g is outside -%g..%g pixels", name,
                       line, field + 1, what, d, (double)KS_SPHERES_COORD_MAX,
                       (double)KS_SPHERES_COORD_MAX);
    if (field == 3 && !(f > 0.0f))
        return ks_fail(KS_ERR_PARSE, "%s:%d: field 4 (radius): %g must be greater than 0", name,
                       line, d);
    if (field == 3 && f > KS_SPHERES_RADIUS_MAX)
        return ks_fail(KS_ERR_PARSE, "%s:%d: field 4 (radius): %g is too large (at most %g pixels)",
                       name, line, d, (double)KS_SPHERES_RADIUS_MAX);
    if (field >= 4 && !(f >= 0.0f && f <= 1.0f))
        return ks_fail(KS_ERR_PARSE, "%s:%d: field %d (colour %s): %g is outside 0..1", name, line,
                       field + 1, what, d);
    *out = f;
    return KS_OK;
}

/* One line without its end-of-line bytes: *got = 1 when it held a sphere. */
static ks_status parse_line(const char *name, int line, const char *p, size_t len,
                            ks_sphere *out, int *got)
{
    *got = 0;
    if (len > KS_SPHERES_LINE_MAX)
        return ks_fail(KS_ERR_PARSE, "%s:%d: line is %zu bytes long, the limit is %d", name, line,
                       len, KS_SPHERES_LINE_MAX);
    for (size_t k = 0; k < len;) {
        const size_t n = utf8_seq((const unsigned char *)p + k, len - k);
        if (n == 0)
            return ks_fail(KS_ERR_PARSE, "%s:%d: invalid UTF-8 (byte 0x%02X at column %zu)", name,
                           line, (unsigned)(unsigned char)p[k], k + 1);
        k += n;
    }
    const char *hash = memchr(p, '#', len);
    if (hash) len = (size_t)(hash - p);

    const char *tok[8];
    size_t tok_len[8];
    int fields = 0;
    for (size_t k = 0; k < len;) {
        while (k < len && (p[k] == ' ' || p[k] == '\t')) ++k;
        if (k == len) break;
        const size_t start = k;
        while (k < len && p[k] != ' ' && p[k] != '\t') ++k;
        if (fields < 8) {
            tok[fields] = p + start;
            tok_len[fields] = k - start;
        }
        ++fields;
    }
    if (fields == 0) return KS_OK;
    if (fields != 7)
        return ks_fail(KS_ERR_PARSE,
                       "%s:%d: expected 7 numbers (x y z radius r g b), found %s%d field%s", name,
                       line, fields < 7 ? "only " : "", fields, fields == 1 ? "" : "s");
    float v[7];
    for (int f = 0; f < 7; ++f) KS_TRY(parse_field(name, line, f, tok[f], tok_len[f], &v[f]));
    out->x = v[0];
    out->y = v[1];
    out->z = v[2];
    out->radius = v[3];
    out->color[0] = v[4];
    out->color[1] = v[5];
    out->color[2] = v[6];
    *got = 1;
    return KS_OK;
}

ks_status ks_spheres_parse(const char *name, const char *text, size_t len, ks_sphere **out,
                           int *count)
{
    *out = NULL;
    *count = 0;
    char shown[KS_QUOTE_MAX];
    name = name ? ks_quote(name, shown, sizeof shown) : "<scene>"; /* a path may hold any byte */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) { /* a UTF-8 byte-order mark */
        text += 3;
        len -= 3;
    }
    if (len == 0) return ks_fail(KS_ERR_PARSE, "%s: empty file: no spheres", name);

    ks_sphere *list = NULL;
    int n = 0, cap = 0, line = 0;
    size_t pos = 0;
    while (pos < len) {
        ++line;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t line_len = end - pos;
        if (line_len > 0 && text[pos + line_len - 1] == '\r') --line_len; /* CRLF files */
        ks_sphere s;
        int got = 0;
        ks_status st = parse_line(name, line, text + pos, line_len, &s, &got);
        if (st != KS_OK) {
            free(list);
            return st;
        }
        if (got) {
            if (n == KS_SPHERES_MAX) {
                free(list);
                return ks_fail(KS_ERR_PARSE, "%s:%d: more than %d spheres", name, line,
                               KS_SPHERES_MAX);
            }
            if (n == cap) {
                const int grown = cap ? 2 * cap : 64;
                ks_sphere *bigger = realloc(list, (size_t)grown * sizeof *bigger);
                if (!bigger) {
                    free(list);
                    return ks_fail(KS_ERR_OUT_OF_MEMORY, "%s: out of memory at line %d", name,
                                   line);
                }
                list = bigger;
                cap = grown;
            }
            list[n++] = s;
        }
        pos = nl ? end + 1 : len;
    }
    if (n == 0) {
        free(list);
        return ks_fail(KS_ERR_PARSE, "%s: no spheres (%d line%s, all blank or comments)", name,
                       line, line == 1 ? "" : "s");
    }
    *out = list;
    *count = n;
    return KS_OK;
}

ks_status ks_spheres_load(const char *path, ks_sphere **out, int *count)
{
    *out = NULL;
    *count = 0;
    char shown[KS_QUOTE_MAX];
    ks_quote(path, shown, sizeof shown);
    FILE *f = NULL;
    const int e = ks_fopen_regular(path, &f);
    if (e < 0) return ks_fail(KS_ERR_INVALID, "scene file %s is not a regular file", shown);
    if (e) return ks_fail(KS_ERR_IO, "cannot open scene file %s: %s", shown, strerror(e));
    /* Read in chunks: bounds the size. */
    const size_t limit = (size_t)KS_SPHERES_MAX * (KS_SPHERES_LINE_MAX + 2);
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    if (!text) {
        fclose(f);
        return ks_fail(KS_ERR_OUT_OF_MEMORY, "cannot read %s: out of memory", shown);
    }
    for (;;) {
        if (len == cap) {
            if (cap >= limit) {
                free(text);
                fclose(f);
                return ks_fail(KS_ERR_PARSE, "%s: larger than %zu bytes", shown, limit);
            }
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                free(text);
                fclose(f);
                return ks_fail(KS_ERR_OUT_OF_MEMORY, "cannot read %s: out of memory", shown);
            }
            text = bigger;
            cap *= 2;
        }
        const size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    const int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(text);
        return ks_fail(KS_ERR_IO, "cannot read scene file %s", shown);
    }
    ks_status st = ks_spheres_parse(path, text, len, out, count);
    free(text);
    return st;
}

/* ---- Comparison ---- */

void ks_spheres_compare(const unsigned char *a, const unsigned char *b, int w, int h,
                        ks_spheres_diff *out)
{
    memset(out, 0, sizeof *out);
    out->first_i = out->first_j = -1;
    const long long pixels = (long long)w * h;
    for (long long p = 0; p < pixels; ++p) {
        int worst = 0;
        for (int c = 0; c < 4; ++c) {
            const int d = abs((int)a[4 * p + c] - (int)b[4 * p + c]);
            if (d > worst) worst = d;
        }
        if (worst == 0) continue;
        if (out->differing == 0) {
            out->first_i = (int)(p % w);
            out->first_j = (int)(p / w);
        }
        ++out->differing;
        if (worst > out->max_abs) out->max_abs = worst;
    }
    out->exact_share = pixels ? 1.0 - (double)out->differing / (double)pixels : 1.0;
}

int ks_spheres_diff_ok(const ks_spheres_diff *d) { return d->max_abs <= 1 && d->exact_share >= 0.999; }

/* ---- Variants ---- */

#define KS_SPHERES_MEM_ROW(id, name, summary, kernel, tiled) [KS_SPHERES_MEM_##id] = {#name, summary, #kernel},
static const struct {
    const char *name, *summary, *kernel;
} ks_spheres_mems[KS_SPHERES_MEM_NUM] = {
    [KS_SPHERES_MEM_DEFAULT] = {"default", "", ""},
    KS_SPHERES_MEM_ROWS(KS_SPHERES_MEM_ROW)};
#undef KS_SPHERES_MEM_ROW

ks_spheres_mem ks_spheres_mem_resolve(ks_spheres_mem m)
{
    return (m <= KS_SPHERES_MEM_DEFAULT || m >= KS_SPHERES_MEM_NUM) ? KS_SPHERES_MEM_GLOBAL : m;
}

const char *ks_spheres_mem_name(ks_spheres_mem m) { return ks_spheres_mems[ks_spheres_mem_resolve(m)].name; }
const char *ks_spheres_mem_summary(ks_spheres_mem m) { return ks_spheres_mems[ks_spheres_mem_resolve(m)].summary; }
const char *ks_spheres_mem_kernel(ks_spheres_mem m) { return ks_spheres_mems[ks_spheres_mem_resolve(m)].kernel; }

int ks_spheres_mem_parse(const char *name, ks_spheres_mem *m)
{
    for (int k = KS_SPHERES_MEM_GLOBAL; k < KS_SPHERES_MEM_NUM; ++k)
        if (name && strcmp(name, ks_spheres_mems[k].name) == 0) {
            *m = (ks_spheres_mem)k;
            return 0;
        }
    return -1;
}

ks_spheres_mem ks_spheres_mem_next(ks_spheres_mem m)
{
    m = ks_spheres_mem_resolve(m);
    return m + 1 < KS_SPHERES_MEM_NUM ? (ks_spheres_mem)(m + 1) : KS_SPHERES_MEM_GLOBAL;
}

void ks_spheres_mem_list(char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (int k = KS_SPHERES_MEM_GLOBAL; k < KS_SPHERES_MEM_NUM && used < len; ++k) {
        const int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                               ks_spheres_mems[k].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

ks_status ks_spheres_mem_check(ks_spheres_mem m, int count)
{
    if (count < 0 || count > KS_SPHERES_MAX)
        return ks_fail(KS_ERR_INVALID, "%d spheres: the count must be 0..%d", count, KS_SPHERES_MAX);
    if (ks_spheres_mem_resolve(m) == KS_SPHERES_MEM_CONSTANT && count > KS_SPHERES_CONST_MAX)
        return ks_fail(KS_ERR_UNSUPPORTED,
                       "constant memory holds at most %d spheres (64 KiB at %d bytes each); %d "
                       "do not fit: choose another variant (readonly, shared, binned)",
                       KS_SPHERES_CONST_MAX, (int)sizeof(ks_sphere_packed), count);
    return KS_OK;
}

static const int ks_spheres_blocks[][2] = {{8, 4},  {8, 8},   {16, 8},  {16, 16},
                                           {32, 8}, {32, 16}, {32, 32}};

int ks_spheres_block_presets(const int (**list)[2])
{
    *list = ks_spheres_blocks;
    return (int)(sizeof ks_spheres_blocks / sizeof ks_spheres_blocks[0]);
}

void ks_spheres_block_default(int block[2])
{
    block[0] = 16;
    block[1] = 16;
}

ks_status ks_spheres_block_check(const int block[2])
{
    if (block[0] < 1 || block[1] < 1 || block[0] > 1024 || block[1] > 1024 ||
        block[0] * block[1] > 1024)
        return ks_fail(KS_ERR_INVALID, "block %dx%d: need bx, by >= 1 and bx*by <= 1024 threads",
                       block[0], block[1]);
    return KS_OK;
}
