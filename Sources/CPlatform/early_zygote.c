// The zygote forked before main: see early_zygote.h (included by CPlatform.h) and MicroappPlatform/Zygote.swift.
#define _GNU_SOURCE
#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/// Defined (by MicroappTool) only in the executables whose `main` serves an early zygote; unresolved elsewhere (test
/// runners, benchmarks, the monolith), where nothing is forked.
extern void microapp_early_zygote_served(void) __attribute__((weak));

static int host_end = -1;
static pid_t template_pid = 0;
static pid_t forked_by = 0;
static int template_control = -1;
static int probes_only_template = 0;

int microapp_early_zygote_host(void) { return host_end; }
pid_t microapp_early_zygote_pid(void) { return template_pid; }
pid_t microapp_early_zygote_forked_by(void) { return forked_by; }
int microapp_early_zygote_control(void) { return template_control; }
int microapp_early_zygote_probes_only(void) { return probes_only_template; }

void microapp_early_zygote_forget(void) {
    host_end = -1;
    template_pid = 0;
    forked_by = 0;
}

static int equals(const char *text, const char *expected) { return text != NULL && strcmp(text, expected) == 0; }

static int starts_with(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/// What the template is for: nothing (none is forked), probes only (it waits for its first request before it runs
/// `main`), or isolated features (it gets ready at once, beside the app).
enum template_use { no_template, probes_only, children };

/// What a command line needs a template for. A `run` forks isolated features' children, as PluginSetLoading decides
/// before any lock is read (`--isolation process`, or `auto` with a `--plugins` folder), and probes a library new to
/// the probe cache in a sandboxed child, unless `--no-probe`. Never with the options that change what the children's
/// environment must hold (`--allow-unsandboxed`) or that end before any child (`--help`).
static enum template_use wanted_template(int argc, char **argv) {
    if (argc > 1 && argv[1][0] != '-' && !equals(argv[1], "run")) return no_template;
    const char *isolation = "auto";
    int plugins = 0;
    int probes = 1;
    for (int index = 1; index < argc && !equals(argv[index], "--"); index++) {
        const char *word = argv[index];
        if (equals(word, "--help") || equals(word, "-h") || equals(word, "--allow-unsandboxed")) return no_template;
        if (equals(word, "--isolation") && index + 1 < argc) isolation = argv[++index];
        else if (starts_with(word, "--isolation=")) isolation = word + strlen("--isolation=");
        else if (equals(word, "--plugins") || starts_with(word, "--plugins=")) plugins = 1;
        else if (equals(word, "--no-probe")) probes = 0;
    }
    if (equals(isolation, "process") || (equals(isolation, "auto") && plugins)) return children;
    return probes ? probes_only : no_template;
}

/// In a template for probes only: waits, before `main` starts the runtime, until the host's first request is there
/// (left queued for `Zygote.serve`), and ends without running anything when the host closes its end first, as a start
/// whose probe cache knew every library does. The template's own start (≈ 6 ms of CPU) is then paid only by a start
/// that probes.
static void await_first_request(int control) {
    char byte;
    ssize_t count;
    do count = recv(control, &byte, 1, MSG_PEEK); while (count < 0 && errno == EINTR);
    if (count <= 0) _exit(0);
}

/// The variables an isolated feature's child keeps (ChildLaunch.featureEnvironment): what the runtime needs.
static const char *const kept_variables[] = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "MICROAPP_NAMESPACES"};
enum { kept_count = sizeof(kept_variables) / sizeof(kept_variables[0]) };

/// In the new template: leaves nothing of the person's state it inherited. The environment's and the command line's
/// bytes are overwritten where the kernel shows them (/proc/<pid>/environ and cmdline read that memory) and the
/// environment is replaced by the children's; every descriptor but the control socket (as standard input) and
/// /dev/null (as output and error) is closed; the crash handlers the runtime installed go (a sandboxed child cannot
/// start the backtracer's helper; a crash ends it by its signal).
static void scrub(int argc, char **argv, char **envp, int control) {
    char *kept[kept_count] = {0};
    for (int index = 0; index < kept_count; index++) {
        const char *value = getenv(kept_variables[index]);
        kept[index] = value != NULL ? strdup(value) : NULL;
    }
    // The block the kernel shows as /proc/<pid>/environ: from the first variable's bytes to the last one's end.
    char *block = envp != NULL && envp[0] != NULL ? envp[0] : NULL;
    char *end = block;
    for (char **entry = envp; entry != NULL && *entry != NULL; entry++) {
        if (*entry + strlen(*entry) + 1 > end) end = *entry + strlen(*entry) + 1;
        memset(*entry, 0, strlen(*entry));
    }
    for (char **entry = environ; entry != NULL && *entry != NULL; entry++) memset(*entry, 0, strlen(*entry));
    clearenv();
    for (int index = 0; index < kept_count; index++) {
        if (kept[index] != NULL) setenv(kept_variables[index], kept[index], 1);
        free(kept[index]);
    }
    setenv("SWIFT_BACKTRACE", "enable=no", 1);
    setenv("MICROAPP_INTERNAL", "1", 1);
    // What the template and its children now hold is what the kernel shows, as for a process started with it (when
    // it fits where the inherited environment was; it holds less, so it does but for an empty one).
    for (char **entry = environ; block != NULL && entry != NULL && *entry != NULL; entry++) {
        size_t length = strlen(*entry) + 1;
        if (block + length > end) break;
        memcpy(block, *entry, length);
        block += length;
    }
    size_t first = argc > 0 ? strlen(argv[0]) : 0;
    for (int index = 0; index < argc; index++) memset(argv[index], 0, strlen(argv[index]));
    // A name in `ps` where there is room for one: the start of the first word's bytes.
    if (first >= 6) memcpy(argv[0], "zygote", 6);

    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    dup2(control, 0);
    if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
    }
    close_range(3, ~0U, 0);
    int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
    for (size_t index = 0; index < sizeof(crash_signals) / sizeof(crash_signals[0]); index++) {
        signal(crash_signals[index], SIG_DFL);
    }
}

