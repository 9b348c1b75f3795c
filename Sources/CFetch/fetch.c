#include "cfetch.h"

#include <curl/curl.h>
#include <library_on_demand.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// libcurl's functions this file calls, found in MICROAPP_FETCH_LIBRARY when the process's first transfer starts, not
// linked: libcurl needs some thirty libraries of its own (TLS, Kerberos, LDAP, SSH, IDN…), and a process that
// downloads nothing (nearly all of them) maps none of them. The types are the header's, the code libcurl's.
static struct {
    __typeof__(&curl_global_init) global_init;
    __typeof__(&curl_easy_init) easy_init;
    __typeof__(&curl_easy_setopt) easy_setopt;
    __typeof__(&curl_easy_perform) easy_perform;
    __typeof__(&curl_easy_getinfo) easy_getinfo;
    __typeof__(&curl_easy_cleanup) easy_cleanup;
    __typeof__(&curl_easy_strerror) easy_strerror;
    __typeof__(&curl_slist_append) slist_append;
    __typeof__(&curl_slist_free_all) slist_free_all;
} curl;

/// Why libcurl cannot be used (the dynamic linker's words), empty once it is loaded; written once, by `load`.
static char missing[512];
static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
    const microapp_wanted_symbol wanted[] = {
        {"curl_global_init", (void **)&curl.global_init}, {"curl_easy_init", (void **)&curl.easy_init},
        {"curl_easy_setopt", (void **)&curl.easy_setopt}, {"curl_easy_perform", (void **)&curl.easy_perform},
        {"curl_easy_getinfo", (void **)&curl.easy_getinfo}, {"curl_easy_cleanup", (void **)&curl.easy_cleanup},
        {"curl_easy_strerror", (void **)&curl.easy_strerror}, {"curl_slist_append", (void **)&curl.slist_append},
        {"curl_slist_free_all", (void **)&curl.slist_free_all},
    };
    size_t count = sizeof wanted / sizeof wanted[0];
    if (microapp_library_open(MICROAPP_FETCH_LIBRARY, wanted, count, missing, sizeof missing)) return;
    // Once, before any thread starts a transfer (libcurl's global state is not for two threads to set up at once).
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) snprintf(missing, sizeof missing, "libcurl did not start: %s", curl.easy_strerror(code));
}

static size_t on_header(char *line, size_t size, size_t count, void *hooks) {
    const microapp_fetch_hooks *h = hooks;
    return h->header(h->context, line, size * count) ? 0 : size * count;
}

static size_t on_body(char *bytes, size_t size, size_t count, void *hooks) {
    const microapp_fetch_hooks *h = hooks;
    return h->body(h->context, bytes, size * count) ? 0 : size * count;
}

static int on_tick(void *hooks, curl_off_t down_total, curl_off_t down_now, curl_off_t up_total, curl_off_t up_now) {
    (void)down_total, (void)down_now, (void)up_total, (void)up_now;
    const microapp_fetch_hooks *h = hooks;
    return h->tick(h->context);
}

/// How a failed transfer's code reads to the caller.
static microapp_fetch_end failure(CURLcode code) {
    switch (code) {
    case CURLE_WRITE_ERROR:
    case CURLE_ABORTED_BY_CALLBACK: return MICROAPP_FETCH_STOPPED;
    case CURLE_OPERATION_TIMEDOUT: return MICROAPP_FETCH_QUIET;
    case CURLE_PEER_FAILED_VERIFICATION: return MICROAPP_FETCH_UNTRUSTED;
    case CURLE_SSL_CACERT_BADFILE: return MICROAPP_FETCH_BAD_AUTHORITIES;
    case CURLE_COULDNT_CONNECT: return MICROAPP_FETCH_REFUSED;
    case CURLE_COULDNT_RESOLVE_HOST: return MICROAPP_FETCH_NO_HOST;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE: return MICROAPP_FETCH_LOST;
    default: return MICROAPP_FETCH_FAILED;
    }
}

microapp_fetch_end microapp_fetch(
    const char *url, const char *accept, long idle_seconds, long total_ms, const char *ca_file, const char *ca_folder,
    const microapp_fetch_hooks *hooks, long *status, char *error, size_t error_size) {
    *status = 0;
    if (error_size > 0) error[0] = 0;
    pthread_once(&loaded, load);
    if (missing[0]) {
        if (error_size > 0) snprintf(error, error_size, "%s", missing);
        return MICROAPP_FETCH_NO_LIBRARY;
    }
    CURL *handle = curl.easy_init();
    if (!handle) {
        if (error_size > 0) snprintf(error, error_size, "libcurl could not start a transfer");
        return MICROAPP_FETCH_FAILED;
    }
    struct curl_slist *headers = NULL;
    if (accept) {
        char line[256];
        snprintf(line, sizeof line, "Accept: %s", accept);
        headers = curl.slist_append(NULL, line);
        curl.easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    }
    char reason[CURL_ERROR_SIZE] = {0};
    curl.easy_setopt(handle, CURLOPT_URL, url);
    curl.easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(handle, CURLOPT_MAXREDIRS, 5L);
    // No CURLOPT_ACCEPT_ENCODING: no Accept-Encoding is sent and a coded body is handed over as it came, undecoded.
    curl.easy_setopt(handle, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl.easy_setopt(handle, CURLOPT_HTTP_TRANSFER_DECODING, 1L);
    curl.easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, idle_seconds);
    curl.easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl.easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, idle_seconds);
    curl.easy_setopt(handle, CURLOPT_TIMEOUT_MS, total_ms > 0 ? total_ms : 1L);
    curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
    curl.easy_setopt(handle, CURLOPT_HEADERDATA, (void *)hooks);
    curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
    curl.easy_setopt(handle, CURLOPT_WRITEDATA, (void *)hooks);
    curl.easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
    curl.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, on_tick);
    curl.easy_setopt(handle, CURLOPT_XFERINFODATA, (void *)hooks);
    curl.easy_setopt(handle, CURLOPT_ERRORBUFFER, reason);
    // Certificates are always verified (libcurl's default), against the system's store unless told otherwise: a file
    // given replaces the store's bundle file, a folder its hashed folder (each one left as it is when not given).
    if (ca_file) curl.easy_setopt(handle, CURLOPT_CAINFO, ca_file);
    if (ca_folder) curl.easy_setopt(handle, CURLOPT_CAPATH, ca_folder);
    CURLcode code = curl.easy_perform(handle);
    curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, status);
    curl.easy_cleanup(handle);
    curl.slist_free_all(headers);
    if (code == CURLE_OK) return MICROAPP_FETCH_DONE;
    microapp_fetch_end end = failure(code);
    if (end != MICROAPP_FETCH_STOPPED && end != MICROAPP_FETCH_QUIET && error_size > 0) {
        snprintf(error, error_size, "%s", reason[0] ? reason : curl.easy_strerror(code));
    }
    return end;
}
