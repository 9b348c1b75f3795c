// The sandbox an isolated feature's child process applies to itself before it loads the plugin library: no new
// privileges, Landlock (files, TCP, signals, abstract sockets), seccomp-bpf (an allow list of the system calls the
// runtime and the feature protocol need, with argument checks; network sockets only when granted) and resource
// limits. docs/sandbox.md lists the calls and what the sandbox does not cover.
// Linux only; raw system calls, no libraries. Everything here is one-way: nothing undoes a sandbox once applied.
#ifndef MICROAPP_SANDBOX_H
#define MICROAPP_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/// What a sandboxed process may do. The caller owns every pointer; `microapp_sandbox_apply` only reads them.
struct microapp_sandbox_policy {
    /// Paths the process may read (and map as code) beneath: folders whole, files alone. Each must exist.
    const char *const *read_paths;
    /// How many `read_paths` there are.
    size_t read_count;
    /// Paths the process may read, write, create in, rename in and remove from: its scratch folder. Each must exist.
    const char *const *write_paths;
    /// How many `write_paths` there are.
    size_t write_count;
    /// Nonzero: TCP/UDP sockets (AF_INET, AF_INET6) are allowed. Zero: `socket` fails with EPERM for every family
    /// and, with Landlock ABI 4 or later, TCP bind and connect are denied as well.
    int allow_network;
    /// Nonzero: a mechanism this kernel lacks (Landlock, seccomp) is skipped and left out of `applied`; zero: its
    /// absence is an error. Limits and no-new-privileges are always applied.
    int best_effort;
    /// RLIMIT_DATA in bytes (private writable memory: heap, anonymous mappings, thread stacks); 0 leaves it.
    uint64_t memory_limit;
    /// RLIMIT_AS in bytes (all mappings, also shared ones the data limit does not count); 0 leaves it.
    uint64_t address_space_limit;
    /// RLIMIT_CPU in seconds of CPU time (SIGXCPU, then SIGKILL a second later); 0 leaves it.
    uint64_t cpu_seconds;
    /// RLIMIT_FSIZE in bytes (SIGXFSZ is ignored, so a write past it fails with EFBIG); 0 leaves it.
    uint64_t file_size_limit;
    /// RLIMIT_NOFILE (open descriptors); 0 leaves it.
    uint64_t open_files_limit;
};

/// The step of `microapp_sandbox_apply` that failed.
enum microapp_sandbox_step {
    MICROAPP_SANDBOX_STEP_NONE = 0,
    /// The process has more than one thread: Landlock would restrict only the calling one.
    MICROAPP_SANDBOX_STEP_THREADS = 1,
    /// setrlimit (or ignoring SIGXFSZ).
    MICROAPP_SANDBOX_STEP_LIMITS = 2,
    /// prctl(PR_SET_NO_NEW_PRIVS).
    MICROAPP_SANDBOX_STEP_NO_NEW_PRIVS = 3,
    /// landlock_create_ruleset (also: Landlock missing or disabled, when not best effort).
    MICROAPP_SANDBOX_STEP_LANDLOCK_RULESET = 4,
    /// Opening a path or landlock_add_rule for it: `path` names it.
    MICROAPP_SANDBOX_STEP_LANDLOCK_RULE = 5,
    /// landlock_restrict_self.
    MICROAPP_SANDBOX_STEP_LANDLOCK_RESTRICT = 6,
    /// seccomp(SECCOMP_SET_MODE_FILTER) (also: seccomp missing, when not best effort).
    MICROAPP_SANDBOX_STEP_SECCOMP = 7,
    /// capset(2) emptying every capability set.
    MICROAPP_SANDBOX_STEP_CAPABILITIES = 8,
};

/// Mechanisms, as bits of `microapp_sandbox_report.applied`.
enum microapp_sandbox_mechanism {
    MICROAPP_SANDBOX_LIMITS = 1 << 0,
    MICROAPP_SANDBOX_NO_NEW_PRIVS = 1 << 1,
    MICROAPP_SANDBOX_LANDLOCK = 1 << 2,
    MICROAPP_SANDBOX_SECCOMP = 1 << 3,
    MICROAPP_SANDBOX_CAPABILITIES = 1 << 4,
};

/// What `microapp_sandbox_apply` did, or where it stopped. Filled by the call; the caller owns it.
struct microapp_sandbox_report {
    /// The failed step (`microapp_sandbox_step`), or NONE on success.
    int step;
    /// The error number of the failed step, or 0.
    int error_number;
    /// For the rule step, the path that failed (a pointer into the policy); otherwise NULL.
    const char *path;
    /// The mechanisms in force (`microapp_sandbox_mechanism` bits), also those applied before a failure.
    unsigned applied;
    /// The Landlock ABI version used, or 0 when Landlock was not applied.
    int landlock_abi;
};

/// What this kernel offers. Filled by `microapp_sandbox_support`; the caller owns it.
struct microapp_sandbox_support {
    /// The highest Landlock ABI the kernel supports, or 0 when it has none or it is disabled.
    int landlock_abi;
    /// Why Landlock is missing: ENOSYS (not built in), EOPNOTSUPP (disabled at boot), or 0 when present.
    int landlock_error;
    /// 1 when seccomp filters with an errno action are available.
    int seccomp;
    /// 1 when PR_SET_NO_NEW_PRIVS is available.
    int no_new_privs;
    /// The architecture the seccomp filter is built for (an AUDIT_ARCH_* value), or 0 when this build has none:
    /// then seccomp cannot be applied.
    uint32_t seccomp_architecture;
};

/// Asks the kernel which mechanisms it has; changes nothing. Any thread, any time; returns 0.
int microapp_sandbox_support(struct microapp_sandbox_support *support);

/// Applies `policy` to the calling process for good, in this order: resource limits, no new privileges, no
/// capabilities (a process of root keeps none), Landlock, seccomp. Call it while the process has one thread (before any Dispatch work) and before any untrusted code is
/// mapped. Returns 0, or -1 with `report` naming the step, its error number and, for a rule, the path. On failure
/// the process may be partly sandboxed (`report->applied`): end it rather than go on.
int microapp_sandbox_apply(const struct microapp_sandbox_policy *policy, struct microapp_sandbox_report *report);

#endif
