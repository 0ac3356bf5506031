/* The GPU threads (kernels/laplace/worker_pool.h): every index runs once a
 * job, on threads that stay the same between jobs, concurrently (a job that
 * waits for all the others finishes), and the lowest failing index's status
 * and message reach the caller. No device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/laplace/worker_pool.h"

typedef struct job {
    int count;
    int ran[8];
    pthread_t who[8];
    pthread_barrier_t all; /* every thread must be in the job at once */
    int fail_from;
} job;

static ks_status work(int i, void *arg)
{
    job *j = arg;
    j->ran[i] += 1;
    j->who[i] = pthread_self();
    pthread_barrier_wait(&j->all);
    if (j->fail_from >= 0 && i >= j->fail_from) return ks_fail(KS_ERR_CUDA, "index %d broke", i);
    return KS_OK;
}

static void test_runs_each_index(void **state)
{
    (void)state;
    ks_workers *w = NULL;
    assert_int_equal(ks_workers_create(5, &w), KS_OK);
    assert_int_equal(ks_workers_count(w), 5);
    job j;
    memset(&j, 0, sizeof j);
    j.fail_from = -1;
    pthread_barrier_init(&j.all, NULL, 5);
    pthread_t first[5];
    for (int round = 0; round < 3; ++round) {
        assert_int_equal(ks_workers_run(w, work, &j), KS_OK);
        for (int i = 0; i < 5; ++i) {
            assert_int_equal(j.ran[i], round + 1);
            if (round == 0) first[i] = j.who[i];
            assert_true(pthread_equal(first[i], j.who[i])); /* the same thread each time */
            assert_false(pthread_equal(j.who[i], pthread_self()));
        }
    }
    pthread_barrier_destroy(&j.all);
    ks_workers_destroy(w);
}

static void test_failure(void **state)
{
    (void)state;
    ks_workers *w = NULL;
    assert_int_equal(ks_workers_create(4, &w), KS_OK);
    job j;
    memset(&j, 0, sizeof j);
    j.fail_from = 2;
    pthread_barrier_init(&j.all, NULL, 4);
    ks_error_clear();
    assert_int_equal(ks_workers_run(w, work, &j), KS_ERR_CUDA);
    assert_string_equal(ks_error_message(), "GPU thread 2: index 2 broke");
    j.fail_from = -1; /* the next job starts clean */
    assert_int_equal(ks_workers_run(w, work, &j), KS_OK);
    pthread_barrier_destroy(&j.all);
    ks_workers_destroy(w);
    ks_workers_destroy(NULL);
    assert_int_equal(ks_workers_create(0, &w), KS_ERR_INVALID);
    assert_null(w);
    assert_int_equal(ks_workers_create(65, &w), KS_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_runs_each_index), cmocka_unit_test(test_failure)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
