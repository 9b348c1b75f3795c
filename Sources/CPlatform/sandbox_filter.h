// The seccomp-bpf program of the sandbox (sandbox_filter.c): an allow list of the system calls a feature's child
// needs, with argument checks; everything else fails. Private to CPlatform: sandbox.c installs it.
#ifndef MICROAPP_SANDBOX_FILTER_H
#define MICROAPP_SANDBOX_FILTER_H

#include <linux/filter.h>
#include <stdint.h>

/// Room for the program: the allow list and its argument checks take about 400 instructions (BPF allows 4096).
#define SANDBOX_FILTER_CAPACITY 1024

/// A seccomp program being built. `overflow` is set when it did not fit (nothing is installed then).
struct sandbox_filter {
    struct sock_filter code[SANDBOX_FILTER_CAPACITY];
    unsigned short length;
    int overflow;
};

/// The architecture the program is built for (an AUDIT_ARCH_* value), or 0 when this build has no program.
uint32_t sandbox_filter_architecture(void);

/// Builds the program for the calling process (signals are allowed to its own pid only): sockets of the network
/// families only when `allow_network`.
void sandbox_filter_build(struct sandbox_filter *filter, int allow_network);

#endif
