#include "CPlatform.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

int microapp_end_with_parent(pid_t expected_parent, int signal_number) {
    if (prctl(PR_SET_PDEATHSIG, (unsigned long)signal_number, 0UL, 0UL, 0UL) != 0) return -1;
    // The parent may have ended between our start and the prctl: then we were already reparented and the kernel
    // will never send the signal, so look once more.
    return getppid() == expected_parent ? 0 : 1;
}
