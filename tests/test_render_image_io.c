/* image_io: every writer's output read back byte for byte, every failure
 * path leaves neither the file nor its temporary behind, a symlink planted
 * where the temporary could go is never written through, and a replaced file
 * keeps its mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image.h>

#include "render/image_io.h"

static char g_dir[256]; /* fresh temporary directory per test */

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/ks_test_image_io_XXXXXX");
    return mkdtemp(g_dir) != NULL ? 0 : -1;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            chmod(p, 0700);
            remove_tree(p);
        } else {
            unlink(p);
        }
    }
    closedir(d);
    rmdir(dir);
}

static int teardown(void **state)
{
    (void)state;
    remove_tree(g_dir);
    return 0;
}

static void path_in(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", g_dir, name);
}

/* Number of entries in dir whose name contains needle (or all, for ""). */
static int count_entries(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (strstr(e->d_name, needle) != NULL) ++n;
    }
    closedir(d);
    return n;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf != NULL) buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

/* Distinct bytes in every channel, alpha varying so that dropping it is visible. */
static unsigned char *make_rgba(int w, int h)
{
    unsigned char *p = malloc((size_t)w * (size_t)h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            unsigned char *q = p + ((size_t)y * (size_t)w + (size_t)x) * 4;
            q[0] = (unsigned char)(x * 7 + y);
            q[1] = (unsigned char)(y * 13 + 5);
            q[2] = (unsigned char)(x ^ y);
            q[3] = (unsigned char)(x * 31 + y * 3);
        }
    return p;
}

static void assert_rgb_equal(const unsigned char *rgb, const unsigned char *rgba, int w, int h)
{
    for (size_t i = 0; i < (size_t)w * (size_t)h; ++i) {
        if (memcmp(rgb + 3 * i, rgba + 4 * i, 3) != 0)
            fail_msg("pixel %zu differs: %u %u %u vs %u %u %u", i, rgb[3 * i], rgb[3 * i + 1],
                     rgb[3 * i + 2], rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]);
    }
}

static void test_format_names(void **state)
{
    (void)state;
    ks_image_format f = KS_FMT_DEFAULT;
    assert_string_equal(ks_image_format_ext(KS_FMT_DEFAULT), "png");
    assert_string_equal(ks_image_format_ext(KS_FMT_PNG), "png");
    assert_string_equal(ks_image_format_ext(KS_FMT_PPM), "ppm");
    assert_int_equal(ks_image_format_parse("ppm", &f), 0);
    assert_int_equal(f, KS_FMT_PPM);
    assert_int_equal(ks_image_format_parse("PNG", &f), 0);
    assert_int_equal(f, KS_FMT_PNG);
    assert_int_equal(ks_image_format_parse("jpeg", &f), -1);
}

static void test_png_roundtrip(void **state)
{
    (void)state;
    const int w = 37, h = 53;
    unsigned char *rgba = make_rgba(w, h);
    char path[512];
    path_in(path, sizeof path, "a.png");
    assert_int_equal(ks_image_write(path, KS_FMT_PNG, rgba, w, h), KS_OK);
    int rw = 0, rh = 0, comp = 0;
    unsigned char *rgb = stbi_load(path, &rw, &rh, &comp, 0);
    assert_non_null(rgb);
    assert_int_equal(rw, w);
    assert_int_equal(rh, h);
    assert_int_equal(comp, 3); /* alpha dropped */
    assert_rgb_equal(rgb, rgba, w, h);
    stbi_image_free(rgb);
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    free(rgba);
}

/* Minimal P6 reader: "P6" ws w ws h ws maxval single-ws data (no comments written). */
static unsigned char *ppm_read(const char *path, int *w, int *h)
{
    size_t len = 0;
    unsigned char *buf = read_all(path, &len);
    if (buf == NULL) return NULL;
    int maxval = 0, off = 0;
    if (sscanf((char *)buf, "P6 %d %d %d%n", w, h, &maxval, &off) != 3 || maxval != 255) {
        free(buf);
        return NULL;
    }
    off += 1; /* the one whitespace byte after maxval */
    size_t need = (size_t)*w * (size_t)*h * 3;
    if ((size_t)off + need != len) {
        free(buf);
        return NULL;
    }
    unsigned char *rgb = malloc(need);
    memcpy(rgb, buf + off, need);
    free(buf);
    return rgb;
}

