#include "web_server.h"

#include <arpa/inet.h>
#include <library_on_demand.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libmicrohttpd's functions the front end calls, found in WEB_SERVER_LIBRARY when a server first starts, not linked:
// it brings GnuTLS and a dozen libraries more, and only `--ui web` serves anything. The types are the header's.
static struct {
    __typeof__(&MHD_start_daemon) start_daemon;
    __typeof__(&MHD_stop_daemon) stop_daemon;
    __typeof__(&MHD_get_daemon_info) get_daemon_info;
    __typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
    __typeof__(&MHD_create_response_from_callback) create_response_from_callback;
    __typeof__(&MHD_destroy_response) destroy_response;
    __typeof__(&MHD_add_response_header) add_response_header;
    __typeof__(&MHD_queue_response) queue_response;
    __typeof__(&MHD_lookup_connection_value) lookup_connection_value;
    __typeof__(&MHD_get_connection_values) get_connection_values;
    __typeof__(&MHD_suspend_connection) suspend_connection;
    __typeof__(&MHD_resume_connection) resume_connection;
} mhd;

/// Why libmicrohttpd cannot be used (the dynamic linker's words), empty once it is loaded; written once, by `load`.
static char missing[512];
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
    const microapp_wanted_symbol wanted[] = {
        {"MHD_start_daemon", (void **)&mhd.start_daemon},
        {"MHD_stop_daemon", (void **)&mhd.stop_daemon},
        {"MHD_get_daemon_info", (void **)&mhd.get_daemon_info},
        {"MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer},
        {"MHD_create_response_from_callback", (void **)&mhd.create_response_from_callback},
        {"MHD_destroy_response", (void **)&mhd.destroy_response},
        {"MHD_add_response_header", (void **)&mhd.add_response_header},
        {"MHD_queue_response", (void **)&mhd.queue_response},
        {"MHD_lookup_connection_value", (void **)&mhd.lookup_connection_value},
        {"MHD_get_connection_values", (void **)&mhd.get_connection_values},
        {"MHD_suspend_connection", (void **)&mhd.suspend_connection},
        {"MHD_resume_connection", (void **)&mhd.resume_connection},
    };
    microapp_library_open(WEB_SERVER_LIBRARY, wanted, sizeof wanted / sizeof wanted[0], missing, sizeof missing);
}

const char *web_server_load(void) {
    pthread_once(&loaded, load);
    return missing[0] ? missing : NULL;
}

struct MHD_Daemon *web_server_start(
    uint16_t port, web_server_limits limits, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context) {
    if (web_server_load()) return NULL;
    // Loopback only: the address is given as the socket to bind, so no other interface ever hears the server.
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    return mhd.start_daemon(
        flags, port, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&address,
        MHD_OPTION_CONNECTION_LIMIT, limits.connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.connections_per_address,
        MHD_OPTION_CONNECTION_TIMEOUT, limits.idle_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.connection_memory,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
}

uint16_t web_server_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = mhd.get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void web_server_stop(struct MHD_Daemon *daemon) { mhd.stop_daemon(daemon); }

struct MHD_Response *web_server_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    return mhd.create_response_from_buffer(size, buffer, mode);
}

struct MHD_Response *web_server_response_from_callback(
    uint64_t size, size_t block_size, MHD_ContentReaderCallback reader, void *reader_context,
    MHD_ContentReaderFreeCallback done) {
    return mhd.create_response_from_callback(size, block_size, reader, reader_context, done);
}

void web_server_destroy_response(struct MHD_Response *response) { mhd.destroy_response(response); }

enum MHD_Result web_server_add_header(struct MHD_Response *response, const char *name, const char *value) {
    return mhd.add_response_header(response, name, value);
}

enum MHD_Result web_server_queue(struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    return mhd.queue_response(connection, status, response);
}

const char *web_server_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key) {
    return mhd.lookup_connection_value(connection, kind, key);
}

int web_server_values(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *context) {
    return mhd.get_connection_values(connection, kind, iterator, context);
}

void web_server_suspend(struct MHD_Connection *connection) { mhd.suspend_connection(connection); }

void web_server_resume(struct MHD_Connection *connection) { mhd.resume_connection(connection); }
