#include "cfetch.h"

#include <curl/curl.h>
#include <string.h>

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

microapp_fetch_end microapp_fetch(
    const char *url, long idle_seconds, long total_ms, const char *ca_file, const char *ca_folder,
    const microapp_fetch_hooks *hooks, long *status, char *error, size_t error_size) {
    *status = 0;
    if (error_size > 0) error[0] = 0;
    CURL *curl = curl_easy_init();
    if (!curl) {
        if (error_size > 0) strncpy(error, "libcurl could not start a transfer", error_size - 1);
        return MICROAPP_FETCH_FAILED;
    }
    char reason[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
    // No CURLOPT_ACCEPT_ENCODING: no Accept-Encoding is sent and a coded body is handed over as it came, undecoded.
    curl_easy_setopt(curl, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(curl, CURLOPT_HTTP_TRANSFER_DECODING, 1L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, idle_seconds);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, idle_seconds);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, total_ms > 0 ? total_ms : 1L);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, (void *)hooks);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, (void *)hooks);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_tick);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, (void *)hooks);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, reason);
    // Certificates are always verified (libcurl's default), against the system's store unless told otherwise: a file
    // given replaces the store's bundle file, a folder its hashed folder (each one left as it is when not given).
    if (ca_file) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file);
    if (ca_folder) curl_easy_setopt(curl, CURLOPT_CAPATH, ca_folder);
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(curl);
    switch (code) {
    case CURLE_OK: return MICROAPP_FETCH_DONE;
    case CURLE_WRITE_ERROR:
    case CURLE_ABORTED_BY_CALLBACK: return MICROAPP_FETCH_STOPPED;
    case CURLE_OPERATION_TIMEDOUT: return MICROAPP_FETCH_QUIET;
    default:
        if (error_size > 0) strncpy(error, reason[0] ? reason : curl_easy_strerror(code), error_size - 1);
        if (code == CURLE_PEER_FAILED_VERIFICATION) return MICROAPP_FETCH_UNTRUSTED;
        if (code == CURLE_SSL_CACERT_BADFILE) return MICROAPP_FETCH_BAD_AUTHORITIES;
        return MICROAPP_FETCH_FAILED;
    }
}
