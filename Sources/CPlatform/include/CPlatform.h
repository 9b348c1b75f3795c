// The few system calls the host needs that Swift cannot make safely: variadic ones (prctl, syscall) and the body of
// signal handlers, which may call only async-signal-safe functions (no allocation, no locks, no Swift runtime).
#ifndef MICROAPP_CPLATFORM_H
#define MICROAPP_CPLATFORM_H

#include <spawn.h>
#include <stddef.h>
#include <sys/types.h>
#include <termios.h>

#include "early_supervisor.h"
#include "early_zygote.h"
#include "fd_passing.h"
#include "library_on_demand.h"
#include "namespaces.h"
#include "sandbox.h"
#include "stdio_buffering.h"

/// Asks the kernel to send `signal_number` to this process when its parent ends (prctl PR_SET_PDEATHSIG), then
/// checks once that the parent is still `expected_parent`, closing the race where it ended before the request.
/// Returns 0 when armed, 1 when the parent has already gone, -1 with errno set when prctl failed.
/// The signal follows the parent *thread* that started this process: start children from a thread that lives as
/// long as the parent (the main thread). Any thread may call this; it keeps no memory.
int microapp_end_with_parent(pid_t expected_parent, int signal_number);

/// Unblocks SIGTERM and SIGHUP and makes them, sent to this process, go on to its current child (`microapp_forward_termination_to`)
/// instead of ending this process, and records the last one received: a parent that must clean up after its child
/// ends (a supervisor) waits for it as usual and then asks `microapp_forward_termination_received`. Returns 0, or -1
/// with errno set when sigaction failed.
int microapp_forward_termination_install(void);

/// Sets the child the next SIGTERM or SIGHUP goes to (0: none); one received before is passed on at once.
void microapp_forward_termination_to(pid_t child);

/// Makes `signal_number` (SIGUSR1: check for updates), sent to this process, go on to the child set with
/// `microapp_forward_termination_to` without ending this process or counting as a termination. Returns 0, or -1 with
/// errno set. Call once, from the main thread, before starting children.
int microapp_forward_signal_install(int signal_number);

/// Makes `signal_number` (SIGUSR1: check for updates), sent to this process, write one byte to a pipe instead of
/// ending it, and returns the pipe's reading end (blocking, close-on-exec), or -1 with errno set. The handler only
/// writes (async-signal-safe); whoever reads the pipe acts. Call once per process, from the main thread.
int microapp_signal_pipe_install(int signal_number);

/// The last SIGTERM or SIGHUP this process received since the install, or 0.
int microapp_forward_termination_received(void);

/// Copies what putting the terminal back takes, before any handler can need it: `count` bytes for stdout (at most
/// 64; longer is cut) and, when `settings` is not NULL, the terminal settings for stdin. The handler reads only
/// these copies. Call from one thread while no terminal guard is installed; the caller keeps its memory.
void microapp_terminal_guard_prepare(const char *bytes, size_t count, const struct termios *settings);

/// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that put the terminal back (write(2), tcsetattr),
/// restore the signal's previous action and raise it again. Returns 0, or -1 with errno set.
int microapp_terminal_guard_install(void);

/// Puts the signals' previous actions back (the handlers stay out of the way afterwards).
void microapp_terminal_guard_remove(void);

/// Puts the terminal back now if it was prepared and not yet restored; safe from a signal handler or atexit,
/// and idempotent (the first caller wins).
void microapp_terminal_restore(void);

/// Copies the bytes a handler would write into `buffer` (up to `capacity`) and returns their count: 0 when nothing
/// is prepared or it was already restored. For tests.
size_t microapp_terminal_guard_pending(char *buffer, size_t capacity);

/// A file descriptor that becomes readable when the process `pid` (a child of this one) ends: pidfd_open(2), which
/// Swift cannot call (`syscall` is variadic). Returns the descriptor (close-on-exec), or -1 with errno set.
int microapp_pidfd_open(pid_t pid);

/// Adds "change to `path`" to a spawn's file actions (glibc's posix_spawn_file_actions_addchdir_np, hidden from
/// Swift behind _GNU_SOURCE). Returns 0 or an error number, as posix_spawn_file_actions_* do.
int microapp_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path);

/// Adds "close every descriptor from `lowest` up" to a spawn's file actions, after the ones before it (glibc's
/// posix_spawn_file_actions_addclosefrom_np). Returns 0 or an error number.
int microapp_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// A pipe whose both ends are close-on-exec from the start (pipe2 with O_CLOEXEC, hidden behind _GNU_SOURCE):
/// no child started by another thread meanwhile inherits an end. Returns 0, or -1 with errno set.
int microapp_pipe_cloexec(int ends[2]);

/// Closes every descriptor from `lowest` up (close_range(2)), as a forked child that is to hold only its standard
/// streams does. Returns 0, or -1 with errno set.
int microapp_close_from(int lowest);

/// Swaps the names `first` and `second` in one step (renameat2(2) with RENAME_EXCHANGE, which Swift cannot call):
/// a reader of either path sees the old thing or the new one, never neither. Both must exist on one file system.
/// Returns 0, or -1 with errno set.
int microapp_exchange_paths(const char *first, const char *second);

/// Replaces the handlers of SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE and SIGABRT (the Swift runtime's backtracer, in
/// a process that was forked rather than started) with one that writes a crash report to the new file `path`
/// (O_EXCL, mode 0600; copied here, at most 4095 bytes) in the layout of the runtime's report (the crashed thread's
/// frames with the file name of each, then the executable mappings with their full paths), then ends the process
/// with the signal's default action. Gives the calling thread an alternate signal stack. Call once, from the main
/// thread of a single-threaded process. Returns 0, or -1 with errno set.
int microapp_crash_report_install(const char *path);

/// The path of the loaded image (as it was opened) that contains `address`, or NULL. The string is the dynamic
/// loader's: valid while the image stays loaded (plugin images are never unloaded). Any thread.
const char *microapp_image_path(const void *address);

#endif
