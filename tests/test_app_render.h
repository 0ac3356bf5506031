/* What the two files of the app's end-to-end test share: test_app_render.c
 * (the runs against the reference images and the gold, main) and
 * test_app_every_frame.c (the display path). */
#ifndef KS_TEST_APP_RENDER_H
#define KS_TEST_APP_RENDER_H

typedef struct ks_image {
    int w, h;
    unsigned char *rgb;
} ks_image;

/* A PNG as RGB (img->rgb from stb_image); 0 when it cannot be read. */
int load_png(const char *path, ks_image *img);
/* Fails the test when dir holds a "*.tmp-*" file. */
void assert_no_temporaries(const char *dir);

/* test_app_every_frame.c */
void test_cpu_every_frame(void **state);
void test_gpu_every_frame(void **state);
void test_gpu_forced_fallback(void **state);
void test_gpu_refusals(void **state);

#endif