static void test_ppm_roundtrip(void **state)
{
    (void)state;
    const int w = 16, h = 9;
    unsigned char *rgba = make_rgba(w, h);
    char path[512];
    path_in(path, sizeof path, "a.ppm");
    assert_int_equal(ks_image_write(path, KS_FMT_PPM, rgba, w, h), KS_OK);
    int rw = 0, rh = 0;
    unsigned char *rgb = ppm_read(path, &rw, &rh);
    assert_non_null(rgb);
    assert_int_equal(rw, w);
    assert_int_equal(rh, h);
    assert_rgb_equal(rgb, rgba, w, h);
    free(rgb);
    free(rgba);
}

/* Parses an .npy header; returns data offset or -1. shape_text gets the tuple. */
static long npy_parse(const unsigned char *buf, size_t len, char *shape_text, size_t n)
{
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0 || buf[6] != 1 || buf[7] != 0) return -1;
    size_t hlen = (size_t)buf[8] | ((size_t)buf[9] << 8);
    size_t total = 10 + hlen;
    if (total > len || total % 64 != 0 || buf[total - 1] != '\n') return -1;
    const char *head = (const char *)buf + 10;
    if (strncmp(head, "{'descr': '<f4', 'fortran_order': False, 'shape': (", 51) != 0) return -1;
    const char *s = head + 50;
    const char *e = memchr(s, ')', hlen - 50);
    if (e == NULL || (size_t)(e - s + 2) > n) return -1;
    memcpy(shape_text, s, (size_t)(e - s + 1));
    shape_text[e - s + 1] = 0;
    if (strncmp(e, "), }", 4) != 0) return -1;
    for (const char *p = e + 4; p < (const char *)buf + total - 1; ++p)
        if (*p != ' ') return -1;
    return (long)total;
}

static void check_npy(int ndim, const size_t *shape, const char *expect_shape)
{
    size_t count = 1;
    for (int i = 0; i < ndim; ++i) count *= shape[i];
    float *data = malloc(count * sizeof *data);
    for (size_t i = 0; i < count; ++i) data[i] = (float)i * 0.25f - 3.0f;
    char path[512];
    path_in(path, sizeof path, "f.npy");
    assert_int_equal(ks_npy_write_f32(path, data, ndim, shape), KS_OK);
    size_t len = 0;
    unsigned char *buf = read_all(path, &len);
    assert_non_null(buf);
    char shape_text[128];
    long off = npy_parse(buf, len, shape_text, sizeof shape_text);
    assert_true(off > 0);
    assert_string_equal(shape_text, expect_shape);
    assert_int_equal(len, (size_t)off + count * 4);
    for (size_t i = 0; i < count; ++i) {
        const unsigned char *q = buf + off + 4 * i;
        uint32_t u = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
                     (uint32_t)q[3] << 24;
        float v;
        memcpy(&v, &u, 4);
        assert_true(v == data[i]);
    }
    free(buf);
    free(data);
}

static void test_npy(void **state)
{
    (void)state;
    const size_t s1[] = {5};
    const size_t s2[] = {7, 3};
    const size_t s3[] = {4, 5, 6};
    const size_t big[] = {123456789, 1, 0}; /* long header text, no data */
    check_npy(1, s1, "(5,)");
    check_npy(2, s2, "(7, 3)");
    check_npy(3, s3, "(4, 5, 6)");
    check_npy(3, big, "(123456789, 1, 0)");
    char path[512];
    path_in(path, sizeof path, "bad.npy");
    float x = 0;
    assert_int_equal(ks_npy_write_f32(path, &x, 4, s3), KS_ERR_INVALID);
    assert_int_equal(ks_npy_write_f32(path, &x, 0, s3), KS_ERR_INVALID);
}

/* The integer types (the histogram's counts): '<u4' and '<i8', little-endian,
 * through the same temporary-name-and-rename path. */