/// At the exit of the process that forked the template and still holds it (a supervisor, whose app processes used
/// it): closes its end, so the template sees the host gone and ends, and reaps it (killed after a second). Waits on
/// the template's pidfd: a template that ends at once (one waiting for its first request ends without running
/// anything) is reaped at once, not at the next 10 ms tick of a polling loop.
static void reap_at_exit(void) {
    if (host_end < 0 || forked_by != getpid()) return;
    close(host_end);
    host_end = -1;
    int ended = microapp_pidfd_open(template_pid);
    struct pollfd entry = {ended, POLLIN, 0};
    int ready = 0;
    if (ended >= 0) {
        do ready = poll(&entry, 1, 1000); while (ready < 0 && errno == EINTR);
        close(ended);
    }
    if (ready <= 0) kill(template_pid, SIGKILL);
    waitpid(template_pid, NULL, 0);
}

/// The template's end of the control socket and what it needs to fork it, while a supervised run defers its fork to
/// the supervisor (after the app process's own fork): -1 when nothing waits.
static int pending_end = -1;
static enum template_use pending_use = no_template;
static int pending_argc = 0;
static char **pending_argv = NULL;
static char **pending_envp = NULL;

/// Forks the template on `ends` (the forking process keeps `ends[0]`, the template `ends[1]`). Answers 1 in the
/// template (scrubbed, ready for `main` to serve), 0 in the process that forked it, or when the fork failed (both ends
/// closed: no template).
static int fork_template(int argc, char **argv, char **envp, int ends[2], enum template_use use) {
    pid_t pid = microapp_fork();
    if (pid < 0) {
        close(ends[0]);
        close(ends[1]);
        host_end = -1;
        return 0;
    }
    if (pid > 0) {
        close(ends[1]);
        host_end = ends[0];
        template_pid = pid;
        forked_by = getpid();
        atexit(reap_at_exit);
        return 0;
    }
    close(ends[0]);
    scrub(argc, argv, envp, ends[1]);
    template_control = 0;
    probes_only_template = use == probes_only;
    if (use == probes_only) await_first_request(template_control);
    return 1;
}

int microapp_early_zygote_fork_pending(void) {
    if (pending_end < 0) return 0;
    int ends[2] = {host_end, pending_end};
    pending_end = -1;
    return fork_template(pending_argc, pending_argv, pending_envp, ends, pending_use);
}

/// Runs before main (glibc passes the command line and environment to constructors): forks the template while this
/// process has read nothing of the person's, when the command line will need it and the executable serves it. First
/// of the constructors that fork (101). In a run the supervisor will fork (early_supervisor.c, next), only the socket
/// is made here: the app process is forked first, with the host's end, and the supervisor forks the template right
/// after it (`microapp_early_zygote_fork_pending`), so the app's start does not wait for the template's fork.
__attribute__((constructor(101))) static void fork_early_zygote(int argc, char **argv, char **envp) {
    if (microapp_early_zygote_served == NULL || argv == NULL) return;
    // The default: MICROAPP_ZYGOTE=started starts the template as a process of its own once the app runs (the way
    // before this one, kept to measure against), and 0 starts every child as a process of its own.
    const char *choice = getenv("MICROAPP_ZYGOTE");
    if (equals(getenv("MICROAPP_INTERNAL"), "1") || equals(choice, "0") || equals(choice, "started")) return;
    enum template_use use = wanted_template(argc, argv);
    if (use == no_template) return;
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) return;
    if (microapp_early_supervisor_will_fork(argc, argv)) {
        host_end = ends[0];
        pending_end = ends[1];
        pending_use = use;
        pending_argc = argc;
        pending_argv = argv;
        pending_envp = envp;
        return;
    }
    (void)fork_template(argc, argv, envp, ends, use);
}

int microapp_close_from_keeping_early_zygote(int lowest) {
    // The template's end left for the supervisor is not kept: a process that closes what it inherited forgets it.
    if (pending_end >= lowest) pending_end = -1;
    if (host_end < lowest) return close_range((unsigned int)lowest, ~0U, 0);
    if (host_end > lowest && close_range((unsigned int)lowest, (unsigned int)host_end - 1, 0) != 0) return -1;
    return close_range((unsigned int)host_end + 1, ~0U, 0);
}
