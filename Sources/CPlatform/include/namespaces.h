// An isolated feature's child in namespaces of its own, as bubblewrap's --unshare-pid does: a user namespace that maps
// its user and group to themselves, a mount namespace, and a PID namespace with /proc mounted afresh for it, so /proc
// lists the child's own processes only (no other process's command line, environment or maps). Linux only; raw
// system calls. See namespaces.c for the processes a child is made of and docs/sandbox.md.
#ifndef MICROAPP_NAMESPACES_H
#define MICROAPP_NAMESPACES_H

#include <sys/types.h>

/// The step of entering the namespaces that failed.
enum microapp_namespace_step {
    MICROAPP_NAMESPACE_STEP_NONE = 0,
    /// The process has more than one thread: only a single-threaded process may fork and go on.
    MICROAPP_NAMESPACE_STEP_THREADS = 1,
    /// clone(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS): the kernel refuses unprivileged user namespaces, or limits.
    MICROAPP_NAMESPACE_STEP_CLONE = 2,
    /// Writing /proc/self/uid_map, setgroups or gid_map.
    MICROAPP_NAMESPACE_STEP_ID_MAP = 3,
    /// Making every mount private to the new mount namespace.
    MICROAPP_NAMESPACE_STEP_PRIVATE_MOUNTS = 4,
    /// Mounting a new proc on /proc (refused where /proc is partly covered, as in some containers).
    MICROAPP_NAMESPACE_STEP_PROC = 5,
    /// Forking the feature's process inside the namespace.
    MICROAPP_NAMESPACE_STEP_FORK = 6,
};

/// Where entering the namespaces stopped: the step (`microapp_namespace_step`) and its error number. The caller owns it.
struct microapp_namespace_report {
    int step;
    int error_number;
};

/// Moves the calling process's work into new namespaces. Call it while the process has one thread, before any
/// untrusted code is mapped and before its sandbox (seccomp forbids what this needs).
///
/// On success it returns 0 in a new process, PID 2 of a new PID namespace whose /proc is its own (its parent, PID 1,
/// only reaps and reports); the caller's own process never returns: it stays outside, waits, and ends as that new
/// process ended (its exit code, or its signal), so whoever started it sees the feature's end as before. Returns -1
/// with `report` naming the step and its error number when the namespaces could not be made: nothing changed, the
/// caller goes on where it was.
int microapp_namespaces_enter(struct microapp_namespace_report *report);

/// In the single-threaded template isolated children are forked from: clones a child (B) straight into new namespaces,
/// where it is PID 1, sets them up as `microapp_namespaces_enter` does and forks the feature's process (C, PID 2).
/// Returns B's pid in the caller, 0 in C (which forgot its cached thread ids, and goes on as the forked child), or -1
/// with `report` naming the step when the clone failed (nothing was made). B keeps `streams` (the child's socket,
/// output and error, at the numbers given) and `status` (the pipe the host reads the child's wait status from) open
/// and closes everything else; once C ended, B writes C's wait status on `status` (4 bytes) and exits 0. A B that
/// could not set the namespaces up says why on `streams[2]` and exits 1 without forking.
pid_t microapp_namespaces_fork(const int streams[3], int status, struct microapp_namespace_report *report);

/// 1 in the feature's process `microapp_namespaces_fork` made (it is in its namespaces already), else 0.
int microapp_namespaces_entered(void);

/// Whether this kernel lets this process make those namespaces and mount /proc in them: a child tries (raw system
/// calls only, so a multi-threaded caller may ask) and ends. Returns 0, or -1 with `report` naming the step.
int microapp_namespaces_probe(struct microapp_namespace_report *report);

/// A clone(2) with `flags` (and SIGCHLD) that forks like `microapp_fork`: the child's thread forgets the cached ids.
pid_t microapp_clone_forgetting(unsigned long flags);

/// fork(2) in a process made by `microapp_clone_forgetting` (that has run no Swift since): the child forgets the
/// caches that clone's caller found, at the same addresses.
pid_t microapp_fork_again(void);

#endif
