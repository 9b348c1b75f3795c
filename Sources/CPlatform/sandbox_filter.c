#define _GNU_SOURCE
#include "sandbox_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

// The allow list of a feature's child, in the manner of Chrome's sandbox policies: each call is here because the
// Swift runtime, Foundation, Dispatch, the dynamic loader, the SDK or the feature protocol makes it (measured with
// `strace -f` on the demo's journey isolated, `solo --isolation process`, the probe and the tests' fixtures; see
// docs/sandbox.md), and a call that is needed only in part has its arguments checked. Everything else fails with
// EPERM: chmod/chown/utime/xattr, SysV IPC and POSIX message queues, inotify/fanotify, memfd, exec, fork, ptrace,
// mount, namespaces, keys, BPF… A number this list has never heard of (a call newer than it) fails with ENOSYS, so
// glibc takes its fallback, as it does for clone3.

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#else
#define SANDBOX_ARCH 0
#endif

// The first number of both architectures' tables this list was written after (469 is file_setattr, Linux 6.17):
// from here on, ENOSYS.
#define FIRST_UNKNOWN_CALL 470

// Little-endian (x86_64, aarch64): the low 32 bits of an argument come first, the high ones 4 bytes later.
#define ARGUMENT_LOW(index) (offsetof(struct seccomp_data, args) + (index) * sizeof(uint64_t))
#define ARGUMENT_HIGH(index) (ARGUMENT_LOW(index) + sizeof(uint32_t))
#define DENY(error) (SECCOMP_RET_ERRNO | ((error) & SECCOMP_RET_DATA))
#ifdef MICROAPP_SANDBOX_LOG
// A build to find what a feature needs (`swift build -Xcc -DMICROAPP_SANDBOX_LOG`): every call off the list is made
// and logged by the kernel (`dmesg`: audit type=1326 … syscall=N) instead of failing. Never a build to ship.
#define DENIED SECCOMP_RET_LOG
#define UNKNOWN SECCOMP_RET_LOG
#else
#define DENIED DENY(EPERM)
#define UNKNOWN DENY(ENOSYS)
#endif
#define ALLOWED SECCOMP_RET_ALLOW
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

uint32_t sandbox_filter_architecture(void) { return SANDBOX_ARCH; }