static void test_npy_integers(void **state)
{
    (void)state;
    char path[512];
    path_in(path, sizeof path, "h.npy");
    const uint32_t h[3] = {1, 0x12345678u, 7};
    const size_t s1[] = {3};
    assert_int_equal(ks_npy_write(path, KS_NPY_U32, h, 1, s1), KS_OK);
    size_t len = 0;
    unsigned char *buf = read_all(path, &len);
    assert_non_null(buf);
    assert_int_equal(len, 128 + 12);
    assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
    assert_memory_equal(buf + 10, "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }", 57);
    assert_int_equal(buf[127], '\n');
    assert_memory_equal(buf + 128, "\x01\0\0\0\x78\x56\x34\x12\x07\0\0\0", 12);
    free(buf);
    const int64_t big[1] = {5000000000ll};
    const size_t one[] = {1};
    assert_int_equal(ks_npy_write(path, KS_NPY_I64, big, 1, one), KS_OK);
    buf = read_all(path, &len);
    assert_non_null(buf);
    assert_int_equal(len, 128 + 8);
    assert_memory_equal(buf + 10, "{'descr': '<i8'", 15);
    assert_memory_equal(buf + 128, "\x00\xf2\x05\x2a\x01\0\0\0", 8);
    free(buf);
    assert_int_equal(ks_npy_write(path, KS_NPY_DTYPE_NUM, h, 1, s1), KS_ERR_INVALID);
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    assert_int_equal(count_entries(g_dir, ""), 1);
}

static void test_text(void **state)
{
    (void)state;
    const char csv[] = "iter,residual\n1,0.5\n2,0.25\n";
    char path[512];
    path_in(path, sizeof path, "r.csv");
    assert_int_equal(ks_text_write(path, csv, strlen(csv)), KS_OK);
    size_t len = 0;
    unsigned char *buf = read_all(path, &len);
    assert_non_null(buf);
    assert_int_equal(len, strlen(csv));
    assert_memory_equal(buf, csv, len);
    free(buf);
    /* replacing an existing file works and leaves one file */
    assert_int_equal(ks_text_write(path, "x\n", 2), KS_OK);
    buf = read_all(path, &len);
    assert_int_equal(len, 2);
    free(buf);
    assert_int_equal(count_entries(g_dir, ""), 1);
}

/* Paths that cannot be written even by root: below a regular file, or below
 * a missing directory. Each must fail with KS_ERR_IO and leave nothing. */
static void test_write_failures(void **state)
{
    (void)state;
    char file[512], bad[600], missing[600];
    path_in(file, sizeof file, "plain");
    assert_int_equal(ks_text_write(file, "x", 1), KS_OK);
    snprintf(bad, sizeof bad, "%s/out.png", file);
    snprintf(missing, sizeof missing, "%s/nope/out.png", g_dir);
    unsigned char *rgba = make_rgba(4, 4);
    const size_t shape[] = {2, 2};
    float f4[4] = {0};
    const char *paths[] = {bad, missing};
    for (int i = 0; i < 2; ++i) {
        ks_error_clear();
        assert_int_equal(ks_image_write(paths[i], KS_FMT_PNG, rgba, 4, 4), KS_ERR_IO);
        assert_non_null(strstr(ks_error_message(), paths[i]));
        assert_int_equal(ks_image_write(paths[i], KS_FMT_PPM, rgba, 4, 4), KS_ERR_IO);
        assert_int_equal(ks_npy_write_f32(paths[i], f4, 2, shape), KS_ERR_IO);
        assert_int_equal(ks_text_write(paths[i], "x", 1), KS_ERR_IO);
        assert_int_equal(access(paths[i], F_OK), -1);
    }
    assert_non_null(strstr(ks_error_message(), "No such file or directory"));
    assert_int_equal(count_entries(g_dir, ""), 1); /* just "plain" */
    assert_int_equal(ks_image_write(file, KS_FMT_PNG, rgba, 0, 4), KS_ERR_INVALID);
    free(rgba);
}

/* The rename step failing (target is a non-empty directory) also cleans up. */
static void test_rename_failure(void **state)
{
    (void)state;
    char target[512], inner[600];
    path_in(target, sizeof target, "out.png");
    assert_int_equal(mkdir(target, 0700), 0);
    snprintf(inner, sizeof inner, "%s/keep", target);
    assert_int_equal(ks_text_write(inner, "k", 1), KS_OK);
    unsigned char *rgba = make_rgba(3, 3);
    assert_int_equal(ks_image_write(target, KS_FMT_PNG, rgba, 3, 3), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), target));
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
    free(rgba);
}

