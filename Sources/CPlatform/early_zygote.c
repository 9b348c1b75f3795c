// The zygote forked before main: see early_zygote.h (included by CPlatform.h) and MicroappPlatform/Zygote.swift.
#define _GNU_SOURCE
#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// Defined (by MicroappTool) only in the executables whose `main` serves an early zygote; unresolved elsewhere (test
/// runners, benchmarks, the monolith), where nothing is forked.
extern void microapp_early_zygote_served(void) __attribute__((weak));

static int host_end = -1;
static pid_t template_pid = 0;
static pid_t forked_by = 0;
static int template_control = -1;

int microapp_early_zygote_host(void) { return host_end; }
pid_t microapp_early_zygote_pid(void) { return template_pid; }
pid_t microapp_early_zygote_forked_by(void) { return forked_by; }
int microapp_early_zygote_control(void) { return template_control; }

void microapp_early_zygote_forget(void) {
    host_end = -1;
    template_pid = 0;
    forked_by = 0;
}

static int equals(const char *text, const char *expected) { return text != NULL && strcmp(text, expected) == 0; }

static int starts_with(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/// True when the command line is a `run` that will start isolated features in children, as PluginSetLoading decides
/// before any lock is read (`--isolation process`, or `auto` with a `--plugins` folder), and none of the options that
/// change what the children's environment must hold (`--allow-unsandboxed`) or that end before any child (`--help`).
static int wants_children(int argc, char **argv) {
    if (argc > 1 && argv[1][0] != '-' && !equals(argv[1], "run")) return 0;
    const char *isolation = "auto";
    int plugins = 0;
    for (int index = 1; index < argc && !equals(argv[index], "--"); index++) {
        const char *word = argv[index];
        if (equals(word, "--help") || equals(word, "-h") || equals(word, "--allow-unsandboxed")) return 0;
        if (equals(word, "--isolation") && index + 1 < argc) isolation = argv[++index];
        else if (starts_with(word, "--isolation=")) isolation = word + strlen("--isolation=");
        else if (equals(word, "--plugins") || starts_with(word, "--plugins=")) plugins = 1;
    }
    return equals(isolation, "process") || (equals(isolation, "auto") && plugins);
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
/// it): closes its end, so the template sees the host gone and ends, and reaps it (killed after a second).
static void reap_at_exit(void) {
    if (host_end < 0 || forked_by != getpid()) return;
    close(host_end);
    host_end = -1;
    for (int tries = 0; tries < 100; tries++) {
        if (waitpid(template_pid, NULL, WNOHANG) != 0) return;
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    kill(template_pid, SIGKILL);
    waitpid(template_pid, NULL, 0);
}

/// Runs before main (glibc passes the command line and environment to constructors): forks the template while this
/// process has read nothing of the person's, when the command line will need it and the executable serves it.
__attribute__((constructor)) static void fork_early_zygote(int argc, char **argv, char **envp) {
    if (microapp_early_zygote_served == NULL || argv == NULL) return;
    // Opt-in for now (MICROAPP_ZYGOTE=early): the 10 s isolated start once blamed on it was every forked child's
    // (inherited thread ids, see inherited_thread_ids.c); it is to be measured against the default supervised first.
    if (equals(getenv("MICROAPP_INTERNAL"), "1") || !equals(getenv("MICROAPP_ZYGOTE"), "early")) return;
    if (!wants_children(argc, argv)) return;
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) return;
    pid_t pid = microapp_fork();
    if (pid < 0) {
        close(ends[0]);
        close(ends[1]);
        return;
    }
    if (pid > 0) {
        close(ends[1]);
        host_end = ends[0];
        template_pid = pid;
        forked_by = getpid();
        atexit(reap_at_exit);
        return;
    }
    close(ends[0]);
    scrub(argc, argv, envp, ends[1]);
    template_control = 0;
}

int microapp_close_from_keeping_early_zygote(int lowest) {
    if (host_end < lowest) return close_range((unsigned int)lowest, ~0U, 0);
    if (host_end > lowest && close_range((unsigned int)lowest, (unsigned int)host_end - 1, 0) != 0) return -1;
    return close_range((unsigned int)host_end + 1, ~0U, 0);
}
