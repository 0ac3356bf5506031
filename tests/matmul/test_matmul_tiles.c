/* regtile's tile shapes (kernels/matmul/matmul_tiles.h), no GPU needed: which shape
 * runs at a size on a GPU (the measured table, the heuristic, the any-shape kernel)
 * and that every row of the shape table is consistent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kernels/matmul/matmul.h"
#include "kernels/matmul/matmul_tiles.h"

/* regtile's shape: the measured table on the GPU it was measured on, the any-shape kernel for
 * rows that are not 16-byte multiples, the heuristic (which the GPU context replaces by a tune)
 * elsewhere. */
static void test_regtile_choice(void **state)
{
    (void)state;
    ks_matmul_rt_choice c;
    char text[128];
    const ks_matmul_size s4096 = {4096, 4096, 4096}, s1024 = {1024, 1024, 1024}, s6000 = {6000, 6000, 6000};
    /* H200: cc 9.0, 132 SMs */
    assert_int_equal(ks_matmul_rt_choose(&s4096, 90, 132, &c), 1);
    assert_int_equal(c.how, KS_MM_RT_TABLE);
    assert_string_equal(ks_matmul_rt_get(c.config)->name, "128x256x16/64x64/8x16");
    ks_matmul_rt_choice_text(&c, text, sizeof text);
    assert_string_equal(text, "tile 128x256x16 (measured table, H200 at 4096^3)");
    assert_int_equal(ks_matmul_rt_choose(&s1024, 90, 132, &c), 1);
    assert_string_equal(ks_matmul_rt_get(c.config)->name, "128x64x16/64x32/8x8");
    /* between measured sizes: the nearest in ratio (6000 is nearer 8192 than 4096) */
    assert_int_equal(ks_matmul_rt_choose(&s6000, 90, 132, &c), 1);
    assert_int_equal(c.measured_size, 8192);
    /* more than a factor 2 from every measured size: not final, the heuristic's (the context tunes) */
    const ks_matmul_size s256 = {256, 256, 256};
    assert_int_equal(ks_matmul_rt_choose(&s256, 90, 132, &c), 0);
    assert_int_equal(c.how, KS_MM_RT_HEURISTIC);
    /* another GPU: the heuristic, whose grid fills the waves best: 4096^2 in 128x256 tiles is 512
     * blocks, 97 % of 4 waves of 132 (128x128 as much, but smaller; 128x64 only 86 %) */
    assert_int_equal(ks_matmul_rt_choose(&s4096, 89, 132, &c), 0);
    assert_int_equal(c.how, KS_MM_RT_HEURISTIC);
    assert_string_equal(ks_matmul_rt_get(c.config)->name, "128x256x16/64x64/8x16");
    ks_matmul_rt_choice_text(&c, text, sizeof text);
    assert_string_equal(text, "tile 128x256x16 (heuristic)");
    c.how = KS_MM_RT_TUNED;
    c.tuned_of = 7;
    ks_matmul_rt_choice_text(&c, text, sizeof text);
    assert_string_equal(text, "tile 128x256x16 (tuned here: fastest of 7)");
    /* K or N not a multiple of 4: the any-shape kernel on every GPU */
    const ks_matmul_size odd = {65, 129, 31};
    assert_int_equal(ks_matmul_rt_choose(&odd, 90, 132, &c), 1);
    assert_int_equal(c.how, KS_MM_RT_ANY_SHAPE);
    assert_false(ks_matmul_rt_get(c.config)->vec);
    assert_false(ks_matmul_rt_vec_ok(&odd));
    /* every shape's row is consistent: its warps make its threads, names are unique */
    for (int i = 0; i < ks_matmul_rt_count(); ++i) {
        const ks_matmul_rt_config *cf = ks_matmul_rt_get(i);
        assert_int_equal((cf->bm / cf->wm) * (cf->bn / cf->wn) * 32, cf->threads);
        assert_int_equal(ks_matmul_rt_find(cf->name), i);
    }
    assert_null(ks_matmul_rt_get(ks_matmul_rt_count()));
    assert_int_equal(ks_matmul_rt_find("256x256x8"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regtile_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
