// A forked child's thread ids: see fd_passing.h (microapp_fork).
//
// Swift's locks on Linux (the runtime's `ulock` behind swift_once and its metadata caches, and Synchronization's
// `Mutex`) are priority-inheritance futexes whose word holds the owner's thread id, which each thread caches in a
// thread-local variable on first use (the runtime's ulock_get_tid, the shims' _swift_stdlib_gettid, one copy per
// object that inlines it). fork() copies that cache: the child's one thread keeps its parent's id. When it then holds
// such a lock while another thread of the child waits for it, the kernel sees an owner that is not in the child
// (FUTEX_LOCK_PI fails, FUTEX_UNLOCK_PI says "not the owner"), and both threads loop in the lock's retry forever (a
// runtime lock) or trap (a Mutex). That was the isolated start that waited out its 10 s: a feature's child forked
// from the zygote, its two threads spinning in swift_once. So the child forgets the cached ids, and each thread
// looks its own up again.
//
// The caches are found by their value: before the fork, the forking thread's blocks of thread-local storage hold its
// id wherever it was cached (a symbol table would name them too, but reading the loaded objects' tables costs
// milliseconds on every supervised start). The C library's and the dynamic loader's own blocks are left alone: fork
// keeps what they cache right.
#define _GNU_SOURCE
#include "CPlatform.h"

#include <link.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { max_cached_ids = 256 };

struct cached_ids {
    int thread;
    int count;
    int *slots[max_cached_ids];
};

static int is_system_object(const char *name) {
    return strstr(name, "/libc.so") != NULL || strstr(name, "/ld-linux") != NULL;
}

/// Whether `slots[index]`, which holds the thread id, is the upper half of a pointer rather than an id of its own. Ids
/// run below pid_max (32768 here), and so do the upper halves of user-space pointers (0x55xx for the heap of a
/// position-independent program, 0x7fxx for libraries, mappings and stacks): a thread whose id equals one would have
/// had the upper half of the pointers the thread-locals hold (the current task, the executor it runs on) cleared in the
/// child. A cached id sits beside nothing or beside another copy of the id (the shims' caches are packed four bytes
/// apart), so an upper half whose lower half is neither 0 nor the id is a pointer's, and is left as it is.
static int is_pointer_half(const int *slots, size_t index, int thread) {
    if (index == 0 || (uintptr_t)&slots[index] % 8 != 4) return 0;
    int lower = slots[index - 1];
    return lower != 0 && lower != thread;
}

/// Records the slots of one loaded object's block (this thread's) that hold this thread's id.
static int record_object(struct dl_phdr_info *info, size_t size, void *data) {
    struct cached_ids *found = data;
    if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(info->dlpi_tls_data)) return 1;
    if (info->dlpi_tls_data == NULL || is_system_object(info->dlpi_name)) return 0;
    size_t length = 0;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        if (info->dlpi_phdr[index].p_type == PT_TLS) length = info->dlpi_phdr[index].p_memsz;
    }
    int *slots = info->dlpi_tls_data;
    for (size_t index = 0; index < length / sizeof(int) && found->count < max_cached_ids; index++) {
        if (slots[index] != found->thread || is_pointer_half(slots, index, found->thread)) continue;
        found->slots[found->count++] = &slots[index];
    }
    return 0;
}

static void forget(const struct cached_ids *found) {
    for (int index = 0; index < found->count; index++) *found->slots[index] = 0;
}

/// What the last `forgetting` found: the same addresses hold the same caches in every process forked from it since.
static struct cached_ids last_found;

/// Runs `make` (a fork, or a clone into namespaces) with the forking thread's cached ids forgotten on both sides.
static pid_t forgetting(pid_t (*make)(unsigned long), unsigned long flags) {
    struct cached_ids found = {.thread = (int)syscall(SYS_gettid), .count = 0};
    dl_iterate_phdr(record_object, &found);
    // Forgotten before the fork as well: the fork's own handlers run in the child before fork returns, and Dispatch's
    // binds the main queue to the id its cache gives (it would be the parent's). This thread looks its id up again
    // when it next needs it, and finds the same one.
    forget(&found);
    pid_t pid = make(flags);
    // The same addresses in the child: its one thread's blocks are copies of the forking thread's. What the parent's
    // fork handlers cached again before the copy is forgotten once more.
    if (pid == 0) forget(&found);
    last_found = found;
    return pid;
}

static pid_t plain_fork(unsigned long flags) {
    (void)flags;
    return fork();
}

static pid_t raw_clone(unsigned long flags) { return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0); }

pid_t microapp_fork(void) { return forgetting(plain_fork, 0); }

pid_t microapp_clone_forgetting(unsigned long flags) { return forgetting(raw_clone, flags); }

pid_t microapp_fork_again(void) {
    // Not looked up by value here: in a new PID namespace this thread's id is small (1), and so are many other
    // thread-local values a search by value would wipe.
    forget(&last_found);
    pid_t pid = fork();
    if (pid == 0) forget(&last_found);
    return pid;
}
