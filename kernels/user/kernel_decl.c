/* The kernel declaration's parser (kernel_decl.h): one comment line, read
 * word by word, every mistake a one-line error that names the file and line. */
#include "kernel_decl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ks_kdecl_grid_names[] = {"contract", "interior", "domain", "columns", "cover", "sm"};

const char *ks_kdecl_grid_name(ks_kdecl_grid g)
{
    return (unsigned)g < sizeof ks_kdecl_grid_names / sizeof *ks_kdecl_grid_names ? ks_kdecl_grid_names[g] : "?";
}

static int ident_start(int c) { return isalpha(c) || c == '_'; }
static int ident_char(int c) { return isalnum(c) || c == '_'; }

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t') ++p;
    return p;
}

/* Copies the identifier at p (at most cap - 1 characters) and returns what
 * follows it; NULL when p holds none or it is too long. */
static const char *read_ident(const char *p, char *out, size_t cap)
{
    if (!ident_start((unsigned char)*p)) return NULL;
    size_t n = 0;
    while (ident_char((unsigned char)p[n])) ++n;
    if (n >= cap) return NULL;
    memcpy(out, p, n);
    out[n] = '\0';
    return p + n;
}

/* A launch value: a number or an expression of the file's macros, written
 * without spaces; the compiler evaluates it, so here only its characters
 * and its parentheses are checked (nothing that could end the line kernelscope
 * appends, such as a quote, a semicolon or a brace). */
static int expr_ok(const char *e, size_t n)
{
    if (n == 0 || n >= KS_KDECL_EXPR_MAX) return 0;
    if (!ident_char((unsigned char)e[0]) && e[0] != '(') return 0;
    int depth = 0;
    for (size_t k = 0; k < n; ++k) {
        const unsigned char c = (unsigned char)e[k];
        if (c == '(') ++depth;
        else if (c == ')') {
            if (--depth < 0) return 0;
        } else if (!ident_char(c) && !strchr("+-*/%<>", c))
            return 0;
    }
    return depth == 0;
}

#define KDECL_FAIL(fmt, ...) ks_fail(KS_ERR_PARSE, "%s:%d: kernelscope: " fmt, name, line, __VA_ARGS__)

/* One argument, "[TYPE] ROLE": int (4 bytes), long or long long (8). */
static ks_status parse_arg(const char *a, size_t n, const char *name, int line, ks_kdecl_arg *out)
{
    char words[3][32];
    int count = 0;
    const char *p = a, *end = a + n;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t')) ++p;
        if (p >= end) break;
        size_t w = 0;
        while (p + w < end && ident_char((unsigned char)p[w])) ++w;
        if (w == 0 || !ident_start((unsigned char)*p) || w >= sizeof words[0] || count == 3)
            return KDECL_FAIL("'%.*s' is not an argument (a role such as nx or u, a size's type before it: int, "
                              "long, long long)",
                              (int)n, a);
        memcpy(words[count], p, w);
        words[count++][w] = '\0';
        p += w;
    }
    if (count == 0) return KDECL_FAIL("an empty argument in %s", "the list");
    out->bytes = 0; /* the role's own: a pointer's 8, a size's 4 */
    if (count == 2 && !strcmp(words[0], "int")) out->bytes = 4;
    else if (count == 2 && !strcmp(words[0], "long")) out->bytes = 8;
    else if (count == 3 && !strcmp(words[0], "long") && !strcmp(words[1], "long")) out->bytes = 8;
    else if (count != 1)
        return KDECL_FAIL("'%.*s': a size's type is int, long or long long", (int)n, a);
    const size_t len = strlen(words[count - 1]);
    if (len >= sizeof out->role) return KDECL_FAIL("'%s' is not a role of any scene", words[count - 1]);
    memcpy(out->role, words[count - 1], len + 1); /* fits: checked above (snprintf here trips -Wformat-truncation at -O1) */
    return KS_OK;
}

