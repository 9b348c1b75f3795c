// Namespaces of their own for an isolated feature's child: see namespaces.h and docs/sandbox.md.
//
// A child forked from the template (the zygote) is two processes: the template clones B straight into the new
// namespaces (`microapp_namespaces_fork`), B is PID 1 there — it maps the ids, makes the mounts private, mounts a proc
// of that namespace on /proc, forks the feature's process (C, PID 2) and reaps —, and B writes C's wait status on the
// status pipe the host reads the template's reports from, before the template writes B's own. B's pid is the one the
// host knows: killing it ends the whole namespace. The feature is not PID 1 on purpose: the kernel drops every signal
// PID 1 sends itself that it has no handler for, so a feature's abort() or raise(SIGSEGV) would not end it, and the
// host could not tell a crash by its signal.
//
// A child started afresh (no template) is three processes (`microapp_namespaces_enter`): the caller (S) stays where it
// was and only waits; its clone B and B's child C are as above. C's end travels back as B's report to S, which ends the
// same way, so the host (which started S) sees the feature's exit code or signal as before. Killing S kills B (its
// parent-death signal) and with B the whole namespace.
#define _GNU_SOURCE
#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const unsigned long namespace_flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS;

/// Writes `text` to the file at `path` in one write; 0, or the error number.
static int write_file(const char *path, const char *text) {
    int descriptor = open(path, O_WRONLY | O_CLOEXEC);
    if (descriptor < 0) return errno;
    size_t length = strlen(text);
    ssize_t written = write(descriptor, text, length);
    int failure = written == (ssize_t)length ? 0 : (written < 0 ? errno : EIO);
    close(descriptor);
    return failure;
}

/// Writes `number` in decimal at `end` and answers the end of what it wrote (at most 10 characters). No stdio: only
/// async-signal-safe calls here.
static char *append_number(char *end, unsigned number) {
    char digits[12];
    int count = 0;
    do {
        digits[count++] = (char)('0' + number % 10);
        number /= 10;
    } while (number > 0);
    for (int index = count - 1; index >= 0; index--) *end++ = digits[index];
    return end;
}

/// "ID ID 1\n" into `line` (at least 32 bytes): the id mapped to itself.
static void identity_map(char *line, unsigned id) {
    char *end = line;
    for (int copy = 0; copy < 2; copy++) {
        end = append_number(end, id);
        *end++ = ' ';
    }
    memcpy(end, "1\n", 3);
}

/// In PID 1 of the new namespaces: the ids mapped to themselves, the mounts private, a proc of this PID namespace on
/// /proc. Returns 0, or -1 with `report` filled. Raw system calls and async-signal-safe calls only (the probe's
/// caller may have threads).
static int set_up(uid_t user, gid_t group, struct microapp_namespace_report *report) {
    char line[32];
    int failure;
    identity_map(line, user);
    if ((failure = write_file("/proc/self/uid_map", line)) != 0) goto ids;
    // Required before an unprivileged gid_map; a kernel older than 3.19 has no such file.
    if ((failure = write_file("/proc/self/setgroups", "deny")) != 0 && failure != ENOENT) goto ids;
    identity_map(line, group);
    if ((failure = write_file("/proc/self/gid_map", line)) != 0) goto ids;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_PRIVATE_MOUNTS, errno};
        return -1;
    }
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_PROC, errno};
        return -1;
    }
    return 0;
ids:
    *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_ID_MAP, failure};
    return -1;
}

/// Reads exactly `length` bytes, retrying interruptions; the count read (less at the end of the stream).
static size_t read_fully(int descriptor, void *buffer, size_t length) {
    size_t done = 0;
    while (done < length) {
        ssize_t count = read(descriptor, (char *)buffer + done, length - done);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        done += (size_t)count;
    }
    return done;
}

/// Writes `buffer` in one write, retrying interruptions; whether it went (EPIPE: no reader is left).
static int write_fully(int descriptor, const void *buffer, size_t length) {
    ssize_t count;
    do count = write(descriptor, buffer, length);
    while (count < 0 && errno == EINTR);
    return count == (ssize_t)length;
}

