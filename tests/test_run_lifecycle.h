/* What the two files of test_run_lifecycle share: test_run_lifecycle.c (the
 * file helpers, the signal tests and main) and test_run_outputs.c (the tests
 * of a run's outputs and lines). */
#ifndef KS_TEST_RUN_LIFECYCLE_H
#define KS_TEST_RUN_LIFECYCLE_H

int file_exists(const char *path);
/* No "*.tmp-*" anywhere in dir (the test fails otherwise); the number of entries with suffix. */
int scan_dir(const char *dir, const char *suffix);
/* Fails the test unless every row has as many fields as the header and the file ends with a
 * whole line; the number of rows under the header. */
int check_csv_whole(const char *path);

/* test_run_outputs.c */
void test_dump_into_missing_folder(void **state);
void test_unwritable_outputs_refused(void **state);
void test_rejected_run_creates_no_folder(void **state);
void test_error_after_ui_stands_alone(void **state);
void test_names_summary_progress(void **state);
void test_headless_saves_last_frame(void **state);
void test_bench_default_results_folder(void **state);
void test_csv_kept_on_error(void **state);

#endif
