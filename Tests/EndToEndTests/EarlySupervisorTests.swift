import Foundation
import TestScratch
import Testing

/// The supervisor's first app process is forked before `main` (CPlatform's early_supervisor.c) by the command line's
/// words alone, before anything parses them: the app process parses them as the supervisor would have, so a command
/// line that is no supervised run reads as it did when the supervisor parsed it first. The rest of the supervisor's
/// behaviour (restarts, signals, exit codes, its folder) is SupervisorTests'.
@Suite(
    "End to end: the supervisor's app process forked before main reads the command line as the supervisor did",
    .promptResumes)
struct EarlySupervisorTests {
    @Test(
        "a usage error reads word for word as without a supervisor, exit 1, and its folder is gone",
        arguments: [
            (["--ui", "json", "--open"], "--open needs a value"),
            (["run", "--ui", "json", "--state-file", "x"], "has no option --state-file"),
            (["--ui", "json", "--no-such-option"], "has no option --no-such-option"),
        ])
    func usageErrorsReadAsUnsupervised(words: [String], message: String) async throws {
        let temporary = try temporaryFolder("microapp-early-supervisor")
        let supervised = try await runToEnd(words, environment: ["TMPDIR": temporary.path])
        // `--no-supervise` first among the options: a word after `--open` would be the one it names instead of a value.
        let command = words.first == "run" ? ["run"] : []
        let unsupervised = try await runToEnd(
            command + ["--no-supervise"] + words.dropFirst(command.count), environment: ["TMPDIR": temporary.path])
        #expect(supervised.status == 1, "\(supervised.err)")
        #expect(supervised.err.contains(message), "\(supervised.err)")
        // The words the supervisor adds for its app process (--supervised, --state-file) appear nowhere.
        #expect(!supervised.err.contains("--supervised"), "\(supervised.err)")
        #expect(supervised.err == unsupervised.err)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }
}
