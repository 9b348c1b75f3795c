// Libraries opened when first needed rather than linked (libcurl, libmicrohttpd): a process that never needs one maps
// neither it nor the libraries it needs in turn, and starts that much faster.
#ifndef MICROAPP_LIBRARY_ON_DEMAND_H
#define MICROAPP_LIBRARY_ON_DEMAND_H

#include <stddef.h>

/// A function wanted from a library opened on demand: its name, and where its address goes (the caller's pointer of
/// the function's own type, cast to `void **`).
typedef struct microapp_wanted_symbol {
    const char *name;
    void **slot;
} microapp_wanted_symbol;

/// Opens `soname` (RTLD_NOW | RTLD_LOCAL: its symbols are this caller's alone) and fills the slot of each of the
/// `count` `symbols`. 0 when every one is found; else -1 with why in `error` (of `error_size` bytes): the dynamic
/// linker's words, or the first function missing. Call it once per library (under pthread_once): it is not reentrant
/// for the same slots, and the library stays open for the process's life.
int microapp_library_open(
    const char *soname, const microapp_wanted_symbol *symbols, size_t count, char *error, size_t error_size);

#endif
