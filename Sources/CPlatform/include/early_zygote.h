// The zygote forked before main (early_zygote.c): the template process of isolated features, forked by a constructor
// while the process has read nothing of the person's (no environment, no argument parsed into the heap), then scrubbed.
#ifndef MICROAPP_EARLY_ZYGOTE_H
#define MICROAPP_EARLY_ZYGOTE_H

#include <sys/types.h>

/// In the process that forked the template before main (and in its forks): the host's end of the control socket
/// (close-on-exec), or -1 when none was forked. Any thread; the value does not change after main starts.
int microapp_early_zygote_host(void);

/// The template's pid, or 0 when none was forked.
pid_t microapp_early_zygote_pid(void);

/// The pid of the process that forked the template (its parent, which alone may reap it), or 0.
pid_t microapp_early_zygote_forked_by(void);

/// In the template itself: its control socket (0, standard input); -1 in every other process.
int microapp_early_zygote_control(void);

/// In the template itself: 1 when it serves a run's probes only (it waited for its first request), else 0.
int microapp_early_zygote_probes_only(void);

/// Forgets the template in this process (its descriptor was taken or closed): the getters answer -1 and 0 after.
/// Call from one thread.
void microapp_early_zygote_forget(void);

/// In a supervised run's supervisor, right after it forked its app process: forks the template whose socket the
/// constructor made and left for it (the app process holds the host's end). Answers 1 in the template (return at
/// once: `main` serves), else 0 (also when nothing was pending or the fork failed: then the app's requests fail and it
/// starts its probes and children as processes of their own).
int microapp_early_zygote_fork_pending(void);

/// Closes every descriptor from `lowest` up but the early template's control socket (close_range(2)), as a forked
/// app process that is still to use the template does (a template's end left for the supervisor goes with the rest,
/// and is forgotten). Returns 0, or -1 with errno set.
int microapp_close_from_keeping_early_zygote(int lowest);

#endif
