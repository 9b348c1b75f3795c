#ifndef MICROAPP_STDIO_BUFFERING_H
#define MICROAPP_STDIO_BUFFERING_H

/// Makes C stdio's stdout line-buffered and stderr unbuffered (what they are on a terminal), so a feature-host
/// child's `print` reaches the host's log as each line is written, not when a full buffer or the exit flushes it.
/// Swift 6 cannot name the `stdout` and `stderr` globals. Call once, early, from one thread.
void microapp_line_buffer_stdio(void);

#endif
