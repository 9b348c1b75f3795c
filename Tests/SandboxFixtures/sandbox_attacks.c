// A hostile program for the sandbox tests: applies the sandbox described by its options (the same C code the host
// uses, compiled in), then makes each attempt named after `--` and prints one line per attempt: `<attempt> ok` or
// `<attempt> <ERRNO NAME>`. Attempts are harmless when they succeed (signal 0, PTRACE_TRACEME, reads), but for the
// metadata ones (chmod… setxattr), which the tests aim at files they planted.
//   sandbox-attacks [--read PATH]... [--write PATH]... [--network] [--memory BYTES] [--no-sandbox] -- ATTEMPT...
// Attempts: read:PATH write:PATH tcp:PORT unix:PATH socketpair fork exec:PATH ptrace vm-read kill-parent
// kill-self kill-group raise-limit tiocsti i386 alloc:BYTES thread clone3 io_uring uretprobe unshare
// chmod:PATH fchmodat:PATH fchmod:PATH chown:PATH utimensat:PATH setxattr:PATH removexattr:PATH getxattr:PATH
// shmget semget msgget mqueue inotify:PATH fanotify dnotify:PATH setown memfd:BYTES shared-anon:BYTES personality
// Metadata attempts ask for the harmful change itself (a setuid bit, an old mtime); IPC objects that do get made
// are removed at once, so a run leaves nothing behind.
#define _GNU_SOURCE
#include "sandbox.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mqueue.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void result(const char *attempt, int outcome) {
    if (outcome == 0) {
        printf("%s ok\n", attempt);
    } else {
        const char *name = strerrorname_np(outcome);
        printf("%s %s\n", attempt, name ? name : "unknown");
    }
    fflush(stdout);
}

static int error_of(long value) { return value < 0 ? errno : 0; }

static int attempt_read(const char *path) {
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return errno;
    char byte;
    int outcome = read(descriptor, &byte, 1) < 0 ? errno : 0;
    close(descriptor);
    return outcome;
}

static int attempt_write(const char *path) {
    int descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (descriptor < 0) return errno;
    int outcome = write(descriptor, "x", 1) == 1 ? 0 : errno;
    close(descriptor);
    return outcome;
}

static int attempt_tcp(int port) {
    int descriptor = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (descriptor < 0) return errno;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int outcome = connect(descriptor, (struct sockaddr *)&address, sizeof address) == 0 ? 0 : errno;
    close(descriptor);
    return outcome;
}

static int attempt_unix(const char *path) {
    int descriptor = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (descriptor < 0) return errno;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    int outcome = connect(descriptor, (struct sockaddr *)&address, sizeof address) == 0 ? 0 : errno;
    close(descriptor);
    return outcome;
}

static int attempt_fork(void) {
    pid_t child = fork();
    if (child < 0) return errno;
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);
    return 0;
}

static int attempt_exec(const char *path) {
    // vfork is denied too, so exec in this process: on success /bin/true ends it, and the line never comes.
    char *const arguments[] = {(char *)path, NULL};
    execv(path, arguments);
    return errno;
}

static void *thread_body(void *argument) { return argument; }

static int attempt_thread(void) {
    pthread_t thread;
    int outcome = pthread_create(&thread, NULL, thread_body, NULL);
    if (outcome != 0) return outcome;
    return pthread_join(thread, NULL);
}

static int attempt_alloc(size_t bytes) {
    char *memory = malloc(bytes);
    if (memory == NULL) return ENOMEM;
    memset(memory, 1, bytes);
    free(memory);
    return 0;
}

static int attempt_vm_read(void) {
    char buffer[8];
    struct iovec local = {buffer, sizeof buffer}, remote = {(void *)&attempt_vm_read, sizeof buffer};
    return error_of(process_vm_readv(getppid(), &local, 1, &remote, 1, 0));
}

// x86_64 only: a call through i386's table (int 0x80; getpid is 20 there), which a filter reading x86_64 numbers
// would misjudge.
static int attempt_i386(void) {
#if defined(__x86_64__)
    long result = 20;
    __asm__ volatile("int $0x80" : "+a"(result) : : "memory");
    return result < 0 ? (int)-result : 0;
#else
    return ENOTSUP;
#endif
}

// `bytes` of memory the data limit does not count, touched page by page: a shared anonymous mapping, or a memfd.
static int attempt_shared_memory(size_t bytes, int memfd) {
    int descriptor = -1;
    if (memfd) {
        descriptor = memfd_create("sandbox-attack", MFD_CLOEXEC);
        if (descriptor < 0) return errno;
        if (ftruncate(descriptor, (off_t)bytes) != 0) {
            int saved = errno;
            close(descriptor);
            return saved;
        }
    }
    int flags = memfd ? MAP_SHARED : MAP_SHARED | MAP_ANONYMOUS;
    char *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, descriptor, 0);
    int outcome = memory == MAP_FAILED ? errno : 0;
    if (memory != MAP_FAILED) {
        memset(memory, 1, bytes);
        munmap(memory, bytes);
    }
    if (descriptor >= 0) close(descriptor);
    return outcome;
}

