#ifndef MICROAPP_WEB_SERVER_H
#define MICROAPP_WEB_SERVER_H

// The browser front end's HTTP server is GNU libmicrohttpd (Debian's libmicrohttpd-dev). Swift calls its functions
// directly but for the two that are variadic, which Swift cannot call: starting a daemon and asking its port.
#include <stdint.h>
#include <stddef.h>
#include <microhttpd.h>

/// Limits of one daemon: how many connections at once (all, and from one address), how long a connection may stay
/// idle, and the memory one connection may use for its request's headers and buffers.
typedef struct web_server_limits {
    unsigned int connections;
    unsigned int connections_per_address;
    unsigned int idle_seconds;
    size_t connection_memory;
} web_server_limits;

/// Starts a daemon on 127.0.0.1 only, on `port` (0: the kernel picks one), with its own polling thread (epoll) and
/// connections that may be suspended and resumed from other threads. `handler` runs on that thread for each request
/// (and again for each piece of its body), `completed` once a request is over; both get their context back. NULL when
/// the daemon could not start (the port is taken, say); the caller stops it with MHD_stop_daemon.
struct MHD_Daemon *web_server_start(
    uint16_t port, web_server_limits limits, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context);

/// The port `daemon` listens on (the one the kernel picked when it was started with 0); 0 when unknown.
uint16_t web_server_port(struct MHD_Daemon *daemon);

#endif
