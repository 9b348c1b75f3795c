// The supervisor's first app process forked before main (early_supervisor.c): `microapp run` as people start it forks
// its app process from a constructor, before Foundation starts and before the command line is parsed, so the app
// process starts as an unsupervised one does (no copy of a started runtime to fault in again) and the supervisor waits
// for it without having started anything. What follows its first app process is Swift's (MicroappTool's Supervisor).
#ifndef MICROAPP_EARLY_SUPERVISOR_H
#define MICROAPP_EARLY_SUPERVISOR_H

#include <termios.h>

/// What the constructor made of this process: nothing (0), the app process it forked (1), or the supervisor that
/// forked it and waited for it to end (2). Any thread; the value does not change after main starts.
enum microapp_early_supervisor_role {
    microapp_early_supervisor_none = 0,
    microapp_early_supervisor_app = 1,
    microapp_early_supervisor_parent = 2,
};

/// This process's role (see the enum).
int microapp_early_supervisor_role(void);

/// The supervisor's own folder (mkdtemp of `<base>/microapp-run-XXXXXX`, mode 0700), or NULL with no role. The
/// string is static; the caller does not free it.
const char *microapp_early_supervisor_folder(void);

/// The temporary folder the supervisor's folder was made in: `$TMPDIR` when absolute (one trailing `/` dropped), else
/// `/tmp`, as `HostEnvironment.process` reads it. NULL with no role. Static.
const char *microapp_early_supervisor_base(void);

/// The file the first app process's crash report goes to (`<folder>/crash-0.txt`), or NULL with no role. Static.
const char *microapp_early_supervisor_crash_file(void);

/// In the supervisor: the first app process's wait status (waitpid(2)); -1 in any other role.
int microapp_early_supervisor_status(void);

/// In the supervisor: copies the terminal settings standard input had before the app process ran into `settings` and
/// returns 1, or returns 0 when it is no terminal (or this is no supervisor). The caller owns `settings`.
int microapp_early_supervisor_terminal(struct termios *settings);

/// In the app process: tells the supervisor that this executable's `main` took the app process over, so the
/// supervisor goes on into `main` when it ends (and handles its ending as a supervisor does). Without it, the
/// supervisor ends as its child did (exit status or signal), running no `main` of its own: an executable that links
/// the marker but whose `main` is something else runs once. Even then, the supervisor enters `main` only when the app
/// process crashed (see `microapp_early_supervisor_exit_code`). Call once, from the main thread.
void microapp_early_supervisor_took_over(void);

/// How a supervisor ends for its app process's wait `status` when the app ended on purpose: the exit code (the status
/// itself when it is one of MicroappTool's `ExitCode`s, else 3; 129, 143, 130, 141 for a hang-up, `kill`, ctrl-C, a
/// closed output), with `*restores_terminal` set to 1 when the terminal is to be put back. -1 for a crash (any other
/// signal), which the supervisor traces and restarts from. The decisions of MicroappCore's `CrashLoop.verdict`, made
/// before main; `EarlySupervisorDecisionTests` holds the two to each other for every status.
int microapp_early_supervisor_exit_code(int status, int *restores_terminal);

/// True when the supervisor's constructor will fork the app process of this command line before main (a supervised
/// `run` of an executable that serves it): the early zygote's constructor then leaves the template's fork to it.
int microapp_early_supervisor_will_fork(int argc, char **argv);

#endif