/* One option word: grid=, block=, shared=, multiple. */
static ks_status parse_option(const char *w, size_t n, const char *name, int line, ks_kdecl *d, unsigned *seen)
{
    static const char *const keys[] = {"grid=", "block=", "shared=", "multiple"};
    int key = -1;
    for (int k = 0; k < 4; ++k)
        if (!strncmp(w, keys[k], strlen(keys[k]))) key = k;
    if (key < 0 || (key == 3 && n != strlen("multiple")))
        return KDECL_FAIL("'%.*s' is not an option (grid=, block=, shared=, multiple)", (int)n, w);
    if (*seen & 1u << key) return KDECL_FAIL("%.*s is given twice", (int)strcspn(keys[key], "="), keys[key]);
    *seen |= 1u << key;
    const char *v = w + strlen(keys[key]);
    const size_t vn = n - strlen(keys[key]);
    if (key == 3) {
        d->multiple = 1;
    } else if (key == 0) {
        for (int g = KS_KDECL_GRID_INTERIOR; g < KS_KDECL_GRID_SM; ++g)
            if (vn == strlen(ks_kdecl_grid_names[g]) && !strncmp(v, ks_kdecl_grid_names[g], vn)) d->grid = g;
        if (vn >= 3 && !strncmp(v, "sm:", 3)) {
            if (!expr_ok(v + 3, vn - 3)) return KDECL_FAIL("grid=%.*s: sm:N wants N, blocks a multiprocessor", (int)vn, v);
            d->grid = KS_KDECL_GRID_SM;
            snprintf(d->expr[KS_KDECL_V_SM], KS_KDECL_EXPR_MAX, "%.*s", (int)(vn - 3), v + 3);
        }
        if (d->grid == KS_KDECL_GRID_CONTRACT)
            return KDECL_FAIL("grid=%.*s: the grid is interior, domain, columns, cover or sm:N", (int)vn, v);
    } else if (key == 1) {
        const char *p = v, *end = v + vn;
        while (p <= end) {
            const char *comma = memchr(p, ',', (size_t)(end - p));
            const char *stop = comma ? comma : end;
            if (d->block_dims == 3 || !expr_ok(p, (size_t)(stop - p)))
                return KDECL_FAIL("block=%.*s: the block is X, X,Y or X,Y,Z (numbers or the file's macros)", (int)vn,
                                  v);
            snprintf(d->expr[KS_KDECL_V_BX + d->block_dims++], KS_KDECL_EXPR_MAX, "%.*s", (int)(stop - p), p);
            p = stop + 1;
        }
    } else {
        static const char per[] = "*threads";
        size_t en = vn;
        if (vn > strlen(per) && !strncmp(v + vn - strlen(per), per, strlen(per))) {
            d->shared_per_thread = 1;
            en -= strlen(per);
        }
        if (!expr_ok(v, en))
            return KDECL_FAIL("shared=%.*s: the dynamic shared memory of a block, in bytes (or bytes*threads)", (int)vn,
                              v);
        snprintf(d->expr[KS_KDECL_V_SHARED], KS_KDECL_EXPR_MAX, "%.*s", (int)en, v);
    }
    return KS_OK;
}

ks_status ks_kdecl_parse_line(const char *text, const char *name, int line, ks_kdecl *out)
{
    memset(out, 0, sizeof *out);
    out->present = 1;
    out->line = line;
    const char *p = skip_space(text);
    const char *after = read_ident(p, out->entry, sizeof out->entry);
    if (!after) return KDECL_FAIL("the line starts with the kernel's name, then its arguments: %s", "NAME(ARGS)");
    p = skip_space(after);
    if (*p != '(') return KDECL_FAIL("%s: its arguments follow in parentheses, NAME(nx, ny, u, v)", out->entry);
    const char *close = strchr(p, ')');
    if (!close) return KDECL_FAIL("%s(: the argument list has no ')'", out->entry);
    ++p;
    if (skip_space(p) != close) {
        for (;;) {
            const char *comma = memchr(p, ',', (size_t)(close - p));
            const char *stop = comma ? comma : close;
            if (out->nargs == KS_KDECL_ARGS_MAX)
                return KDECL_FAIL("%s: more than %d arguments", out->entry, KS_KDECL_ARGS_MAX);
            const ks_status st = parse_arg(p, (size_t)(stop - p), name, line, &out->args[out->nargs]);
            if (st != KS_OK) return st;
            ++out->nargs;
            if (!comma) break;
            p = comma + 1;
        }
    }
    p = close + 1;
    unsigned seen = 0;
    for (;;) {
        p = skip_space(p);
        if (!*p || *p == '\n' || *p == '\r') break;
        size_t n = 0;
        while (p[n] && !isspace((unsigned char)p[n])) ++n;
        const ks_status st = parse_option(p, n, name, line, out, &seen);
        if (st != KS_OK) return st;
        p += n;
    }
    if (out->grid == KS_KDECL_GRID_SM && !out->block_dims)
        return KDECL_FAIL("grid=sm:%s needs the block it is written for (block=...)", out->expr[KS_KDECL_V_SM]);
    /* plain numbers are known now; macro expressions once the code is loaded */
    for (int v = 0; v < KS_KDECL_V_COUNT; ++v) {
        char *end = NULL;
        const long long x = strtoll(out->expr[v], &end, 10);
        out->value[v] = out->expr[v][0] && end && !*end ? x : 0;
    }
    return KS_OK;
}

