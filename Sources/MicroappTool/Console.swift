import Foundation
import MicroappCore
import Synchronization

/// Writing to the standard streams (Swift 6 forbids the C `stdout`/`stderr` globals).
enum Console {
    // A stream that is gone (a closed terminal answers EIO) loses the line: `FileHandle.write(_:)` would trap on the
    // error and end the process before it cleans up.
    // Each line says the host's own command where the tool's text says `microapp` (see `ProgramName`); `verbatim`
    // text (a feature's screens, drawn by `preview`) is written as it is.
    static func out(_ text: String, verbatim: Bool = false) {
        let line = verbatim ? text : ProgramName.spoken(text)
        try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
    }

    static func err(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((ProgramName.spoken(text) + "\n").utf8))
    }

    /// One JSON object per line, keys sorted, for scripts. A value that cannot be encoded is never skipped quietly:
    /// the reason goes to stderr and the process ends with `ExitCode.internalError` (see `exitCode(for:)`).
    static func json<T: Encodable>(_ value: T) {
        switch line(encoding: value) {
        case .success(let text): out(text)
        case .failure(let problem):
            err(problem)
            outputFailed.withLock { $0 = true }
        }
    }

    /// `value` as one line of JSON (keys sorted), or what to tell people when it cannot be encoded.
    static func line<T: Encodable>(encoding value: T) -> Result<String, OutputError> {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .success(String(decoding: try encoder.encode(value), as: UTF8.self))
        } catch {
            return .failure(OutputError(type: "\(T.self)", reason: "\(error)"))
        }
    }

    /// Why a value could not be written as JSON.
    struct OutputError: ProblemDescribing, Equatable {
        /// The Swift type of the value.
        var type: String
        /// The encoder's reason.
        var reason: String

        /// An `output-failed` problem: the output above is incomplete.
        var problem: Problem {
            Problem(
                code: .outputFailed, subject: "", reason: "could not write a \(type) as JSON: \(reason)",
                fix: "this is a bug in microapp; report it with the command you ran (the output above is incomplete)")
        }
    }

    /// True once a JSON line could not be written: the output is incomplete and the exit code must say so.
    static let outputFailed = Mutex(false)

    /// The code to exit with for a command that returned `code`: `internalError` when output was lost.
    static func exitCode(for code: ExitCode) -> ExitCode {
        outputFailed.withLock { $0 } ? .internalError : code
    }

    /// A problem for people: `microapp: [label: ]what: why` and `  to fix: …` on the next line, its commands as they
    /// can be typed here (`ProgramName.typed`).
    static func err(_ problem: some ProblemDescribing, label: String? = nil) {
        var problem = problem.problem
        problem.fix = ProgramName.typed(problem.fix)
        err("microapp: \(label.map { "\($0): " } ?? "")\(problem.text)")
    }

    /// Warnings for people: `microapp: warning: <subject>: <reason>` and the fix.
    static func warn(_ warnings: [Problem]) {
        for warning in warnings { err(warning, label: "warning") }
    }

    /// Problems for people: `microapp: problem with <subject>: <reason>` and the fix.
    static func report(_ problems: [Problem]) {
        for problem in problems { err(problem) }
    }
}

/// Leaves the process with one of the contract's exit codes.
public enum ExitCode: Int32, Sendable {
    /// The command did what was asked.
    case ok = 0
    /// A usage or input error (what, why and the fix on stderr).
    case usage = 1
    /// The plugin set is invalid: every problem listed.
    case invalidPluginSet = 2
    /// A plugin crashed and could not be isolated.
    case crashed = 3
    /// microapp itself failed (a JSON line it could not write): the output is incomplete. 70 is `EX_SOFTWARE`.
    case internalError = 70
    /// Whoever read the output closed it (`microapp --ui json | head -1`): a normal end, 128 + SIGPIPE as the shell
    /// reports a program that SIGPIPE ended.
    case outputClosed = 141
    /// Ended by SIGHUP (its terminal closed): 128 + SIGHUP, as the shell reports it.
    case hungUp = 129
    /// Ended by SIGTERM (`kill`): 128 + SIGTERM, as the shell reports it.
    case terminated = 143
    /// Ended by ctrl-c (SIGINT) in its app process, as the shell reports it.
    case interrupted = 130
}
