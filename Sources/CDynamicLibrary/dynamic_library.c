#include "ts_dynamic_library.h"

#include <dlfcn.h>
#include <stdio.h>

int ts_dynamic_library_load(const char *library, const char *const *names, void **const *slots,
                            size_t count, const char *too_old, char *error, size_t capacity) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        if (reason != NULL) {
            snprintf(error, capacity, "%s", reason);
        } else {
            snprintf(error, capacity, "cannot open %s", library);
        }
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        void *function = dlsym(handle, names[i]);
        if (function == NULL) {
            snprintf(error, capacity, "%s has no %s (%s)", library, names[i], too_old);
            dlclose(handle);
            return -1;
        }
        *slots[i] = function;
    }
    return 0;
}
