#define _GNU_SOURCE
#include "sandbox.h"
#include "sandbox_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// Landlock's constants, defined here because the system's kernel headers may predate the kernel (Debian's 6.1
// headers stop at ABI 2 or 3). Values from the kernel's include/uapi/linux/landlock.h.
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#define SANDBOX_LANDLOCK_VERSION_FLAG (1U << 0)
#define SANDBOX_RULE_PATH_BENEATH 1
#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_MAKE_SYM (1ULL << 12) // the last right of ABI 1: rights 0…12
#define FS_REFER (1ULL << 13)    // ABI 2
#define FS_TRUNCATE (1ULL << 14) // ABI 3
#define FS_IOCTL_DEV (1ULL << 15) // ABI 5
#define NET_BIND_TCP (1ULL << 0)  // ABI 4
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) // ABI 6
#define SCOPE_SIGNAL (1ULL << 1)
// The rights a rule on a regular file may carry (anything else there is EINVAL).
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

struct sandbox_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; // ABI 4
    uint64_t scoped;             // ABI 6
};

struct sandbox_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

static int landlock_version(void) {
    return (int)syscall(__NR_landlock_create_ruleset, NULL, 0, SANDBOX_LANDLOCK_VERSION_FLAG);
}

int microapp_sandbox_support(struct microapp_sandbox_support *support) {
    memset(support, 0, sizeof *support);
    int abi = landlock_version();
    support->landlock_abi = abi > 0 ? abi : 0;
    support->landlock_error = abi > 0 ? 0 : errno;
    uint32_t action = SECCOMP_RET_ERRNO;
    support->seccomp = syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
    support->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0;
    support->seccomp_architecture = sandbox_filter_architecture();
    return 0;
}

static int fail(struct microapp_sandbox_report *report, int step, int error_number, const char *path) {
    report->step = step;
    report->error_number = error_number;
    report->path = path;
    return -1;
}

// -- Threads ---------------------------------------------------------------------------------------------------------

// Landlock (ABI 7) restricts only the calling thread: another thread started before would stay free.
static int thread_count(void) {
    int descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return -1;
    char text[4096];
    ssize_t length = read(descriptor, text, sizeof text - 1);
    int saved = errno;
    close(descriptor);
    if (length < 0) {
        errno = saved;
        return -1;
    }
    text[length] = 0;
    const char *line = strstr(text, "\nThreads:");
    int count = 0;
    if (line == NULL || sscanf(line + 9, "%d", &count) != 1) {
        errno = EPROTO;
        return -1;
    }
    return count;
}

// -- Limits ----------------------------------------------------------------------------------------------------------

// Lowers soft and hard limits to `value` (never raises them); `slack` is added to the hard limit (CPU: SIGXCPU at the
// soft limit, SIGKILL at the hard one).
static int lower_limit(int resource, uint64_t value, uint64_t slack) {
    if (value == 0) return 0;
    struct rlimit current;
    if (getrlimit(resource, &current) != 0) return -1;
    rlim_t soft = (rlim_t)value, hard = (rlim_t)(value + slack);
    // Already as low (set once in a template process before it forks, say): no call. Setting RLIMIT_CPU arms a
    // process CPU timer, which costs up to milliseconds on a loaded machine.
    if (current.rlim_cur != RLIM_INFINITY && current.rlim_cur <= soft && current.rlim_max != RLIM_INFINITY &&
        current.rlim_max <= hard) {
        return 0;
    }
    if (current.rlim_max != RLIM_INFINITY && hard > current.rlim_max) hard = current.rlim_max;
    if (current.rlim_cur != RLIM_INFINITY && soft > current.rlim_cur) soft = current.rlim_cur;
    if (soft > hard) soft = hard;
    struct rlimit wanted = {.rlim_cur = soft, .rlim_max = hard};
    return setrlimit(resource, &wanted);
}

static int apply_limits(const struct microapp_sandbox_policy *policy) {
    // No core dumps; a process already without them (a second layer inside a sandbox, which may no longer set
    // limits) makes no call.
    struct rlimit core, none = {0, 0};
    if (getrlimit(RLIMIT_CORE, &core) != 0) return -1;
    if ((core.rlim_cur != 0 || core.rlim_max != 0) && setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    if (lower_limit(RLIMIT_DATA, policy->memory_limit, 0) != 0) return -1;
    if (lower_limit(RLIMIT_AS, policy->address_space_limit, 0) != 0) return -1;
    if (lower_limit(RLIMIT_CPU, policy->cpu_seconds, 1) != 0) return -1;
    if (lower_limit(RLIMIT_NOFILE, policy->open_files_limit, 0) != 0) return -1;
    if (policy->file_size_limit != 0) {
        // A write past the limit then fails with EFBIG, an error the feature can report, instead of killing it.
        if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR) return -1;
        if (lower_limit(RLIMIT_FSIZE, policy->file_size_limit, 0) != 0) return -1;
    }
    return 0;
}

// -- Capabilities ----------------------------------------------------------------------------------------------------

// A process of root keeps CAP_SYS_PTRACE, CAP_DAC_OVERRIDE… and with them reads other processes' /proc entries
// (environ, maps) that Landlock's ptrace scoping denies an ordinary user's process. None is needed to run a feature.
static int drop_capabilities(void) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &header, data);
}

// -- Landlock --------------------------------------------------------------------------------------------------------

static uint64_t handled_files(int abi) {
    uint64_t rights = (FS_MAKE_SYM << 1) - 1;
    if (abi >= 2) rights |= FS_REFER;
    if (abi >= 3) rights |= FS_TRUNCATE;
    if (abi >= 5) rights |= FS_IOCTL_DEV;
    return rights;
}