static int attempt_ipc(const char *name) {
    if (strcmp(name, "shmget") == 0) {
        int segment = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
        if (segment < 0) return errno;
        shmctl(segment, IPC_RMID, NULL);
    } else if (strcmp(name, "semget") == 0) {
        int set = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
        if (set < 0) return errno;
        semctl(set, 0, IPC_RMID);
    } else if (strcmp(name, "msgget") == 0) {
        int queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
        if (queue < 0) return errno;
        msgctl(queue, IPC_RMID, NULL);
    } else {
        char queue_name[64];
        snprintf(queue_name, sizeof queue_name, "/microapp-sandbox-attack-%d", (int)getpid());
        mqd_t queue = mq_open(queue_name, O_CREAT | O_RDWR | O_CLOEXEC, 0600, NULL);
        if (queue == (mqd_t)-1) return errno;
        mq_close(queue);
        mq_unlink(queue_name);
    }
    return 0;
}

static int attempt_metadata(const char *name, const char *path) {
    if (strncmp(name, "chmod:", 6) == 0) return error_of(chmod(path, 04777));
    if (strncmp(name, "fchmodat:", 9) == 0) return error_of(fchmodat(AT_FDCWD, path, 04777, 0));
    if (strncmp(name, "chown:", 6) == 0) return error_of(chown(path, getuid(), getgid()));
    if (strncmp(name, "utimensat:", 10) == 0) {
        struct timespec times[2] = {{.tv_sec = 1}, {.tv_sec = 1}};
        return error_of(utimensat(AT_FDCWD, path, times, 0));
    }
    if (strncmp(name, "setxattr:", 9) == 0) return error_of(setxattr(path, "user.microapp", "x", 1, 0));
    if (strncmp(name, "removexattr:", 12) == 0) return error_of(removexattr(path, "user.microapp"));
    if (strncmp(name, "getxattr:", 9) == 0) {
        char value[8];
        return error_of(getxattr(path, "user.microapp", value, sizeof value));
    }
    if (strncmp(name, "fchmod:", 7) == 0) {
        // Through a descriptor opened only to read: the owner may change the mode of any file it can open.
        int descriptor = open(path, O_RDONLY | O_CLOEXEC);
        if (descriptor < 0) return errno;
        int outcome = error_of(fchmod(descriptor, 04777));
        close(descriptor);
        return outcome;
    }
    if (strncmp(name, "inotify:", 8) == 0) {
        int descriptor = inotify_init1(IN_CLOEXEC);
        if (descriptor < 0) return errno;
        int outcome = error_of(inotify_add_watch(descriptor, path, IN_ALL_EVENTS));
        close(descriptor);
        return outcome;
    }
    if (strncmp(name, "dnotify:", 8) == 0) {
        int descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (descriptor < 0) return errno;
        int outcome = error_of(fcntl(descriptor, F_NOTIFY, DN_CREATE | DN_MULTISHOT));
        close(descriptor);
        return outcome;
    }
    return EINVAL;
}

