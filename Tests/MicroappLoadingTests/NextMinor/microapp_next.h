/*
 * The next minor of the entry ABI as a test imagines it: microapp.h's descriptor with one field appended, the
 * way a real 1.1 would append it. Fixtures built with it are "plugins of a newer minor"; the loader under test
 * still has the 1.0 header, and reads the appended field only through DescriptorFields.
 */
#include "microapp.h"

typedef struct microapp_descriptor_next {
    microapp_descriptor v1_0;
    /** The appended field: a C string. */
    const char *appended_text;
} microapp_descriptor_next;
