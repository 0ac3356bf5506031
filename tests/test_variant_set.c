/* The variant set (app/kernel/variant_set.h) without kernel files: Tab's
 * order over ours, and the scene's times (desc.times) cleared when [ ] moves
 * to a new block, kept when there is none to move to and when a poll finds no
 * new code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "app/kernel/variant_set.h"
#include "app/options.h"

typedef struct fake_scene {
    ks_timing_window win;
    int asked; /* times calls */
} fake_scene;

static ks_status load(const char *name, const void *code, size_t size, ks_user_code **handle)
{
    (void)name, (void)code, (void)size;
    *handle = NULL;
    return KS_OK;
}

/* Takes blocks of up to 256 threads. */
static ks_status check_block(const ks_user_code *handle, const int grid[3], const int block[3])
{
    (void)handle, (void)grid;
    return (long)block[0] * block[1] * block[2] <= 256 ? KS_OK : ks_fail(KS_ERR_UNSUPPORTED, "too large");
}

static ks_timing_window *times(void *scene)
{
    fake_scene *s = scene;
    ++s->asked;
    return &s->win;
}

static const ks_variant_contract contract = {.load = load, .check_block = check_block};
static const char *const names[] = {"a", "b", "c"};

static const ks_options no_files; /* zeroed: no --kernel-file, no --kernel */

static ks_variant_set *make(fake_scene *s)
{
    const ks_variant_set_desc d = {.contract = &contract, .scene = s, .times = times, .opt = &no_files, .ours = 3,
                                   .our_names = names, .first = 1, .grid = {64, 1, 1}, .block = {64, 1, 1},
                                   .watch = 1};
    ks_variant_set *vs = NULL;
    assert_int_equal(ks_variant_set_create(&d, &vs), KS_OK);
    return vs;
}

static void test_tab_order(void **state)
{
    (void)state;
    fake_scene s = {0};
    ks_variant_set *vs = make(&s);
    assert_string_equal(ks_variant_set_name(vs), "b");
    assert_int_equal(ks_variant_set_count(vs), 3);
    assert_int_equal(ks_variant_set_file(vs), -1);
    ks_variant_set_select(vs, ks_variant_set_next(vs, 1, NULL, NULL, NULL));
    assert_int_equal(ks_variant_set_ours(vs), 2);
    ks_variant_set_select(vs, ks_variant_set_next(vs, 1, NULL, NULL, NULL));
    assert_int_equal(ks_variant_set_ours(vs), 0); /* round again */
    ks_variant_set_destroy(vs);
}

static void test_times_cleared_on_new_block(void **state)
{
    (void)state;
    fake_scene s = {0};
    ks_variant_set *vs = make(&s);
    static const int list[][3] = {{32, 1, 1}, {64, 1, 1}, {128, 1, 1}, {256, 1, 1}, {512, 1, 1}};
    int block[3] = {64, 1, 1}, changed = -1;
    ks_timing_window_push(&s.win, 1.0, 0.0);
    ks_variant_set_poll(vs, block, &changed); /* no files: no new code, the times stay */
    assert_int_equal(changed, 0);
    assert_int_equal(s.win.n, 1);
    ks_variant_set_poll(vs, block, NULL); /* changed may be NULL */
    assert_int_equal(s.win.n, 1);
    assert_int_equal(ks_variant_set_next_block(vs, list, 5, 1, block), KS_OK);
    assert_int_equal(block[0], 128);
    assert_int_equal(s.win.n, 0); /* a new block: its own times */
    ks_timing_window_push(&s.win, 1.0, 0.0);
    assert_int_equal(ks_variant_set_next_block(vs, list, 5, 1, block), KS_OK);
    assert_int_equal(block[0], 256);
    assert_int_equal(s.win.n, 0);
    ks_timing_window_push(&s.win, 1.0, 0.0);
    const int asked = s.asked;
    assert_int_equal(ks_variant_set_next_block(vs, list, 5, 1, block), KS_ERR_UNSUPPORTED); /* 512: refused */
    ks_error_clear();
    assert_int_equal(block[0], 256);
    assert_int_equal(s.win.n, 1); /* no new block: the times stay */
    assert_int_equal(s.asked, asked);
    ks_variant_set_destroy(vs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tab_order),
        cmocka_unit_test(test_times_cleared_on_new_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