static int add_rule(int ruleset, const char *path, uint64_t directory_rights, uint64_t handled) {
    int descriptor = open(path, O_PATH | O_CLOEXEC);
    if (descriptor < 0) return -1;
    struct stat status;
    if (fstat(descriptor, &status) != 0) {
        int saved = errno;
        close(descriptor);
        errno = saved;
        return -1;
    }
    uint64_t rights = directory_rights & handled;
    if (!S_ISDIR(status.st_mode)) rights &= FS_FILE_RIGHTS;
    struct sandbox_path_beneath_attr beneath = {.allowed_access = rights, .parent_fd = descriptor};
    long result = syscall(__NR_landlock_add_rule, ruleset, SANDBOX_RULE_PATH_BENEATH, &beneath, 0);
    int saved = errno;
    close(descriptor);
    errno = saved;
    return result == 0 ? 0 : -1;
}

static int apply_landlock(
    const struct microapp_sandbox_policy *policy, struct microapp_sandbox_report *report, int abi) {
    struct sandbox_ruleset_attr attributes = {.handled_access_fs = handled_files(abi)};
    size_t size = sizeof attributes.handled_access_fs;
    if (abi >= 4) {
        // Not handling TCP leaves it to seccomp alone; handled without a port rule, every bind/connect is denied.
        if (!policy->allow_network) attributes.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
        size = offsetof(struct sandbox_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        // No signals to processes outside this sandbox (the host, the user's shell), no connection to an abstract
        // unix socket made outside it (D-Bus and X11 listen on some).
        attributes.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
        size = sizeof attributes;
    }
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attributes, size, 0);
    if (ruleset < 0) return fail(report, MICROAPP_SANDBOX_STEP_LANDLOCK_RULESET, errno, NULL);
    uint64_t read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
    for (size_t index = 0; index < policy->read_count; index++) {
        if (add_rule(ruleset, policy->read_paths[index], read, attributes.handled_access_fs) != 0) {
            int saved = errno;
            close(ruleset);
            return fail(report, MICROAPP_SANDBOX_STEP_LANDLOCK_RULE, saved, policy->read_paths[index]);
        }
    }
    for (size_t index = 0; index < policy->write_count; index++) {
        if (add_rule(ruleset, policy->write_paths[index], ~0ULL, attributes.handled_access_fs) != 0) {
            int saved = errno;
            close(ruleset);
            return fail(report, MICROAPP_SANDBOX_STEP_LANDLOCK_RULE, saved, policy->write_paths[index]);
        }
    }
    long restricted = syscall(__NR_landlock_restrict_self, ruleset, 0);
    int saved = errno;
    close(ruleset);
    if (restricted != 0) return fail(report, MICROAPP_SANDBOX_STEP_LANDLOCK_RESTRICT, saved, NULL);
    report->applied |= MICROAPP_SANDBOX_LANDLOCK;
    report->landlock_abi = abi;
    return 0;
}

// -- seccomp ---------------------------------------------------------------------------------------------------------

static int apply_seccomp(const struct microapp_sandbox_policy *policy, struct microapp_sandbox_report *report) {
    // About 4 KiB of instructions: static, so that a thread with a small stack could apply it as well.
    static struct sandbox_filter filter;
    filter.length = 0;
    filter.overflow = 0;
    sandbox_filter_build(&filter, policy->allow_network);
    if (filter.overflow) return fail(report, MICROAPP_SANDBOX_STEP_SECCOMP, E2BIG, NULL);
    struct sock_fprog program = {.len = filter.length, .filter = filter.code};
    // TSYNC: every thread of the process gets the filter, should one exist despite the check.
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) {
        return fail(report, MICROAPP_SANDBOX_STEP_SECCOMP, errno, NULL);
    }
    report->applied |= MICROAPP_SANDBOX_SECCOMP;
    return 0;
}

// -- All of it -------------------------------------------------------------------------------------------------------

int microapp_sandbox_apply(const struct microapp_sandbox_policy *policy, struct microapp_sandbox_report *report) {
    memset(report, 0, sizeof *report);
    int threads = thread_count();
    if (threads < 0) return fail(report, MICROAPP_SANDBOX_STEP_THREADS, errno, NULL);
    if (threads != 1) return fail(report, MICROAPP_SANDBOX_STEP_THREADS, EBUSY, NULL);

    if (apply_limits(policy) != 0) return fail(report, MICROAPP_SANDBOX_STEP_LIMITS, errno, NULL);
    report->applied |= MICROAPP_SANDBOX_LIMITS;

    // Required by seccomp for an unprivileged process and by Landlock; also: no setuid program gains anything.
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(report, MICROAPP_SANDBOX_STEP_NO_NEW_PRIVS, errno, NULL);
    report->applied |= MICROAPP_SANDBOX_NO_NEW_PRIVS;

    if (drop_capabilities() != 0) return fail(report, MICROAPP_SANDBOX_STEP_CAPABILITIES, errno, NULL);
    report->applied |= MICROAPP_SANDBOX_CAPABILITIES;

    int abi = landlock_version();
    if (abi > 0) {
        if (apply_landlock(policy, report, abi) != 0) return -1;
    } else if (!policy->best_effort) {
        return fail(report, MICROAPP_SANDBOX_STEP_LANDLOCK_RULESET, errno, NULL);
    }

    struct microapp_sandbox_support support;
    microapp_sandbox_support(&support);
    uint32_t architecture = sandbox_filter_architecture();
    if (architecture != 0 && support.seccomp) return apply_seccomp(policy, report);
    if (!policy->best_effort) return fail(report, MICROAPP_SANDBOX_STEP_SECCOMP, architecture ? ENOSYS : ENOTSUP, NULL);
    return 0;
}
