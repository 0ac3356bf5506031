/* compute-sanitizer memcheck's first error, in the user's words (sanitizer_report.h). */
#include "sanitizer_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line of text that holds at, without the tool's "=========" prefix and spaces. */
static void line_at(const char *at, char *out, size_t cap)
{
    const char *start = at;
    const size_t n = strcspn(start, "\r\n");
    snprintf(out, cap, "%.*s", (int)n, start);
}

/* The next line after p holding needle, before the next error ("Invalid" at a line's start) or the end. */
static const char *find_in_error(const char *p, const char *needle)
{
    const char *hit = strstr(p, needle);
    const char *next = strstr(p, "========= Invalid ");
    if (!next) next = strstr(p, "========= Out-of-range");
    return hit && (!next || hit < next) ? hit : NULL;
}

static const char *after_newline(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : p + strlen(p);
}

/* Names the allocation addr is past or before, or the nearest the tool gave. */
static void describe_miss(unsigned long long addr, unsigned access, const ks_sanitizer_alloc *allocs, int n,
                          const char *tool_line, char *out, size_t cap)
{
    out[0] = '\0';
    for (int k = 0; k < n; ++k) {
        const ks_sanitizer_alloc *a = &allocs[k];
        const unsigned long long end = a->base + a->bytes;
        if (addr >= end && addr - end < (1ull << 32)) {
            const unsigned long long past = addr - end;
            if (past % 4 == 0 && access == 4)
                snprintf(out, cap, ", %llu float%s past the end of %s", past / 4 + 1, past / 4 ? "s" : "", a->name);
            else
                snprintf(out, cap, ", %llu bytes past the end of %s", past, a->name);
            return;
        }
        if (addr < a->base && a->base - addr <= 4096) {
            snprintf(out, cap, ", %llu bytes before the start of %s", a->base - addr, a->name);
            return;
        }
    }
    /* the tool's own: "and is 4 bytes after the nearest allocation at 0x... of size 1024 bytes" */
    unsigned long long by = 0, size = 0;
    char side[16] = "";
    const char *is = tool_line ? strstr(tool_line, "and is ") : NULL;
    if (is && sscanf(is, "and is %llu bytes %15s the nearest allocation at %*s of size %llu bytes", &by, side,
                     &size) == 3)
        snprintf(out, cap, ", %llu bytes %s the nearest allocation (of %llu bytes)", by, side, size);
}

int ks_sanitizer_first_error(const char *report, const char *file, const ks_sanitizer_alloc *allocs, int n,
                             char *msg, size_t cap)
{
    if (!cap) return 0;
    msg[0] = '\0';
    const char *err = strstr(report, "========= Invalid ");
    if (!err) return 0;
    err += strlen("========= Invalid ");
    char space[32] = "", kind[16] = "";
    unsigned bytes = 0;
    if (sscanf(err, "%31s %15s of size %u", space, kind, &bytes) != 3) return 0;
    const char *body = after_newline(err);
    /* "at jacobi(...)+0x1b0 in /some/dir/mine.cu:12" (the line needs the code built with line info) */
    char where[64] = "";
    const char *at = find_in_error(body, "    at ");
    if (at) {
        char l[512];
        line_at(at, l, sizeof l);
        const char *in = strstr(l, " in ");
        const char *colon = in ? strrchr(in, ':') : NULL;
        const int line = colon ? atoi(colon + 1) : 0;
        if (line > 0) {
            const char *base = strrchr(file, '/');
            snprintf(where, sizeof where, "%s:%d", base ? base + 1 : file, line);
        }
    }
    if (!where[0]) {
        const char *base = strrchr(file, '/');
        snprintf(where, sizeof where, "%s", base ? base + 1 : file);
    }
    int t[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    const char *by = find_in_error(body, "by thread (");
    const int placed = by && sscanf(by, "by thread (%d,%d,%d) in block (%d,%d,%d)", &t[0], &t[1], &t[2], &b[0], &b[1],
                                    &b[2]) == 6;
    unsigned long long addr = 0;
    const char *address = find_in_error(body, "Address 0x");
    const int have_addr = address && sscanf(address, "Address 0x%llx", &addr) == 1;
    const char *near = find_in_error(body, "and is ");
    char tool_line[256] = "";
    if (near) line_at(near, tool_line, sizeof tool_line);
    char miss[160] = "";
    if (have_addr) describe_miss(addr, bytes, allocs, allocs ? n : 0, near ? tool_line : NULL, miss, sizeof miss);
    const int oob = have_addr && address && strstr(address, "is out of bounds") &&
                    strstr(address, "is out of bounds") < after_newline(address);
    const char *what = strcmp(kind, "write") == 0 ? "write" : strcmp(kind, "read") == 0 ? "read" : kind;
    char scope[64] = "";
    if (strcmp(space, "__global__") != 0) snprintf(scope, sizeof scope, " (%s memory)", space);
    char place[128] = "";
    if (placed) snprintf(place, sizeof place, " (block (%d,%d,%d), thread (%d,%d,%d))", b[0], b[1], b[2], t[0], t[1], t[2]);
    snprintf(msg, cap, "%s: %s %s of %u bytes%s%s%s", where, oob ? "out-of-bounds" : "invalid", what, bytes, scope,
             miss, place);
    return 1;
}
