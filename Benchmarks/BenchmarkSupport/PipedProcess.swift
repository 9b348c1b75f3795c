import Foundation
import Synchronization

/// A program started with its stdin and stdout as pipes (stderr discarded): lines written to it, lines read from it as
/// they come. What the benchmarks drive the real `microapp` with.
public final class PipedProcess: @unchecked Sendable {
    /// The running program.
    public let process = Process()
    private let input: FileHandle
    /// What the reader thread has read and not yet taken, and whether the program's output ended.
    private let received = Mutex((data: Data(), ended: false))
    /// Signalled by the reader thread at each chunk and at the end of the output.
    private let arrived = DispatchSemaphore(value: 0)

    /// What a wait for a line found.
    public enum Reading: Sendable, Equatable {
        /// The line wanted.
        case line(String)
        /// The program's output ended first.
        case ended
        /// The time limit passed first.
        case timedOut
    }

    /// Starts `executable` with `arguments`, this process's environment plus `environment`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        input = stdin.fileHandleForWriting
        // Read on a thread of its own, so a wait for a line can have a time limit.
        let output = stdout.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = output.availableData
                received.withLock { if chunk.isEmpty { $0.ended = true } else { $0.data.append(chunk) } }
                arrived.signal()
                if chunk.isEmpty { return }
            }
        }
    }

    /// Writes `line` and a newline to the program's stdin.
    public func send(_ line: String) { input.write(Data((line + "\n").utf8)) }

    /// The next line of its stdout that `wanted` accepts (earlier ones are dropped); nil at the end of its output.
    public func nextLine(where wanted: (String) -> Bool) -> String? {
        if case .line(let line) = nextLine(within: nil, where: wanted) { return line }
        return nil
    }

    /// The next line of its stdout that `wanted` accepts (earlier ones are dropped), waiting at most `limit` (nil: no
    /// limit); or why there is none.
    public func nextLine(within limit: Duration?, where wanted: (String) -> Bool) -> Reading {
        let deadline = limit.map { DispatchTime.now() + seconds($0) }
        while true {
            let (lines, ended) = received.withLock { state -> ([String], Bool) in
                guard let last = state.data.lastIndex(of: 0x0A) else { return ([], state.ended) }
                let complete = state.data[state.data.startIndex...last]
                state.data.removeSubrange(state.data.startIndex...last)
                return (
                    complete.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map {
                        String(decoding: $0, as: UTF8.self)
                    }, state.ended
                )
            }
            // Lines after the wanted one are put back, in order, for the next call.
            if let index = lines.firstIndex(where: wanted) {
                let rest = lines[(index + 1)...].map { $0 + "\n" }.joined()
                received.withLock { $0.data.insert(contentsOf: Data(rest.utf8), at: $0.data.startIndex) }
                if !rest.isEmpty { arrived.signal() }
                return .line(lines[index])
            }
            if ended { return .ended }
            if let deadline {
                if arrived.wait(timeout: deadline) == .timedOut { return .timedOut }
            } else {
                arrived.wait()
            }
        }
    }

    /// Closes its stdin (the end of its input) and waits for it to exit.
    public func finish() {
        try? input.close()
        process.waitUntilExit()
    }
}
