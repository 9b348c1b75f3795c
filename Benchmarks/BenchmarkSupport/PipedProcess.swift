import Foundation

/// A program started with its stdin and stdout as pipes (stderr discarded): lines written to it, lines read from it as
/// they come. What the benchmarks drive the real `microapp` with.
public final class PipedProcess: @unchecked Sendable {
    /// The running program.
    public let process = Process()
    private let input: FileHandle
    private let output: FileHandle
    private var buffer = Data()

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
        output = stdout.fileHandleForReading
    }

    /// Writes `line` and a newline to the program's stdin.
    public func send(_ line: String) { input.write(Data((line + "\n").utf8)) }

    /// The next line of its stdout that `wanted` accepts (earlier ones are dropped); nil at the end of its output.
    public func nextLine(where wanted: (String) -> Bool) -> String? {
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if wanted(line) { return line }
            }
            let chunk = output.availableData
            guard !chunk.isEmpty else { return nil }
            buffer.append(chunk)
        }
    }

    /// Closes its stdin (the end of its input) and waits for it to exit.
    public func finish() {
        try? input.close()
        process.waitUntilExit()
    }
}
