import Foundation

/// The process's standard input and output as front ends use them: lines in, flushed lines out.
public enum StandardStreams {
    /// Writes `line` and a newline to stdout at once (FileHandle writes are unbuffered, so it is flushed).
    public static func writeLine(_ line: String) {
        write(line + "\n")
    }

    /// Writes `text` to stdout as it is; a closed stdout is ignored.
    public static func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
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