// Calls allowed whatever their arguments. Files are Landlock's to judge (which paths, read or write); memory is the
// limits' (RLIMIT_DATA, RLIMIT_AS). Calls that exist on x86_64 only (open, stat, poll…) are the same as the *at or
// p* calls aarch64 has, and are there for glibc and the runtime built for x86_64.
static const long plain_calls[] = {
    // Threads and their synchronisation (glibc's pthreads, Dispatch, the Swift runtime's locks).
    SYS_futex, SYS_set_robust_list, SYS_rseq, SYS_set_tid_address, SYS_gettid, SYS_sched_yield,
    SYS_sched_getaffinity, SYS_sched_getparam, SYS_sched_getscheduler, SYS_sched_get_priority_max,
    SYS_sched_get_priority_min, SYS_getpriority, SYS_exit, SYS_exit_group, SYS_restart_syscall,
#ifdef SYS_futex_waitv
    SYS_futex_waitv,
#endif
    // Reading and writing descriptors it holds: the protocol socket, its output pipes, files Landlock let it open.
    SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_preadv, SYS_pwritev, SYS_preadv2,
    SYS_pwritev2, SYS_lseek, SYS_close, SYS_close_range, SYS_dup, SYS_dup3, SYS_fsync, SYS_fdatasync,
    SYS_ftruncate, SYS_fallocate, SYS_fadvise64, SYS_readahead, SYS_sendfile, SYS_copy_file_range,
    // Files by path, as Landlock allows them (the library, the runtime, the scratch folder): the dynamic loader,
    // Foundation's FileManager and Data, time zones.
    SYS_openat, SYS_fstat, SYS_newfstatat, SYS_statx, SYS_statfs, SYS_fstatfs, SYS_faccessat, SYS_faccessat2,
    SYS_readlinkat, SYS_getdents64, SYS_getcwd, SYS_chdir, SYS_fchdir, SYS_mkdirat, SYS_unlinkat, SYS_renameat2, SYS_linkat, SYS_symlinkat, SYS_truncate, SYS_umask, SYS_flock,
#ifdef SYS_open
    SYS_open, SYS_stat, SYS_lstat, SYS_access, SYS_readlink, SYS_getdents, SYS_mkdir, SYS_rmdir, SYS_unlink,
    SYS_rename, SYS_link, SYS_symlink, SYS_dup2,
#endif
#ifdef SYS_renameat
    SYS_renameat,
#endif
    // Memory (bounded by the limits): malloc, thread stacks, the loader's mappings of libraries.
    SYS_brk, SYS_munmap, SYS_mremap, SYS_mprotect, SYS_madvise, SYS_msync,
    // Waiting: Dispatch's epoll loop with its eventfd and timerfd, poll, sleeps, pipes between its own threads.
    SYS_epoll_create1, SYS_epoll_ctl, SYS_epoll_pwait, SYS_ppoll, SYS_pselect6, SYS_eventfd2, SYS_timerfd_create,
    SYS_timerfd_settime, SYS_timerfd_gettime, SYS_pipe2, SYS_nanosleep, SYS_clock_nanosleep,
#ifdef SYS_epoll_pwait2
    SYS_epoll_pwait2,
#endif
#ifdef SYS_epoll_wait
    SYS_epoll_wait, SYS_epoll_create, SYS_poll, SYS_select, SYS_eventfd, SYS_pipe, SYS_pause, SYS_alarm,
#endif
    // Signals within the process (kill and tgkill are checked below): handlers, masks, the crash report's stack.
    SYS_rt_sigaction, SYS_rt_sigprocmask, SYS_rt_sigreturn, SYS_rt_sigsuspend, SYS_rt_sigtimedwait,
    SYS_rt_sigpending, SYS_sigaltstack, SYS_getitimer, SYS_setitimer, SYS_timer_create, SYS_timer_settime,
    SYS_timer_gettime, SYS_timer_getoverrun, SYS_timer_delete,
    // Sockets it already holds or opens as allowed (socket itself is checked below): the protocol and, with the
    // network capability, TCP/UDP. A socketpair reaches nobody.
    SYS_socketpair, SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg, SYS_sendmmsg, SYS_recvmmsg, SYS_shutdown,
    SYS_connect, SYS_bind, SYS_listen, SYS_accept4, SYS_getsockname, SYS_getpeername, SYS_getsockopt,
    SYS_setsockopt,
#ifdef SYS_accept
    SYS_accept,
#endif
    // Who and where it is: ProcessInfo, the Swift runtime's start, Foundation's host and memory figures.
    SYS_getpid, SYS_getppid, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid, SYS_getresuid, SYS_getresgid,
    SYS_getgroups, SYS_getpgid, SYS_getsid, SYS_uname, SYS_sysinfo, SYS_getrusage, SYS_times, SYS_getcpu,
    SYS_capget, SYS_getrandom, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday,
#ifdef SYS_getrlimit
    SYS_getrlimit,
#endif
#ifdef SYS_getpgrp
    SYS_getpgrp, SYS_time,
#endif
#ifdef SYS_arch_prctl
    // The thread pointer (glibc sets it at start; the runtime reads it).
    SYS_arch_prctl,
#endif
};

// -- Building the program ---------------------------------------------------------------------------------------

static void emit(struct sandbox_filter *filter, struct sock_filter instruction) {
    if (filter->length == SANDBOX_FILTER_CAPACITY) {
        filter->overflow = 1;
        return;
    }
    filter->code[filter->length++] = instruction;
}

static void statement(struct sandbox_filter *filter, uint16_t code, uint32_t value) {
    emit(filter, (struct sock_filter)BPF_STMT(code, value));
}

static void jump(struct sandbox_filter *filter, uint16_t code, uint32_t value, uint8_t if_true, uint8_t if_false) {
    emit(filter, (struct sock_filter)BPF_JUMP(code, value, if_true, if_false));
}

static void load_number(struct sandbox_filter *filter) {
    statement(filter, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
}

// The accumulator holds the call's number: when it is `number`, answer `action`.
static void answer(struct sandbox_filter *filter, long number, uint32_t action) {
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)number, 0, 1);
    statement(filter, BPF_RET | BPF_K, action);
}

// When the call is `number`: allow it if the low 32 bits of argument `index` (an int: a pid, a command, a request)
// are one of `values`, deny it (EPERM) if not. Any other call goes on with its number in the accumulator.
static void allow_when_argument_in(
    struct sandbox_filter *filter, long number, int index, const uint32_t *values, size_t count) {
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)number, 0, (uint8_t)(count + 3));
    statement(filter, BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(index));
    for (size_t value = 0; value < count; value++) {
        jump(filter, BPF_JMP | BPF_JEQ | BPF_K, values[value], (uint8_t)(count - value), 0);
    }
    statement(filter, BPF_RET | BPF_K, DENIED);
    statement(filter, BPF_RET | BPF_K, ALLOWED);
}

