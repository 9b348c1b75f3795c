#define _GNU_SOURCE
#include "CPlatform.h"

#include <dlfcn.h>

const char *microapp_image_path(const void *address) {
    Dl_info info;
    if (dladdr(address, &info) == 0) return NULL;
    return info.dli_fname;
}