/// Closes every descriptor but the `count` ones in `kept` (in any order).
static void close_all_except(const int *kept, int count) {
    unsigned lowest = 0;
    for (;;) {
        int next = -1;
        for (int index = 0; index < count; index++) {
            if (kept[index] >= (int)lowest && (next < 0 || kept[index] < next)) next = kept[index];
        }
        if (next < 0) break;
        if ((unsigned)next > lowest) close_range(lowest, (unsigned)next - 1, 0);
        lowest = (unsigned)next + 1;
    }
    close_range(lowest, ~0U, 0);
}


/// Ends this process as the wait status `status` says its feature ended: the same exit code, or the same signal.
static void end_as(int status) {
    if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
    if (!WIFSIGNALED(status)) _exit(1);
    int number = WTERMSIG(status);
    // The feature's own core dump, if any, was its; this process's would only repeat it.
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(number, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, number);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    kill(getpid(), number);
    _exit(128 + number);
}

/// PID 1's life once the feature's process `feature` runs: reap whatever ends in the namespace, report the feature's
/// wait status on `reports`, and end (the kernel then ends anything left in the namespace).
static void reap(pid_t feature, int reports) {
    for (;;) {
        int status = 0;
        pid_t ended = waitpid(-1, &status, 0);
        if (ended < 0 && errno == EINTR) continue;
        if (ended < 0) _exit(1);
        if (ended == feature) {
            write_fully(reports, &status, sizeof status);
            _exit(0);
        }
    }
}

/// Opens the report pipe `ends` and clones this process into the new namespaces (`forgetting`: as
/// `microapp_clone_forgetting`, for a clone that forks on; else a bare clone that only makes system calls). Answers the
/// clone's pid, 0 in the clone, or -1 with `report` filled and nothing left open.
static pid_t clone_reporting(int ends[2], int forgetting, struct microapp_namespace_report *report) {
    *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_NONE, 0};
    if (pipe2(ends, O_CLOEXEC) != 0) {
        *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_CLONE, errno};
        return -1;
    }
    pid_t pid = forgetting ? microapp_clone_forgetting(namespace_flags)
                           : (pid_t)syscall(SYS_clone, namespace_flags | SIGCHLD, NULL, NULL, NULL, 0);
    if (pid < 0) {
        *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_CLONE, errno};
        close(ends[0]);
        close(ends[1]);
    }
    return pid;
}

int microapp_namespaces_enter(struct microapp_namespace_report *report) {
    int ends[2];
    // Read before the clone: inside, until the map is written, they are the overflow ids.
    uid_t user = getuid();
    gid_t group = getgid();
    pid_t first = clone_reporting(ends, 1, report);
    if (first < 0) return -1;
    if (first == 0) {
        // B, PID 1: ends with S (and the namespace with it).
        close(ends[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        struct microapp_namespace_report outcome = {MICROAPP_NAMESPACE_STEP_NONE, 0};
        if (set_up(user, group, &outcome) != 0) {
            write_fully(ends[1], &outcome, sizeof outcome);
            _exit(1);
        }
        pid_t feature = microapp_fork_again();
        if (feature == 0) {
            // C: the feature's process, which goes on.
            close(ends[1]);
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
            return 0;
        }
        if (feature < 0) outcome = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_FORK, errno};
        // S is the report pipe's only reader: a write that finds none means S ended before the parent-death signal
        // above was asked for (a host that killed its child at once), so that signal never comes. This process ends
        // instead, and the kernel ends the feature's with the namespace.
        if (!write_fully(ends[1], &outcome, sizeof outcome) || feature < 0) _exit(1);
        // Nothing of the feature's (its socket, its pipes) stays open here.
        close_all_except(&ends[1], 1);
        reap(feature, ends[1]);
    }
    // S: the process whoever started it knows.
    close(ends[1]);
    struct microapp_namespace_report outcome = {MICROAPP_NAMESPACE_STEP_FORK, ECHILD};
    size_t count = read_fully(ends[0], &outcome, sizeof outcome);
    if (count != sizeof outcome || outcome.step != MICROAPP_NAMESPACE_STEP_NONE) {
        if (count != sizeof outcome) outcome = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_FORK, ECHILD};
        close(ends[0]);
        int ignored;
        while (waitpid(first, &ignored, 0) < 0 && errno == EINTR) {}
        *report = outcome;
        return -1;
    }
    // The feature's socket and pipes (0, 1, 2) stay open here until this process ends as the feature did: the host
    // sees them close only then, so the end it waits for is already the feature's (else a host that kills a child
    // whose socket closed could kill this one first, and read SIGKILL instead of the feature's signal).
    int kept[4] = {0, 1, 2, ends[0]};
    close_all_except(kept, 4);
    int status = 0;
    int own = 0;
    int reported = read_fully(ends[0], &status, sizeof status) == sizeof status;
    while (waitpid(first, &own, 0) < 0 && errno == EINTR) {}
    end_as(reported ? status : own);
    return -1;
}

