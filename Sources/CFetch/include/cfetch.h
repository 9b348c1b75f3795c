#ifndef CFETCH_H
#define CFETCH_H

#include <stddef.h>

/// The library the transfers are made with (Debian's libcurl4), opened with dlopen when the process's first transfer
/// starts rather than linked: a process that downloads nothing never maps it nor the libraries it needs.
#define MICROAPP_FETCH_LIBRARY "libcurl.so.4"
/// The Debian package that installs MICROAPP_FETCH_LIBRARY.
#define MICROAPP_FETCH_PACKAGE "libcurl4"

/// What one transfer tells its caller, each on the thread that called microapp_fetch, in order: every header line of
/// every response (redirects' too), then the final response's body in chunks as they arrive, and the progress
/// tick at least once a second meanwhile (also while nothing arrives). Each returns nonzero to stop the transfer.
/// `context` is the caller's, passed back untouched; the bytes are libcurl's, valid only during the call.
typedef struct microapp_fetch_hooks {
    void *context;
    int (*header)(void *context, const char *line, size_t length);
    int (*body)(void *context, const char *bytes, size_t length);
    int (*tick)(void *context);
} microapp_fetch_hooks;

/// How a transfer ended.
typedef enum microapp_fetch_end {
    MICROAPP_FETCH_DONE = 0,
    /// A hook returned nonzero.
    MICROAPP_FETCH_STOPPED = 1,
    /// Nothing arrived for `idle_seconds`, or the connection took longer.
    MICROAPP_FETCH_QUIET = 2,
    /// Any other failure; its text is in `error`.
    MICROAPP_FETCH_FAILED = 3,
    /// The server's certificate was not verified (an authority not trusted, a name that does not match, expired);
    /// libcurl's text is in `error`.
    MICROAPP_FETCH_UNTRUSTED = 4,
    /// The certificate authorities given could not be read; libcurl's text is in `error`.
    MICROAPP_FETCH_BAD_AUTHORITIES = 5,
    /// Nothing listens at the address (the connection was refused); libcurl's text is in `error`.
    MICROAPP_FETCH_REFUSED = 6,
    /// The host's name is not known; libcurl's text is in `error`.
    MICROAPP_FETCH_NO_HOST = 7,
    /// The connection closed before the whole response came; libcurl's text is in `error`.
    MICROAPP_FETCH_LOST = 8,
    /// MICROAPP_FETCH_LIBRARY cannot be loaded (not installed, say); the dynamic linker's text is in `error`.
    MICROAPP_FETCH_NO_LIBRARY = 9,
} microapp_fetch_end;

/// One GET of `url` (http or https only, redirects too, at most 5, certificates verified) with no content coding
/// asked for and none decoded: the body handed to `hooks` is the bytes on the wire (of any status: the hooks decide).
/// `accept`, when not NULL, is sent as the Accept header (a media type, shorter than 240 bytes). A connection that
/// stays silent for `idle_seconds` (or takes longer to open) ends it; it ends by `total_ms` at the latest.
/// Certificates are checked against the system's store (Debian's /etc/ssl/certs), or against the PEM file
/// `ca_file` and the hashed folder `ca_folder` where given (NULL: the store's own).
/// `status` receives the final response's HTTP status (0 when none); `error` (of `error_size` bytes) a text for
/// MICROAPP_FETCH_FAILED and the other failures that say so. Blocks; waits in poll, never spins. Any thread may call it,
/// several at once (each transfer has its own handle); the first call loads the library.
microapp_fetch_end microapp_fetch(
    const char *url, const char *accept, long idle_seconds, long total_ms, const char *ca_file, const char *ca_folder,
    const microapp_fetch_hooks *hooks, long *status, char *error, size_t error_size);

#endif
