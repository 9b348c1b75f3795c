// The supervisor's first app process forked before main: see early_supervisor.h (included by CPlatform.h) and
// MicroappTool's Supervisor.swift, which takes over in both processes once main runs.
#define _GNU_SOURCE
#include "CPlatform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/// Defined (by MicroappTool) only in executables whose `main` can be the supervisor and its app process; unresolved
/// elsewhere (benchmarks, the monolith), where nothing is forked.
extern void microapp_early_supervisor_served(void) __attribute__((weak));

enum { path_capacity = 4096 };
static int role = microapp_early_supervisor_none;
static char base[path_capacity];
static char folder[path_capacity];
static char crash_file[path_capacity + 16];
static int first_status = -1;
static struct termios terminal;
static int has_terminal = 0;
/// A page shared by the supervisor and its first app process: the app process writes 1 when `main` took it over.
static volatile int *taken_over = NULL;

int microapp_early_supervisor_role(void) { return role; }
const char *microapp_early_supervisor_folder(void) { return role == microapp_early_supervisor_none ? NULL : folder; }
const char *microapp_early_supervisor_base(void) { return role == microapp_early_supervisor_none ? NULL : base; }
const char *microapp_early_supervisor_crash_file(void) {
    return role == microapp_early_supervisor_none ? NULL : crash_file;
}
int microapp_early_supervisor_status(void) { return role == microapp_early_supervisor_parent ? first_status : -1; }

int microapp_early_supervisor_terminal(struct termios *settings) {
    if (role != microapp_early_supervisor_parent || !has_terminal) return 0;
    *settings = terminal;
    return 1;
}

void microapp_early_supervisor_took_over(void) {
    if (role == microapp_early_supervisor_app && taken_over != NULL) *taken_over = 1;
}

static int equals(const char *text, const char *expected) { return text != NULL && strcmp(text, expected) == 0; }

/// True when `word` is the option `name`, alone or with a value (`--name=…`).
static int names(const char *word, const char *name) {
    size_t length = strlen(name);
    return strncmp(word, name, length) == 0 && (word[length] == '\0' || word[length] == '=');
}

/// True when the command line is `run` (named, or the default: no word or an option first) and none of the words that
/// keep it unsupervised or end it before the app (`--no-supervise`, `--supervised`, `--help`, `-h`, `--version`) is
/// among its options. The parser takes no value that starts with `-` (one is written `--name=-value`), so every
/// such word before `--` is an option, whatever option comes before it. A command line that is none of these (a usage
/// error) is the app process's to report: the supervisor relays its exit code, as when it was forked after parsing.
static int is_supervised_run(int argc, char **argv) {
    if (argc > 1 && argv[1][0] != '-' && !equals(argv[1], "run")) return 0;
    static const char *const unsupervised[] = {"--no-supervise", "--supervised", "--help", "-h", "--version"};
    for (int index = 1; index < argc && !equals(argv[index], "--"); index++) {
        if (argv[index][0] != '-') continue;
        for (size_t option = 0; option < sizeof unsupervised / sizeof unsupervised[0]; option++) {
            if (names(argv[index], unsupervised[option])) return 0;
        }
    }
    return 1;
}

/// SwiftPM's test runners (`<Package>PackageTests.xctest`) link MicroappTool, and so the marker, but run tests.
static int is_test_runner(const char *program) {
    size_t length = program != NULL ? strlen(program) : 0;
    return length >= 7 && strcmp(program + length - 7, ".xctest") == 0;
}

/// Makes the supervisor's folder as Supervisor.swift would: `$TMPDIR` when absolute (else /tmp), one trailing `/`
/// dropped, then mkdtemp (mode 0700) of `microapp-run-XXXXXX` in it. 0, or -1 (Swift makes it again and says why).
static int make_folder(void) {
    const char *temporary = getenv("TMPDIR");
    if (temporary == NULL || temporary[0] != '/') temporary = "/tmp";
    size_t length = strlen(temporary);
    if (length > 1 && temporary[length - 1] == '/') length--;
    if (length + 64 > sizeof base) return -1;
    memcpy(base, temporary, length);
    base[length] = '\0';
    snprintf(folder, sizeof folder, "%s/microapp-run-XXXXXX", base);
    if (mkdtemp(folder) == NULL) return -1;
    snprintf(crash_file, sizeof crash_file, "%s/crash-0.txt", folder);
    return 0;
}

