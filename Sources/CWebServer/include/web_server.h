#ifndef MICROAPP_WEB_SERVER_H
#define MICROAPP_WEB_SERVER_H

// The browser front end's HTTP server is GNU libmicrohttpd (Debian's libmicrohttpd-dev). Its header gives the types;
// the library itself is opened with dlopen when a server first starts, not linked (a process that serves no page maps
// neither it nor GnuTLS), so Swift calls its functions through these, one each (two of them variadic, which Swift
// cannot call). Each but web_server_load and web_server_start is for a server that started.
#include <stdint.h>
#include <stddef.h>
#include <microhttpd.h>

/// The library the server is made with (Debian's libmicrohttpd12), opened on the first start.
#define WEB_SERVER_LIBRARY "libmicrohttpd.so.12"
/// The Debian package that installs WEB_SERVER_LIBRARY.
#define WEB_SERVER_PACKAGE "libmicrohttpd12"

/// Limits of one daemon: how many connections at once (all, and from one address), how long a connection may stay
/// idle, and the memory one connection may use for its request's headers and buffers.
typedef struct web_server_limits {
    unsigned int connections;
    unsigned int connections_per_address;
    unsigned int idle_seconds;
    size_t connection_memory;
} web_server_limits;

/// Loads WEB_SERVER_LIBRARY, once for the process (any thread may call it); NULL when it is loaded, else why it cannot
/// be (the dynamic linker's words, a static text).
const char *web_server_load(void);

/// Starts a daemon on 127.0.0.1 only, on `port` (0: the kernel picks one), with its own polling thread (epoll) and
/// connections that may be suspended and resumed from other threads. `handler` runs on that thread for each request
/// (and again for each piece of its body), `completed` once a request is over; both get their context back. NULL when
/// the daemon could not start (the port is taken, say, or web_server_load fails); the caller stops it with
/// web_server_stop.
struct MHD_Daemon *web_server_start(
    uint16_t port, web_server_limits limits, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context);

/// The port `daemon` listens on (the one the kernel picked when it was started with 0); 0 when unknown.
uint16_t web_server_port(struct MHD_Daemon *daemon);

/// Stops `daemon` (MHD_stop_daemon): every connection closed, its thread ended.
void web_server_stop(struct MHD_Daemon *daemon);

/// A response of `size` bytes at `buffer` (MHD_create_response_from_buffer).
struct MHD_Response *web_server_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);

/// A response whose bytes `reader` gives as they are asked for; `done` frees `reader_context`
/// (MHD_create_response_from_callback).
struct MHD_Response *web_server_response_from_callback(
    uint64_t size, size_t block_size, MHD_ContentReaderCallback reader, void *reader_context,
    MHD_ContentReaderFreeCallback done);

/// Drops the caller's reference to `response` (MHD_destroy_response).
void web_server_destroy_response(struct MHD_Response *response);

/// Adds a header to `response` (MHD_add_response_header).
enum MHD_Result web_server_add_header(struct MHD_Response *response, const char *name, const char *value);

/// Answers the request on `connection` with `status` and `response` (MHD_queue_response).
enum MHD_Result web_server_queue(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response);

/// The request's value named `key` of `kind` (a header, a query argument, a cookie), NULL when it has none
/// (MHD_lookup_connection_value); valid while the request lasts.
const char *web_server_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key);

/// Calls `iterator` with each of the request's values of `kind`; how many there were (MHD_get_connection_values).
int web_server_values(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *context);

/// Holds `connection` until web_server_resume (MHD_suspend_connection): on the server's thread only.
void web_server_suspend(struct MHD_Connection *connection);

/// Lets a suspended `connection` go on (MHD_resume_connection), from any thread.
void web_server_resume(struct MHD_Connection *connection);

#endif