ks_status ks_kdecl_parse(const char *source, const char *name, ks_kdecl *out)
{
    memset(out, 0, sizeof *out);
    int line = 1, found = 0;
    for (const char *p = source; *p;) {
        const char *eol = strchr(p, '\n');
        const size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *s = skip_space(p);
        if ((size_t)(s - p) < len && !strncmp(s, KS_KDECL_MARK, strlen(KS_KDECL_MARK))) {
            if (found) return ks_fail(KS_ERR_PARSE, "%s:%d: kernelscope: a second declaration (the first is on line %d)",
                                      name, line, out->line);
            char text[512];
            const size_t tl = len - (size_t)(s - p) - strlen(KS_KDECL_MARK);
            if (tl >= sizeof text)
                return ks_fail(KS_ERR_PARSE, "%s:%d: kernelscope: the declaration is longer than %zu characters", name,
                               line, sizeof text - 1);
            memcpy(text, s + strlen(KS_KDECL_MARK), tl);
            text[tl] = '\0';
            const ks_status st = ks_kdecl_parse_line(text, name, line, out);
            if (st != KS_OK) return st;
            found = 1;
        }
        if (!eol) break;
        p = eol + 1;
        ++line;
    }
    if (!found) memset(out, 0, sizeof *out);
    return KS_OK;
}

size_t ks_kdecl_format(const ks_kdecl *d, char *buf, size_t cap)
{
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "%s(", d->entry);
    for (int a = 0; a < d->nargs && n < sizeof line; ++a)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s%s", a ? ", " : "",
                              d->args[a].bytes == 8 ? "long long " : d->args[a].bytes == 4 ? "int " : "",
                              d->args[a].role);
    if (n < sizeof line) n += (size_t)snprintf(line + n, sizeof line - n, ")");
    /* the options too: a process that reads the line back from the code launches by them */
    if (n < sizeof line && d->grid == KS_KDECL_GRID_SM)
        n += (size_t)snprintf(line + n, sizeof line - n, " grid=sm:%s", d->expr[KS_KDECL_V_SM]);
    else if (n < sizeof line && d->grid != KS_KDECL_GRID_CONTRACT)
        n += (size_t)snprintf(line + n, sizeof line - n, " grid=%s", ks_kdecl_grid_name(d->grid));
    for (int k = 0; k < d->block_dims && n < sizeof line; ++k)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", k ? "," : " block=", d->expr[KS_KDECL_V_BX + k]);
    if (n < sizeof line && d->expr[KS_KDECL_V_SHARED][0])
        n += (size_t)snprintf(line + n, sizeof line - n, " shared=%s%s", d->expr[KS_KDECL_V_SHARED],
                              d->shared_per_thread ? "*threads" : "");
    if (n < sizeof line && d->multiple) n += (size_t)snprintf(line + n, sizeof line - n, " multiple");
    if (n >= sizeof line) n = sizeof line - 1;
    if (cap) snprintf(buf, cap, "%s", line);
    return n;
}

char *ks_kdecl_suffix(const ks_kdecl *d)
{
    char line[1024];
    ks_kdecl_format(d, line, sizeof line);
    const size_t cap = 2048;
    char *out = malloc(cap);
    if (!out) return NULL;
    /* a newline first: the file's last line may lack one */
    size_t at = (size_t)snprintf(out, cap, "\n__constant__ char %s[] = \"%s\";\n__constant__ long long %s[%d] = {",
                                 KS_KDECL_TEXT, line, KS_KDECL_VALUES, KS_KDECL_V_COUNT);
    for (int v = 0; v < KS_KDECL_V_COUNT && at < cap; ++v)
        at += (size_t)snprintf(out + at, cap - at, "%s(long long)(%s)", v ? ", " : "", d->expr[v][0] ? d->expr[v] : "0");
    if (at < cap) snprintf(out + at, cap - at, "};\n");
    return out;
}

ks_status ks_kdecl_read_back(const char *text, const long long values[KS_KDECL_V_COUNT], const char *name,
                             ks_kdecl *out)
{
    KS_TRY(ks_kdecl_parse_line(text, name, 0, out));
    for (int v = 0; v < KS_KDECL_V_COUNT; ++v) out->value[v] = values[v];
    return KS_OK;
}

static long long div_up(long long a, long long b) { return b > 0 && a > 0 ? (a + b - 1) / b : 0; }

void ks_kdecl_stencil_grid(const ks_kdecl *d, int dims, const long long n[3], const int block[3],
                           const int per_thread[3], long long grid[3])
{
    const int one[3] = {1, 1, 1};
    const int *p = per_thread ? per_thread : one;
    const ks_kdecl_grid shape = d ? d->grid : KS_KDECL_GRID_CONTRACT;
    for (int a = 0; a < 3; ++a) {
        const long long extent = a < dims ? n[a] : 1;
        if (a >= dims) grid[a] = 1;
        else if (shape == KS_KDECL_GRID_DOMAIN || shape == KS_KDECL_GRID_COLUMNS)
            grid[a] = shape == KS_KDECL_GRID_COLUMNS && a == 2 ? 1 : div_up(extent, block[a]);
        else /* the interior, as the contract: points a thread from the file's constant */
            grid[a] = div_up(extent - 2, (long long)block[a] * p[a]);
    }
}

