/* Test helper for the GL tests under LeakSanitizer. Mesa's driver (swrast_dri,
 * llvmpipe) keeps a few small allocations for the life of the process and is
 * dlclose'd at eglTerminate/glfwTerminate; LeakSanitizer then reports them from
 * an "<unknown module>" that no suppression can name. Marking every loaded
 * library RTLD_NODELETE keeps the driver mapped, so tests/lsan.supp matches it
 * by name. Does nothing outside sanitizer builds. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

void ks_test_pin_libraries(void);

#if defined(__SANITIZE_ADDRESS__)
static int pin_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0') {
        /* NOLOAD: only takes another reference to what is already there */
        void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        (void)h; /* the reference is meant to stay */
    }
    return 0;
}
#endif

void ks_test_pin_libraries(void)
{
#if defined(__SANITIZE_ADDRESS__)
    dl_iterate_phdr(pin_one, NULL);
#endif
}
