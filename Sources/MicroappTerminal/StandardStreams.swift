import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's standard input and output as front ends use them: lines in, flushed lines out.
public enum StandardStreams {
    /// Writes `line` and a newline to stdout at once (FileHandle writes are unbuffered, so it is flushed).
    public static func writeLine(_ line: String) {
        write(line + "\n")
    }

    /// Writes `text` to stdout as it is, all of it. When the reader closed stdout (`microapp --ui json | head -1`)
    /// the process ends by SIGPIPE, as a program in a pipe does, even if whoever started it ignores the signal:
    /// a normal end (the shell says 141), never a crash; a parent that supervises it exits the same way.
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if written >= 0 {
                bytes = bytes.dropFirst(written)
            } else if errno == EPIPE {
                endByBrokenPipe()
            } else if errno != EINTR {
                // Any other failure (a full disk, say) loses this line, as before; the run goes on.
                return
            }
        }
    }

    /// Ends the process by SIGPIPE whatever its disposition or mask was (inherited from whoever started it).
    private static func endByBrokenPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    /// Writes `line` and a newline to stderr.
    public static func writeErrorLine(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Lines of stdin without their newlines, read on a thread of their own; the stream ends at EOF.
    /// Call it once per process: two readers would share the lines between them.
    public static func inputLines() -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        let reader = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line)
            }
            continuation.finish()
        }
        reader.name = "microapp-stdin"
        reader.start()
        return lines
    }
}