/// Empties and removes the supervisor's folder (its files only: the app writes no folders there).
static void remove_folder(void) {
    DIR *listing = opendir(folder);
    if (listing != NULL) {
        int descriptor = dirfd(listing);
        struct dirent *entry;
        while ((entry = readdir(listing)) != NULL) {
            if (!equals(entry->d_name, ".") && !equals(entry->d_name, "..")) unlinkat(descriptor, entry->d_name, 0);
        }
        closedir(listing);
    }
    rmdir(folder);
}

/// In the supervisor whose app process ran some other `main` (it never took over): ends as that process did.
static void end_as(int status) {
    remove_folder();
    if (WIFSIGNALED(status)) {
        int signal_number = WTERMSIG(status);
        signal(signal_number, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, signal_number);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(signal_number);
        _exit(128 + signal_number);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 70);
}

/// The exit codes of MicroappTool's `ExitCode` an app process's own status keeps (any other is `crashed`, 3).
static const int kept_statuses[] = {0, 1, 2, 3, 70, 129, 130, 141, 143};
enum { exit_crashed = 3, exit_hung_up = 129, exit_interrupted = 130, exit_output_closed = 141, exit_terminated = 143 };

int microapp_early_supervisor_exit_code(int status, int *restores_terminal) {
    *restores_terminal = 0;
    if (WIFEXITED(status)) {
        for (size_t index = 0; index < sizeof kept_statuses / sizeof kept_statuses[0]; index++) {
            if (kept_statuses[index] == WEXITSTATUS(status)) return WEXITSTATUS(status);
        }
        return exit_crashed;
    }
    if (!WIFSIGNALED(status)) return -1;
    switch (WTERMSIG(status)) {
    case SIGPIPE: return exit_output_closed;
    case SIGHUP: *restores_terminal = 1; return exit_hung_up;
    case SIGTERM: *restores_terminal = 1; return exit_terminated;
    case SIGINT: *restores_terminal = 1; return exit_interrupted;
    default: return -1;
    }
}

/// In the supervisor whose app process `main` took over: when that process ended on purpose, ends as MicroappTool's
/// Supervisor would (see `microapp_early_supervisor_exit_code`; the terminal put back, the folder removed) without
/// ever entering `main`: a run that does not crash costs the supervisor no Swift start. A crash goes on into `main`,
/// whose Supervisor traces it and restarts the app without the plugin.
static void end_unless_crashed(int status) {
    int restores_terminal = 0;
    int code = microapp_early_supervisor_exit_code(status, &restores_terminal);
    if (code < 0) return;
    if (restores_terminal && has_terminal) {
        tcsetattr(0, TCSANOW, &terminal);
        static const char leave_screen[] = "\033[?1049l\033[?25h";
        // A closed terminal answers EIO: nothing more to do about it.
        (void)!write(1, leave_screen, sizeof leave_screen - 1);
    }
    remove_folder();
    exit(code);
}

int microapp_early_supervisor_will_fork(int argc, char **argv) {
    if (microapp_early_supervisor_served == NULL || argv == NULL || microapp_early_zygote_control() >= 0) return 0;
    if (equals(getenv("MICROAPP_INTERNAL"), "1") || is_test_runner(argv[0]) || !is_supervised_run(argc, argv)) return 0;
    // MICROAPP_SUPERVISOR=late: the supervisor forks its app process once main has run, the way before this (kept to
    // compare the two side by side: cold-start-benchmark's "supervisor forked after main" rows).
    return !equals(getenv("MICROAPP_SUPERVISOR"), "late");
}

