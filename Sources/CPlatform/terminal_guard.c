#include "CPlatform.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

// Everything a handler touches is plain static C storage filled in before the handlers are installed: a signal
// handler may run in the middle of malloc or while the Swift runtime holds a lock, so it must not allocate, take
// a lock, or touch Swift values (arrays, globals with lazy initialisers, exclusivity checks). `armed` is the one
// value that changes while handlers may run: an atomic exchange makes "restore once" hold even when a signal
// arrives during a restore already under way.

enum { guarded_count = 4, bytes_capacity = 64 };
static const int guarded_signals[guarded_count] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction previous_actions[guarded_count];
static volatile sig_atomic_t installed = 0;

static char restore_bytes[bytes_capacity];
static size_t restore_count = 0;
static struct termios restore_settings;
static int has_settings = 0;
static volatile sig_atomic_t armed = 0;

void microapp_terminal_guard_prepare(const char *bytes, size_t count, const struct termios *settings) {
    restore_count = count < bytes_capacity ? count : bytes_capacity;
    memcpy(restore_bytes, bytes, restore_count);
    has_settings = settings != NULL;
    if (settings != NULL) restore_settings = *settings;
    __atomic_store_n(&armed, 1, __ATOMIC_SEQ_CST);
}

void microapp_terminal_restore(void) {
    if (__atomic_exchange_n(&armed, 0, __ATOMIC_SEQ_CST) == 0) return;
    int saved_errno = errno;
    size_t written = 0;
    while (written < restore_count) {
        ssize_t result = write(STDOUT_FILENO, restore_bytes + written, restore_count - written);
        if (result < 0 && errno == EINTR) continue;
        if (result <= 0) break;
        written += (size_t)result;
    }
    if (has_settings) (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &restore_settings);
    errno = saved_errno;
}

static void restore_and_reraise(int signal_number) {
    microapp_terminal_restore();
    for (int index = 0; index < guarded_count; index++) {
        if (guarded_signals[index] == signal_number) {
            (void)sigaction(signal_number, &previous_actions[index], NULL);
            (void)raise(signal_number);
            return;
        }
    }
}

int microapp_terminal_guard_install(void) {
    if (installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = restore_and_reraise;
    sigemptyset(&action.sa_mask);
    for (int index = 0; index < guarded_count; index++) {
        if (sigaction(guarded_signals[index], &action, &previous_actions[index]) != 0) {
            int saved_errno = errno;
            for (int undo = 0; undo < index; undo++) (void)sigaction(guarded_signals[undo], &previous_actions[undo], NULL);
            errno = saved_errno;
            return -1;
        }
    }
    installed = 1;
    return 0;
}

void microapp_terminal_guard_remove(void) {
    if (!installed) return;
    for (int index = 0; index < guarded_count; index++) (void)sigaction(guarded_signals[index], &previous_actions[index], NULL);
    installed = 0;
}

size_t microapp_terminal_guard_pending(char *buffer, size_t capacity) {
    if (!__atomic_load_n(&armed, __ATOMIC_SEQ_CST)) return 0;
    size_t count = restore_count < capacity ? restore_count : capacity;
    memcpy(buffer, restore_bytes, count);
    return count;
}