void ks_kdecl_round_sizes(const ks_kdecl *d, const int block[3], int dims, int n[3])
{
    if (!d || !d->multiple) return;
    int b[3];
    ks_kdecl_block(d, block, b);
    for (int a = 0; a < dims && a < 3; ++a)
        if (b[a] > 0) n[a] = (n[a] + b[a] - 1) / b[a] * b[a];
}

/* Whether the space-separated list holds word. */
static int listed(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

ks_status ks_kdecl_roles_check(const ks_kdecl *d, const char *name, const char *roles, const char *need,
                               unsigned grids)
{
    for (int a = 0; a < d->nargs; ++a) {
        if (!listed(roles, d->args[a].role))
            return ks_fail(KS_ERR_INVALID, "%s: %s: '%s' is not one of this scene's arguments (%s)", name, d->entry,
                           d->args[a].role, roles);
        for (int b = 0; b < a; ++b)
            if (!strcmp(d->args[a].role, d->args[b].role))
                return ks_fail(KS_ERR_INVALID, "%s: %s: '%s' is given twice", name, d->entry, d->args[a].role);
    }
    char word[16];
    for (const char *p = need; *p;) {
        p += strspn(p, " ");
        const size_t n = strcspn(p, " ");
        if (n == 0) break;
        snprintf(word, sizeof word, "%.*s", (int)n, p);
        if (ks_kdecl_arg_index(d, word) < 0)
            return ks_fail(KS_ERR_INVALID, "%s: %s: this scene needs the argument '%s' (it has: %s)", name, d->entry,
                           word, roles);
        p += n;
    }
    if (d->grid != KS_KDECL_GRID_CONTRACT && !(grids & 1u << d->grid))
        return ks_fail(KS_ERR_INVALID, "%s: %s: grid=%s is not a launch of this scene", name, d->entry,
                       ks_kdecl_grid_name(d->grid));
    return KS_OK;
}

int ks_kdecl_arg_bytes(const ks_kdecl_arg *a)
{
    if (a->bytes) return a->bytes;
    return listed("nx ny nz n", a->role) ? 4 : 8;
}

int ks_kdecl_arg_index(const ks_kdecl *d, const char *role)
{
    for (int a = 0; a < d->nargs; ++a)
        if (!strcmp(d->args[a].role, role)) return a;
    return -1;
}

void ks_kdecl_block(const ks_kdecl *d, const int block[3], int out[3])
{
    for (int k = 0; k < 3; ++k) {
        if (!d->block_dims) out[k] = block[k];
        else out[k] = k < d->block_dims ? (int)d->value[KS_KDECL_V_BX + k] : 1;
    }
}

size_t ks_kdecl_shared(const ks_kdecl *d, int threads)
{
    const long long v = d->value[KS_KDECL_V_SHARED];
    if (v <= 0) return 0;
    return (size_t)v * (d->shared_per_thread ? (size_t)(threads > 0 ? threads : 0) : 1);
}

void ks_kdecl_describe(const ks_kdecl *d, char *buf, size_t cap)
{
    if (!cap) return;
    size_t n = (size_t)snprintf(buf, cap, "%s(", d->entry);
    for (int a = 0; a < d->nargs && n < cap; ++a)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", a ? ", " : "", d->args[a].role);
    if (n < cap) n += (size_t)snprintf(buf + n, cap - n, ")");
    if (n < cap && d->grid == KS_KDECL_GRID_SM)
        n += (size_t)snprintf(buf + n, cap - n, ", %lld blocks a multiprocessor", d->value[KS_KDECL_V_SM]);
    else if (n < cap && d->grid != KS_KDECL_GRID_CONTRACT)
        n += (size_t)snprintf(buf + n, cap - n, ", grid %s", ks_kdecl_grid_name(d->grid));
    if (n < cap && d->block_dims) {
        n += (size_t)snprintf(buf + n, cap - n, ", block %lld", d->value[KS_KDECL_V_BX]);
        for (int k = 1; k < d->block_dims && n < cap; ++k)
            n += (size_t)snprintf(buf + n, cap - n, "x%lld", d->value[KS_KDECL_V_BX + k]);
    }
    if (n < cap && d->expr[KS_KDECL_V_SHARED][0])
        n += (size_t)snprintf(buf + n, cap - n, ", %lld bytes of shared memory%s", d->value[KS_KDECL_V_SHARED],
                              d->shared_per_thread ? " a thread" : "");
    if (n < cap && d->multiple) snprintf(buf + n, cap - n, ", sizes multiples of its block");
}
