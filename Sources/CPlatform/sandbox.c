#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#else
#define SANDBOX_ARCH 0
#endif

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
    support->seccomp_architecture = SANDBOX_ARCH;
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
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
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

#define FILTER_CAPACITY 256
// Little-endian (x86_64, aarch64): the low 32 bits of an argument come first, the high ones 4 bytes later.
#define ARGUMENT_LOW(index) (offsetof(struct seccomp_data, args) + (index) * sizeof(uint64_t))
#define ARGUMENT_HIGH(index) (ARGUMENT_LOW(index) + sizeof(uint32_t))
#define DENY(error) (SECCOMP_RET_ERRNO | ((error) & SECCOMP_RET_DATA))

struct filter {
    struct sock_filter code[FILTER_CAPACITY];
    unsigned short length;
    int overflow;
};

static void emit(struct filter *filter, struct sock_filter instruction) {
    if (filter->length == FILTER_CAPACITY) {
        filter->overflow = 1;
        return;
    }
    filter->code[filter->length++] = instruction;
}

static void load_number(struct filter *filter) {
    emit(filter, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

// The accumulator holds the system call number: when it is `number`, answer `action`.
static void answer(struct filter *filter, long number, uint32_t action) {
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)number, 0, 1));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action));
}

// When the call is `number`: answer `match` if the low 32 bits of argument `index` (an int: a pid, a family, an
// ioctl request) are `first` or `second`, and `otherwise` if not. Any other call goes on with its number loaded.
static void answer_by_argument(
    struct filter *filter, long number, int index, uint32_t first, uint32_t second, uint32_t match,
    uint32_t otherwise) {
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)number, 0, 5));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(index)));
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, first, 2, 0));
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, second, 1, 0));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, otherwise));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, match));
}

// Calls a plugin has no use for and that widen what the kernel exposes to it, or reach outside its process.
static const long denied_calls[] = {
    SYS_execve, SYS_execveat, SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp,
#ifdef SYS_fork
    SYS_fork,
#endif
#ifdef SYS_vfork
    SYS_vfork,
#endif
#ifdef SYS_process_madvise
    SYS_process_madvise,
#endif
#ifdef SYS_pidfd_getfd
    SYS_pidfd_getfd,
#endif
#ifdef SYS_pidfd_send_signal
    SYS_pidfd_send_signal,
#endif
    SYS_setrlimit, SYS_tkill, SYS_unshare, SYS_setns, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_bpf,
    SYS_perf_event_open, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_userfaultfd, SYS_kexec_load,
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
    SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_reboot, SYS_swapon, SYS_swapoff, SYS_acct,
    SYS_quotactl, SYS_name_to_handle_at, SYS_open_by_handle_at, SYS_fanotify_init, SYS_syslog, SYS_vhangup,
    SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex, SYS_sethostname, SYS_setdomainname,
#ifdef SYS_io_uring_setup
    // io_uring performs socket, connect, openat… without passing through this filter.
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#endif
#ifdef SYS_open_tree
    SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
#endif
#ifdef SYS_mount_setattr
    SYS_mount_setattr,
#endif
#ifdef SYS_quotactl_fd
    SYS_quotactl_fd,
#endif
#ifdef SYS_modify_ldt
    SYS_modify_ldt, SYS_iopl, SYS_ioperm, SYS_uselib, SYS_lookup_dcookie,
#endif
};

static void build_filter(struct filter *filter, int allow_network) {
    uint32_t self = (uint32_t)getpid();
    uint32_t denied = DENY(EPERM);
    // A call from another architecture's table (i386's int 0x80 on x86_64) would be read with the wrong numbers:
    // there is no safe errno for it, only the end of the process.
    emit(filter, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    load_number(filter);
#if defined(__x86_64__)
    // x32 calls share x86_64's architecture value and carry bit 30 in their number: none of them is allowed.
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, DENY(ENOSYS)));
#endif
    for (size_t index = 0; index < sizeof denied_calls / sizeof denied_calls[0]; index++) {
        answer(filter, denied_calls[index], denied);
    }
    // clone3 passes its flags in memory the filter cannot read: ENOSYS makes glibc fall back to clone for threads.
#ifdef SYS_clone3
    answer(filter, SYS_clone3, DENY(ENOSYS));
#endif
    // clone: threads only (CLONE_THREAD), and never with a new namespace.
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 5));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(0)));
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x7E020000, 2, 0)); // CLONE_NEW*
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, denied));
    // Each block above and below either answers or leaves the call's number in the accumulator.
    // Signals only to this process (its own threads): not to the host, its process group or anyone else.
    uint32_t allowed = SECCOMP_RET_ALLOW;
    answer_by_argument(filter, SYS_kill, 0, self, self, allowed, denied);
    answer_by_argument(filter, SYS_tgkill, 0, self, self, allowed, denied);
    answer_by_argument(filter, SYS_rt_sigqueueinfo, 0, self, self, allowed, denied);
    answer_by_argument(filter, SYS_rt_tgsigqueueinfo, 0, self, self, allowed, denied);
    // Limits may be read (glibc's getrlimit is prlimit64 with no new limit), never set: not raised back by a process
    // that still could, not lowered for another process of the user (the host).
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prlimit64, 0, 6));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(2)));
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARGUMENT_HIGH(2)));
    emit(filter, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, denied));
    // ioctl: no typing into the terminal of whoever holds it (TIOCSTI), no console selection pastes (TIOCLINUX).
    answer_by_argument(filter, SYS_ioctl, 1, TIOCSTI, TIOCLINUX, denied, allowed);
    // socket: no new unix sockets ever (a connect to the user's D-Bus or ssh-agent socket is an escape; the child
    // already holds its socketpair to the host), network families only when granted, nothing else (netlink,
    // packet, …). socketpair stays: it reaches nobody.
    if (allow_network) {
        answer_by_argument(filter, SYS_socket, 0, AF_INET, AF_INET6, allowed, denied);
    } else {
        answer(filter, SYS_socket, denied);
    }
    emit(filter, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, allowed));
}

static int apply_seccomp(const struct microapp_sandbox_policy *policy, struct microapp_sandbox_report *report) {
    struct filter filter = {.length = 0, .overflow = 0};
    build_filter(&filter, policy->allow_network);
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
    if (SANDBOX_ARCH != 0 && support.seccomp) return apply_seccomp(policy, report);
    if (!policy->best_effort) return fail(report, MICROAPP_SANDBOX_STEP_SECCOMP, SANDBOX_ARCH ? ENOSYS : ENOTSUP, NULL);
    return 0;
}