/// Set in B before it forks the feature's process, which inherits it: `microapp_namespaces_entered`.
static int entered_by_template = 0;

int microapp_namespaces_entered(void) { return entered_by_template; }

/// B's last words when it could not make the feature's process a namespace of its own (the kernel let the template's
/// probe make one): a line on the child's stderr, which the host shows with the child's end.
static void tell_failure(int error, struct microapp_namespace_report outcome) {
    char line[160] = "microapp feature-host: its namespaces could not be set up (step ";
    char *end = append_number(line + strlen(line), (unsigned)outcome.step);
    memcpy(end, ", errno ", 8);
    end = append_number(end + 8, (unsigned)outcome.error_number);
    const char *fix = "); to fix: run `microapp doctor`, or MICROAPP_NAMESPACES=0\n";
    memcpy(end, fix, strlen(fix));
    write_fully(error, line, (size_t)(end - line) + strlen(fix));
}

pid_t microapp_namespaces_fork(const int streams[3], int status, struct microapp_namespace_report *report) {
    uid_t user = getuid();
    gid_t group = getgid();
    *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_NONE, 0};
    pid_t first = microapp_clone_forgetting(namespace_flags);
    if (first != 0) {
        if (first < 0) *report = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_CLONE, errno};
        return first;
    }
    // B, PID 1 of the new namespaces.
    entered_by_template = 1;
    struct microapp_namespace_report outcome = {MICROAPP_NAMESPACE_STEP_NONE, 0};
    pid_t feature = -1;
    if (set_up(user, group, &outcome) == 0) {
        feature = microapp_fork_again();
        if (feature == 0) {
            // C: the feature's process, which goes on (the namespace, and C with it, ends with B in any case).
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
            return 0;
        }
        if (feature < 0) outcome = (struct microapp_namespace_report){MICROAPP_NAMESPACE_STEP_FORK, errno};
    }
    if (feature < 0) {
        tell_failure(streams[2], outcome);
        _exit(1);
    }
    // The feature's socket and pipes stay open here until its status is written: the host sees them close only then,
    // so the end it waits for is already the feature's (else a host that kills a child whose socket closed could kill
    // this process first, and read SIGKILL instead of the feature's signal). Nothing else of the template's stays.
    int kept[4] = {streams[0], streams[1], streams[2], status};
    close_all_except(kept, 4);
    reap(feature, status);
    return -1;
}

int microapp_namespaces_probe(struct microapp_namespace_report *report) {
    int ends[2];
    uid_t user = getuid();
    gid_t group = getgid();
    pid_t child = clone_reporting(ends, 0, report);
    if (child < 0) return -1;
    if (child == 0) {
        close(ends[0]);
        struct microapp_namespace_report outcome = {MICROAPP_NAMESPACE_STEP_NONE, 0};
        set_up(user, group, &outcome);
        write_fully(ends[1], &outcome, sizeof outcome);
        _exit(0);
    }
    close(ends[1]);
    struct microapp_namespace_report outcome = {MICROAPP_NAMESPACE_STEP_PROC, ECHILD};
    read_fully(ends[0], &outcome, sizeof outcome);
    close(ends[0]);
    int ignored;
    while (waitpid(child, &ignored, 0) < 0 && errno == EINTR) {}
    *report = outcome;
    return outcome.step == MICROAPP_NAMESPACE_STEP_NONE ? 0 : -1;
}
