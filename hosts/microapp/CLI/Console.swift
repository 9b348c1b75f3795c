import Foundation
import MicroappHost

/// Writing to the standard streams (Swift 6 forbids the C `stdout`/`stderr` globals).
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// One JSON object per line, keys sorted, for scripts.
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        out(String(decoding: data, as: UTF8.self))
    }

    /// Problems for people: `microapp: problem with <subject>: <reason>` and the fix.
    static func report(_ problems: [Diagnostic]) {
        for problem in problems {
            err("microapp: \(problem)")
        }
    }
}

/// Leaves the process with one of the contract's exit codes.
enum ExitCode: Int32 {
    case ok = 0
    case usage = 1
    case invalidPluginSet = 2
    case crashed = 3
    /// Whoever read the output closed it (`microapp --ui json | head -1`): a normal end, 128 + SIGPIPE as the shell
    /// reports a program that SIGPIPE ended.
    case outputClosed = 141
}