// -- The plain calls as a binary search ----------------------------------------------------------------------------

static int compare_numbers(const void *left, const void *right) {
    long a = *(const long *)left, b = *(const long *)right;
    return (a > b) - (a < b);
}

// The plain calls' numbers in `numbers`, sorted, each once; answers how many.
static size_t sorted_unique(long *numbers) {
    memcpy(numbers, plain_calls, sizeof plain_calls);
    qsort(numbers, COUNT(plain_calls), sizeof numbers[0], compare_numbers);
    size_t count = 0;
    for (size_t index = 0; index < COUNT(plain_calls); index++) {
        if (count == 0 || numbers[count - 1] != numbers[index]) numbers[count++] = numbers[index];
    }
    return count;
}

// An unconditional jump whose target is not known yet: its index, for `land`.
static size_t jump_later(struct sandbox_filter *filter) {
    size_t index = filter->length;
    statement(filter, BPF_JMP | BPF_JA, 0);
    return index;
}

// Points the jump at `index` to the next instruction to be emitted.
static void land(struct sandbox_filter *filter, size_t index) {
    if (index < filter->length) filter->code[index].k = (uint32_t)(filter->length - index - 1);
}

// With the number in the accumulator: allow it when it is one of `numbers` (sorted); otherwise jump on to where the
// jumps collected in `missed` will be landed. Halves the range until at most 4 numbers are left, compared in turn.
static void search(
    struct sandbox_filter *filter, const long *numbers, size_t count, size_t *missed, size_t *missed_count) {
    if (count <= 4) {
        // Each comparison jumps to the one allowing answer past the miss.
        for (size_t index = 0; index < count; index++) {
            jump(filter, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)numbers[index], (uint8_t)(count - index), 0);
        }
        missed[(*missed_count)++] = jump_later(filter);
        statement(filter, BPF_RET | BPF_K, ALLOWED);
        return;
    }
    size_t half = count / 2;
    // Below numbers[half]: the first half, right after the far jump; from it on: the second half.
    jump(filter, BPF_JMP | BPF_JGE | BPF_K, (uint32_t)numbers[half], 0, 1);
    size_t upper = jump_later(filter);
    search(filter, numbers, half, missed, missed_count);
    land(filter, upper);
    search(filter, numbers + half, count - half, missed, missed_count);
}

// -- The checked calls ------------------------------------------------------------------------------------------

// clone: threads only (CLONE_THREAD), never with a new namespace: no new process, no escape from this one's.
static void check_clone(struct sandbox_filter *filter) {
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 5);
    statement(filter, BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(0));
    jump(filter, BPF_JMP | BPF_JSET | BPF_K, 0x7E020000, 2, 0); // CLONE_NEW*
    jump(filter, BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
    statement(filter, BPF_RET | BPF_K, ALLOWED);
    statement(filter, BPF_RET | BPF_K, DENIED);
}

// prlimit64: limits may be read (glibc's getrlimit is prlimit64 with no new limit), never set — not raised back by a
// process that still could, not lowered for another process of the user (the host).
static void check_prlimit(struct sandbox_filter *filter) {
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, SYS_prlimit64, 0, 6);
    statement(filter, BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(2));
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 3);
    statement(filter, BPF_LD | BPF_W | BPF_ABS, ARGUMENT_HIGH(2));
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    statement(filter, BPF_RET | BPF_K, ALLOWED);
    statement(filter, BPF_RET | BPF_K, DENIED);
}

// mmap: no shared anonymous memory (MAP_SHARED or MAP_SHARED_VALIDATE with MAP_ANONYMOUS). RLIMIT_DATA counts only
// private writable mappings: shared anonymous pages would be memory past the budget (and a way to hand pages to
// another process). Private mappings and mappings of files are the limits' and Landlock's to judge.
static void check_mmap(struct sandbox_filter *filter) {
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 5);
    statement(filter, BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(3));
    statement(filter, BPF_ALU | BPF_AND | BPF_K, MAP_SHARED | MAP_ANONYMOUS);
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, MAP_SHARED | MAP_ANONYMOUS, 0, 1);
    statement(filter, BPF_RET | BPF_K, DENIED);
    statement(filter, BPF_RET | BPF_K, ALLOWED);
}

// setpriority: Dispatch gives each worker thread its QoS as a nice value of the calling thread (PRIO_PROCESS, 0);
// never another process's (renicing the host).
static void check_setpriority(struct sandbox_filter *filter) {
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, SYS_setpriority, 0, 6);
    statement(filter, BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(0));
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, PRIO_PROCESS, 0, 3);
    statement(filter, BPF_LD | BPF_W | BPF_ABS, ARGUMENT_LOW(1));
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);
    statement(filter, BPF_RET | BPF_K, ALLOWED);
    statement(filter, BPF_RET | BPF_K, DENIED);
}