/// The signals the supervisor sets for itself, put back to their defaults in a process it forks.
static void default_signals(void) {
    int defaults[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1};
    for (size_t index = 0; index < sizeof defaults / sizeof defaults[0]; index++) signal(defaults[index], SIG_DFL);
}

/// Forks the template the early zygote's constructor left for the supervisor (`microapp_early_zygote_fork_pending`);
/// in the template, puts the supervisor's signals (those set so far) back to their defaults. Answers 1 in the
/// template, which returns from the constructor at once (`main` serves), else 0.
static int fork_template(void) {
    if (!microapp_early_zygote_fork_pending()) return 0;
    default_signals();
    return 1;
}

/// Runs before main, after the early zygote's constructor (which left the template's socket for it): for a supervised
/// `run`, makes the supervisor's folder, keeps the terminal's settings, sets the supervisor's signals (ctrl-C and
/// ctrl-\ ignored, SIGTERM, SIGHUP and SIGUSR1 passed on), forks the app process (with the host's end of the
/// template's socket), then the template, and waits for the app. The app process goes on into main as an
/// unsupervised start would; the supervisor ends as the app did when it ended on purpose (`end_unless_crashed`), and
/// goes on into main only when it crashed, where Swift reads how (`microapp_early_supervisor_status`), traces the crash
/// and restarts the app or gives up.
__attribute__((constructor(102))) static void fork_early_supervisor(int argc, char **argv, char **envp) {
    (void)envp;
    if (!microapp_early_supervisor_will_fork(argc, argv)) return;
    // Whatever stops the supervisor's fork here, the template the early zygote's constructor left for it is forked by
    // this process itself, as in an unsupervised run (a return right after: in the template, `main` serves).
    if (make_folder() != 0) {
        (void)fork_template();
        return;
    }
    void *page = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        rmdir(folder);
        (void)fork_template();
        return;
    }
    taken_over = page;
    has_terminal = isatty(0) && tcgetattr(0, &terminal) == 0;
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    (void)microapp_forward_termination_install();
    (void)microapp_forward_signal_install(SIGUSR1);
    pid_t pid = microapp_fork();
    if (pid < 0) {
        // Swift's supervisor forks or starts it instead, with these same signals.
        munmap(page, sizeof(int));
        taken_over = NULL;
        rmdir(folder);
        (void)fork_template();
        return;
    }
    if (pid == 0) {
        role = microapp_early_supervisor_app;
        // As a forked app process: only 0, 1 and 2 go on (and the early template's socket: the host's end; the
        // template's, left for the supervisor, is closed with the rest); the signals the supervisor set are the app's
        // to answer; a crash writes its report where the supervisor reads it.
        (void)microapp_close_from_keeping_early_zygote(3);
        default_signals();
        if (microapp_crash_report_install(crash_file) != 0) {
            int crashes[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT};
            for (size_t index = 0; index < sizeof crashes / sizeof crashes[0]; index++) signal(crashes[index], SIG_DFL);
        }
        return;
    }
    // The template now, beside the app process's start (its fork is not the app's to wait for): it is the
    // supervisor's child, as when forked before the app, and outlives an app process that crashed for the next one.
    if (fork_template()) {
        // In the template: nothing of the supervisor's (its signals, its page; its folder is the supervisor's).
        munmap(page, sizeof(int));
        taken_over = NULL;
        return;
    }
    role = microapp_early_supervisor_parent;
    microapp_forward_termination_to(pid);
    int status = 0;
    pid_t waited;
    do waited = waitpid(pid, &status, 0);
    while (waited < 0 && errno == EINTR);
    microapp_forward_termination_to(0);
    // Not ours to wait for after all: its end is all that is known (as ForkedProcess.wait answers).
    first_status = waited == pid ? status : SIGKILL;
    int took_over = *taken_over;
    munmap(page, sizeof(int));
    taken_over = NULL;
    if (!took_over) end_as(first_status);
    end_unless_crashed(first_status);
}