static int attempt(const char *name) {
    const char *colon = strchr(name, ':');
    static const char *const metadata[] = {"chmod:", "fchmodat:", "fchmod:", "chown:", "utimensat:", "setxattr:",
                                           "removexattr:", "getxattr:", "inotify:", "dnotify:"};
    for (size_t index = 0; colon != NULL && index < sizeof metadata / sizeof metadata[0]; index++) {
        if (strncmp(name, metadata[index], strlen(metadata[index])) == 0) return attempt_metadata(name, colon + 1);
    }
    if (strcmp(name, "shmget") == 0 || strcmp(name, "semget") == 0 || strcmp(name, "msgget") == 0 ||
        strcmp(name, "mqueue") == 0) {
        return attempt_ipc(name);
    }
    if (strncmp(name, "memfd:", 6) == 0) return attempt_shared_memory((size_t)strtoull(name + 6, NULL, 10), 1);
    if (strncmp(name, "shared-anon:", 12) == 0) {
        return attempt_shared_memory((size_t)strtoull(name + 12, NULL, 10), 0);
    }
    if (strcmp(name, "fanotify") == 0) return error_of(syscall(SYS_fanotify_init, 0, O_RDONLY));
    if (strcmp(name, "setown") == 0) {
        // SIGIO for this socketpair's events would go to the parent.
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return errno;
        int outcome = error_of(fcntl(pair[0], F_SETOWN, getppid()));
        close(pair[0]);
        close(pair[1]);
        return outcome;
    }
    // A call nobody needs, harmless here (it only asks): off the list, it fails like any other.
    if (strcmp(name, "personality") == 0) return error_of(personality(0xffffffff));
    if (strncmp(name, "read:", 5) == 0) return attempt_read(name + 5);
    if (strncmp(name, "write:", 6) == 0) return attempt_write(name + 6);
    if (strncmp(name, "tcp:", 4) == 0) return attempt_tcp(atoi(name + 4));
    if (strncmp(name, "unix:", 5) == 0) return attempt_unix(name + 5);
    if (strncmp(name, "exec:", 5) == 0) return attempt_exec(name + 5);
    if (strncmp(name, "alloc:", 6) == 0) return attempt_alloc((size_t)strtoull(name + 6, NULL, 10));
    if (strcmp(name, "socketpair") == 0) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return errno;
        close(pair[0]);
        close(pair[1]);
        return 0;
    }
    if (strcmp(name, "fork") == 0) return attempt_fork();
    if (strcmp(name, "ptrace") == 0) return error_of(ptrace(PTRACE_TRACEME, 0, NULL, NULL));
    if (strcmp(name, "vm-read") == 0) return attempt_vm_read();
    if (strcmp(name, "kill-parent") == 0) return error_of(kill(getppid(), 0));
    if (strcmp(name, "kill-group") == 0) return error_of(kill(0, 0));
    if (strcmp(name, "kill-self") == 0) return error_of(kill(getpid(), 0));
    if (strcmp(name, "thread") == 0) return attempt_thread();
    if (strcmp(name, "clone3") == 0) return error_of(syscall(SYS_clone3, NULL, 0));
    if (strcmp(name, "io_uring") == 0) return error_of(syscall(SYS_io_uring_setup, 1, NULL));
    // uretprobe (335 on x86_64): outside any seccomp filter since Linux 6.13; the kernel kills a caller that is not
    // its trampoline with SIGILL (docs/sandbox.md). An older kernel has no such call, and the filter answers EPERM.
    if (strcmp(name, "uretprobe") == 0) return error_of(syscall(335));
    if (strcmp(name, "i386") == 0) return attempt_i386();
    if (strcmp(name, "tiocsti") == 0) return error_of(ioctl(0, TIOCSTI, "x"));
    if (strcmp(name, "raise-limit") == 0) {
        struct rlimit limit;
        if (getrlimit(RLIMIT_DATA, &limit) != 0) return errno;
        limit.rlim_cur = limit.rlim_max;
        return error_of(setrlimit(RLIMIT_DATA, &limit));
    }
    if (strcmp(name, "unshare") == 0) return error_of(unshare(CLONE_NEWUSER));
    return EINVAL;
}

int main(int count, char **arguments) {
    // Room for every file a test runner has mapped: late in a full run it has loaded many fixtures, each a read path
    // (with 64, the 65th --read was taken for an unknown option and the attacks never ran).
    enum { read_capacity = 4096, write_capacity = 16 };
    static const char *reads[read_capacity], *writes[write_capacity];
    struct microapp_sandbox_policy policy = {.read_paths = reads, .write_paths = writes, .cpu_seconds = 60};
    int sandbox = 1, index = 1;
    for (; index < count && strcmp(arguments[index], "--") != 0; index++) {
        if (strcmp(arguments[index], "--read") == 0 && index + 1 < count && policy.read_count < read_capacity) {
            reads[policy.read_count++] = arguments[++index];
        } else if (strcmp(arguments[index], "--write") == 0 && index + 1 < count && policy.write_count < write_capacity) {
            writes[policy.write_count++] = arguments[++index];
        } else if (strcmp(arguments[index], "--memory") == 0 && index + 1 < count) {
            policy.memory_limit = strtoull(arguments[++index], NULL, 10);
        } else if (strcmp(arguments[index], "--network") == 0) {
            policy.allow_network = 1;
        } else if (strcmp(arguments[index], "--no-sandbox") == 0) {
            sandbox = 0;
        } else {
            fprintf(stderr, "unknown option, or too many paths: %s\n", arguments[index]);
            return 64;
        }
    }
    if (sandbox) {
        struct microapp_sandbox_report report;
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        int applied = microapp_sandbox_apply(&policy, &report);
        clock_gettime(CLOCK_MONOTONIC, &end);
        if (applied != 0) {
            printf("sandbox failed step %d %s %s\n", report.step, strerrorname_np(report.error_number),
                   report.path ? report.path : "");
            return 1;
        }
        long micros = (end.tv_sec - start.tv_sec) * 1000000L + (end.tv_nsec - start.tv_nsec) / 1000;
        printf("sandbox applied %u landlock %d in %ld us\n", report.applied, report.landlock_abi, micros);
    }
    for (index++; index < count; index++) result(arguments[index], attempt(arguments[index]));
    return 0;
}