// fcntl: descriptor flags, duplicates and record locks (SQLite's). Not F_SETOWN/F_SETSIG (signals to another
// process), F_NOTIFY (dnotify: watching folders, as inotify would), F_SETLEASE, F_ADD_SEALS, F_SETPIPE_SZ.
static const uint32_t fcntl_commands[] = {
    F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK,
    F_OFD_SETLK, F_OFD_SETLKW, F_GETPIPE_SZ,
};

// ioctl: is it a terminal (isatty), its size, bytes waiting to be read (Dispatch's read sources), blocking and
// close-on-exec. Not TIOCSTI (typing into the terminal of whoever holds it) or TIOCLINUX, nor any device's own.
static const uint32_t ioctl_requests[] = {TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX};

// prctl: a thread's name (Dispatch, Foundation's Thread), names of anonymous mappings (glibc's malloc), and reading
// its own state. Not PR_SET_DUMPABLE, PR_SET_PTRACER, PR_SET_SECCOMP, PR_SET_MM, PR_CAP_AMBIENT…
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
static const uint32_t prctl_options[] = {
    PR_SET_NAME, PR_GET_NAME, PR_SET_VMA, PR_GET_DUMPABLE, PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_CAPBSET_READ,
    PR_GET_TIMERSLACK,
};

// socket: network families only when granted, nothing else (unix: a connect to the user's D-Bus or ssh-agent
// socket is an escape, and the child already holds its socketpair to the host; netlink, packet…).
static const uint32_t network_families[] = {AF_INET, AF_INET6};

void sandbox_filter_build(struct sandbox_filter *filter, int allow_network) {
    uint32_t self = (uint32_t)getpid();
    // A call from another architecture's table (i386's int 0x80 on x86_64) would be read with the wrong numbers:
    // there is no safe errno for it, only the end of the process.
    statement(filter, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    jump(filter, BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0);
    statement(filter, BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    load_number(filter);
#if defined(__x86_64__)
    // x32 calls share x86_64's architecture value and carry bit 30 in their number: none of them is allowed.
    jump(filter, BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
    statement(filter, BPF_RET | BPF_K, DENY(ENOSYS));
#endif
    // The plain calls first, as a binary search: the kernel sees that their answer depends on the number alone
    // and caches it when the filter is installed (Linux 5.11 and later), so they never run this program again; the
    // search keeps that look (done for every number the kernel knows) and the other calls' way through it short.
    long numbers[COUNT(plain_calls)];
    size_t count = sorted_unique(numbers);
    size_t missed[COUNT(plain_calls)];
    size_t missed_count = 0;
    search(filter, numbers, count, missed, &missed_count);
    for (size_t index = 0; index < missed_count; index++) land(filter, missed[index]);
    // clone3 passes its flags in memory the filter cannot read: ENOSYS makes glibc fall back to clone for threads.
#ifdef SYS_clone3
    answer(filter, SYS_clone3, DENY(ENOSYS));
#endif
    // Each block below either answers or leaves the call's number in the accumulator.
    check_clone(filter);
    check_mmap(filter);
    check_setpriority(filter);
    check_prlimit(filter);
    allow_when_argument_in(filter, SYS_fcntl, 1, fcntl_commands, COUNT(fcntl_commands));
    allow_when_argument_in(filter, SYS_ioctl, 1, ioctl_requests, COUNT(ioctl_requests));
    allow_when_argument_in(filter, SYS_prctl, 0, prctl_options, COUNT(prctl_options));
    // Signals only to this process (its own threads): not to the host, its process group or anyone else.
    allow_when_argument_in(filter, SYS_kill, 0, &self, 1);
    allow_when_argument_in(filter, SYS_tgkill, 0, &self, 1);
    allow_when_argument_in(filter, SYS_rt_sigqueueinfo, 0, &self, 1);
    allow_when_argument_in(filter, SYS_rt_tgsigqueueinfo, 0, &self, 1);
    if (allow_network) {
        allow_when_argument_in(filter, SYS_socket, 0, network_families, COUNT(network_families));
    }
    jump(filter, BPF_JMP | BPF_JGE | BPF_K, FIRST_UNKNOWN_CALL, 0, 1);
    statement(filter, BPF_RET | BPF_K, UNKNOWN);
    statement(filter, BPF_RET | BPF_K, DENIED);
}