static void test_output_dir(void **state)
{
    (void)state;
    char dir[512], file[512], under_file[600];
    /* missing: created, two levels deep */
    snprintf(dir, sizeof dir, "%s/new/deeper", g_dir);
    assert_int_equal(ks_output_dir_check(dir), KS_OK);
    struct stat sb;
    assert_int_equal(stat(dir, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(count_entries(dir, ""), 0); /* probe removed */
    assert_int_equal(ks_output_dir_check(dir), KS_OK); /* existing is fine */

    /* a regular file where the directory should be, and a path under it */
    path_in(file, sizeof file, "plain");
    assert_int_equal(ks_text_write(file, "x", 1), KS_OK);
    assert_int_equal(ks_output_dir_check(file), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), "Not a directory"));
    snprintf(under_file, sizeof under_file, "%s/sub", file);
    assert_int_equal(ks_output_dir_check(under_file), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), under_file));

    /* read-only directory: permissions stop ordinary users; root ignores mode
     * bits, so there use sysfs, where even root cannot create files */
    char ro[512];
    path_in(ro, sizeof ro, "readonly");
    assert_int_equal(mkdir(ro, 0500), 0);
    chmod(ro, 0500);
    char expect[600];
    if (geteuid() != 0) {
        assert_int_equal(ks_output_dir_check(ro), KS_ERR_IO);
        snprintf(expect, sizeof expect, "cannot write to '%s': Permission denied", ro);
        assert_string_equal(ks_error_message(), expect);
    } else if (stat("/sys/kernel", &sb) == 0 && S_ISDIR(sb.st_mode)) {
        assert_int_equal(ks_output_dir_check("/sys/kernel"), KS_ERR_IO);
        assert_string_equal(ks_error_message(), "cannot write to '/sys/kernel': Permission denied");
    }
    assert_int_equal(ks_output_dir_check(""), KS_ERR_INVALID);
}


/* A victim file and a symlink to it at the temporary name the writers used to
 * take ("<path>.tmp-<pid>"): no writer may write through it, and the output
 * must be a plain file of its own. */
static void plant(const char *target, const char *victim)
{
    char link_path[700];
    snprintf(link_path, sizeof link_path, "%s.tmp-%ld", target, (long)getpid());
    assert_int_equal(symlink(victim, link_path), 0);
}

static void expect_victim_untouched(const char *victim)
{
    size_t len = 0;
    unsigned char *buf = read_all(victim, &len);
    assert_non_null(buf);
    assert_int_equal(len, 6);
    assert_memory_equal(buf, "victim", 6);
    free(buf);
}

static void expect_plain_file(const char *path)
{
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    if (!S_ISREG(sb.st_mode)) fail_msg("%s is not a regular file (mode %o)", path, (unsigned)sb.st_mode);
}

