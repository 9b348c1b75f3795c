#include "library_on_demand.h"

#include <dlfcn.h>
#include <stdio.h>

int microapp_library_open(
    const char *soname, const microapp_wanted_symbol *symbols, size_t count, char *error, size_t error_size) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, error_size, "%s", dlerror());
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        if (!(*symbols[i].slot = dlsym(library, symbols[i].name))) {
            snprintf(error, error_size, "%s has no %s (too old a version)", soname, symbols[i].name);
            return -1;
        }
    }
    return 0;
}
