#include "cpu_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>

/* Runs from the executable's .preinit_array, before any library's
 * constructor. libgomp reads OMP_WAIT_POLICY once, in its own constructor,
 * and a setenv this early does not last (the C library sets its environment
 * from the kernel's afterwards); so when the user chose nothing, the program
 * starts itself again, once, with OMP_WAIT_POLICY=passive added. */
static void ks_cpu_wait_policy_init(int argc, char **argv, char **envp)
{
    (void)argc;
    static char *env[1024];
    static char passive[] = "OMP_WAIT_POLICY=passive";
    size_t n = 0;
    for (; envp && envp[n]; ++n) {
        if (strncmp(envp[n], "OMP_WAIT_POLICY=", 16) == 0 || strncmp(envp[n], "GOMP_SPINCOUNT=", 15) == 0)
            return; /* the user's choice, or the second start */
        if (n + 2 >= sizeof env / sizeof env[0]) return;
        env[n] = envp[n];
    }
    env[n] = passive;
    env[n + 1] = NULL;
    execve("/proc/self/exe", argv, env);
    /* no /proc: spinning waits (the threads per region still follow the work) */
}

__attribute__((section(".preinit_array"), used)) static void (*const ks_cpu_preinit)(int, char **, char **) =
    ks_cpu_wait_policy_init;
#endif

int ks_cpu_threads(size_t items)
{
#ifdef _OPENMP
    const int most = omp_get_max_threads();
    const size_t want = items / KS_CPU_ITEMS_PER_THREAD;
    if (want < 1) return 1;
    return want < (size_t)most ? (int)want : most;
#else
    (void)items;
    return 1;
#endif
}

void ks_cpu_policy_text(char *buf, size_t len)
{
#ifdef _OPENMP
    const int most = omp_get_max_threads();
    const char *wait = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    char how[160];
    if (spin)
        snprintf(how, sizeof how, "waiting as GOMP_SPINCOUNT=%.40s says", spin);
    else if (wait && strcmp(wait, "passive") == 0)
        snprintf(how, sizeof how, "passive waiting (OMP_WAIT_POLICY=passive: no core spent spinning)");
    else
        snprintf(how, sizeof how, "waiting as OMP_WAIT_POLICY=%.40s says", wait ? wait : "(unset)");
    if (most > 1)
        snprintf(buf, len, "%d OpenMP threads, %s; regions under %d cells run on fewer", most, how,
                 2 * KS_CPU_ITEMS_PER_THREAD);
    else
        snprintf(buf, len, "1 OpenMP thread, %s", how);
#else
    snprintf(buf, len, "1 thread (built without OpenMP)");
#endif
}