static void test_planted_symlink(void **state)
{
    (void)state;
    char victim[512];
    path_in(victim, sizeof victim, "victim");
    assert_int_equal(ks_text_write(victim, "victim", 6), KS_OK);
    unsigned char *rgba = make_rgba(8, 8);
    const size_t shape[] = {2, 2};
    const float f4[4] = {1, 2, 3, 4};
    char png[512], ppm[512], npy[512], txt[512], csv[512];
    path_in(png, sizeof png, "a.png");
    path_in(ppm, sizeof ppm, "a.ppm");
    path_in(npy, sizeof npy, "a.npy");
    path_in(txt, sizeof txt, "a.txt");
    path_in(csv, sizeof csv, "a.csv");
    const char *targets[] = {png, ppm, npy, txt, csv};
    for (int i = 0; i < 5; ++i) plant(targets[i], victim);
    assert_int_equal(ks_image_write(png, KS_FMT_PNG, rgba, 8, 8), KS_OK);
    assert_int_equal(ks_image_write(ppm, KS_FMT_PPM, rgba, 8, 8), KS_OK);
    assert_int_equal(ks_npy_write_f32(npy, f4, 2, shape), KS_OK);
    assert_int_equal(ks_text_write(txt, "text\n", 5), KS_OK);
    ks_out_stream *s = NULL;
    assert_int_equal(ks_stream_open(csv, &s), KS_OK);
    assert_int_equal(ks_stream_write(s, "a,b\n", 4), KS_OK);
    assert_int_equal(ks_stream_commit(s), KS_OK);
    expect_victim_untouched(victim);
    for (int i = 0; i < 5; ++i) expect_plain_file(targets[i]);
    size_t len = 0;
    unsigned char *buf = read_all(txt, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(buf, "text\n", 5);
    free(buf);
    /* the planted links are left as they were; no temporary of ours beside them */
    assert_int_equal(count_entries(g_dir, ".tmp-"), 5);
    assert_int_equal(count_entries(g_dir, ""), 11);
    free(rgba);
}

/* A file that is replaced keeps its mode (the editor's save of a 0600 kernel
 * file stays 0600); a new one gets 0666 less the umask. */
static void test_mode_kept(void **state)
{
    (void)state;
    const mode_t old_mask = umask(022);
    char path[512], fresh[512];
    path_in(path, sizeof path, "mine.cu");
    path_in(fresh, sizeof fresh, "fresh.txt");
    const mode_t modes[] = {0600, 0640, 0755, 0444};
    for (int i = 0; i < 4; ++i) {
        assert_int_equal(ks_text_write(path, "a\n", 2), KS_OK);
        assert_int_equal(chmod(path, modes[i]), 0);
        assert_int_equal(ks_text_write(path, "__global__ void k() {}\n", 23), KS_OK);
        struct stat sb;
        assert_int_equal(stat(path, &sb), 0);
        if ((sb.st_mode & 07777) != modes[i])
            fail_msg("mode %o became %o", (unsigned)modes[i], (unsigned)(sb.st_mode & 07777));
        unsigned char *rgba = make_rgba(2, 2);
        assert_int_equal(ks_image_write(path, KS_FMT_PNG, rgba, 2, 2), KS_OK); /* every writer alike */
        free(rgba);
        assert_int_equal(stat(path, &sb), 0);
        assert_int_equal(sb.st_mode & 07777, modes[i]);
        assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(ks_text_write(fresh, "x", 1), KS_OK);
    struct stat sb;
    assert_int_equal(stat(fresh, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0644);
    umask(077);
    assert_int_equal(unlink(fresh), 0);
    assert_int_equal(ks_text_write(fresh, "x", 1), KS_OK);
    assert_int_equal(stat(fresh, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0600);
    umask(old_mask);
    assert_int_equal(count_entries(g_dir, ".tmp-"), 0);
}

/* A stream that is given up leaves nothing; one in progress is a file beside
 * its target named with the ".tmp-" marker. */
static void test_stream_abort(void **state)
{
    (void)state;
    char csv[512];
    path_in(csv, sizeof csv, "t.csv");
    ks_out_stream *s = NULL;
    assert_int_equal(ks_stream_open(csv, &s), KS_OK);
    assert_int_equal(ks_stream_write(s, "a\n", 2), KS_OK);
    assert_int_equal(count_entries(g_dir, "t.csv.tmp-"), 1);
    ks_stream_abort(s);
    assert_int_equal(count_entries(g_dir, ""), 0);
}

/* The checks made before a run: a real file made and removed, so that a folder
 * that says yes to access() but takes no file (sysfs, even for root) is refused. */
static void test_output_usable(void **state)
{
    (void)state;
    char file[512], sub[512];
    path_in(file, sizeof file, "f.npy");
    path_in(sub, sizeof sub, "new/deeper");
    assert_int_equal(ks_output_file_usable(file), KS_OK);
    assert_int_equal(ks_output_dir_usable(g_dir), KS_OK);
    assert_int_equal(ks_output_dir_usable(sub), KS_OK);
    assert_int_equal(count_entries(g_dir, ""), 0); /* nothing left, no folder made */
    assert_int_equal(ks_output_file_usable(g_dir), KS_ERR_INVALID); /* a folder: the rename would fail at the end */
    assert_non_null(strstr(ks_error_message(), "is a folder"));
    struct stat sb;
    if (stat("/sys/kernel", &sb) == 0 && S_ISDIR(sb.st_mode)) {
        assert_int_equal(ks_output_file_usable("/sys/kernel/f.npy"), KS_ERR_IO);
        assert_non_null(strstr(ks_error_message(), "/sys/kernel/f.npy"));
        assert_int_equal(ks_output_dir_usable("/sys/kernel"), KS_ERR_IO);
        assert_int_equal(ks_output_dir_usable("/sys/kernel/frames/a"), KS_ERR_IO);
    }
    char plain[512], under[600];
    path_in(plain, sizeof plain, "plain");
    assert_int_equal(ks_text_write(plain, "x", 1), KS_OK);
    snprintf(under, sizeof under, "%s/f.npy", plain);
    assert_int_equal(ks_output_file_usable(under), KS_ERR_IO);
    assert_non_null(strstr(ks_error_message(), "Not a directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_names),
        cmocka_unit_test_setup_teardown(test_png_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ppm_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_npy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_npy_integers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mode_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_abort, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_usable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
