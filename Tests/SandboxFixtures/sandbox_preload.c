// A library for the sandbox tests that sandboxes a whole program from its first instruction: preloaded
// (LD_PRELOAD), its constructor applies the host's own sandbox (compiled in) before `main` and before the Swift
// runtime starts any thread, with the paths of MICROAPP_SANDBOX_READ and MICROAPP_SANDBOX_WRITE (colon-separated),
// and MICROAPP_SANDBOX_NETWORK=1 for the network. Everything the program does after is then done under the feature's
// policy — `microapp probe` loading, registering and drawing a library's first screens, say. It says what it
// applied on standard error; a sandbox that cannot be applied ends the program with status 86 before it starts.
#define _GNU_SOURCE
#include "sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { path_capacity = 64 };

// Splits `text` (modified in place) at colons into `paths`; answers how many.
static size_t split(char *text, const char **paths) {
    size_t count = 0;
    for (char *part = strtok(text, ":"); part != NULL && count < path_capacity; part = strtok(NULL, ":")) {
        paths[count++] = part;
    }
    return count;
}

__attribute__((constructor)) static void sandbox_before_main(void) {
    static char reads_text[1 << 16], writes_text[1 << 12];
    static const char *reads[path_capacity], *writes[path_capacity];
    const char *read_list = getenv("MICROAPP_SANDBOX_READ"), *write_list = getenv("MICROAPP_SANDBOX_WRITE");
    snprintf(reads_text, sizeof reads_text, "%s", read_list ? read_list : "");
    snprintf(writes_text, sizeof writes_text, "%s", write_list ? write_list : "");
    const char *network = getenv("MICROAPP_SANDBOX_NETWORK");
    struct microapp_sandbox_policy policy = {
        .read_paths = reads,
        .read_count = split(reads_text, reads),
        .write_paths = writes,
        .write_count = split(writes_text, writes),
        .allow_network = network != NULL && strcmp(network, "1") == 0,
        .memory_limit = 1ULL << 30,
        .address_space_limit = 16ULL << 30,
        .cpu_seconds = 600,
        .file_size_limit = 1ULL << 30,
        .open_files_limit = 1024,
    };
    struct microapp_sandbox_report report;
    if (microapp_sandbox_apply(&policy, &report) != 0) {
        fprintf(stderr, "sandbox failed step %d errno %d %s\n", report.step, report.error_number,
                report.path ? report.path : "");
        _exit(86);
    }
    fprintf(stderr, "sandbox applied %u\n", report.applied);
}
