import Foundation
import TestScratch
import Testing

@Suite("End to end: every executable parses its command line by its declaration", .promptResumes)
struct CommandSpecTests {
    /// Every executable of the package, with the words that name one of its commands.
    static let commands: [[String]] =
        ["run", "routes", "doctor", "probe", "solo", "preview", "new", "lock", "graph", "help"].map {
            ["microapp", $0]
        }
        + [
            ["monolith"], ["cold-start-benchmark"], ["hot-swap-benchmark"], ["loader-benchmark"], ["host-benchmark"],
            ["microapp-fuzz"],
        ]

    /// Each option line of a help (`  --name VALUE  what it does`) as the option written with a value if it takes one.
    static func options(inHelp help: String) -> [String] {
        help.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard line.hasPrefix("  --"), let name = words.first else { return nil }
            let takesValue = words.count > 1 && words[1].first?.isUppercase == true
            return takesValue ? "\(name)=1" : String(name)
        }
    }

    @Test("--help answers, and every option it lists is accepted", arguments: commands)
    func everyListedOptionIsAccepted(command: [String]) async throws {
        let executable = AppProcess.buildDirectory.appendingPathComponent(command[0]).path
        let words = Array(command.dropFirst())
        let help = try await runToEnd(words + ["--help"], executable: executable)
        #expect(help.status == 0, "\(help.err)")
        #expect(help.out.hasPrefix("usage: \(command.joined(separator: " "))"), "\(help.out)")
        let options = Self.options(inHelp: help.out)
        #expect(options.contains("--help"))
        // Given all at once: `--help` still answers only when every one of them was accepted.
        let all = try await runToEnd(words + options, executable: executable)
        #expect(all.status == 0 && all.out == help.out, "\(options): \(all.err)")
    }

    @Test("a flag with a value, a value option followed by an option, a stray operand are refused with exit 1")
    func mistakesAreRefused() async throws {
        let strict = try await runToEnd(["run", "--strict=no", "--no-build"])
        #expect(strict.status == 1 && strict.err.contains("--strict is a flag"), "\(strict.err)")
        let swallowed = try await runToEnd(["--open", "--ui", "json"])
        #expect(swallowed.status == 1 && swallowed.err.contains("--open needs a value"), "\(swallowed.err)")
        let stray = try await runToEnd(["run", "characters://list"])
        #expect(stray.status == 1 && stray.err.contains("'characters://list'"), "\(stray.err)")
        let ended = try await runToEnd(["routes", "--", "--json"])
        #expect(ended.status == 1 && ended.err.contains("'--json'"), "after --, --json is an operand: \(ended.err)")
    }

    @Test("the supervisor's internal options are refused from people, naming the option")
    func internalOptionsAreRefused() async throws {
        for option in ["--supervised", "--state-file=x", "--skip-library=x", "--crash-notice=x"] {
            let result = try await runToEnd(["run", option, "--no-build"])
            #expect(result.status == 1, "\(option)")
            #expect(result.err.contains("has no option \(option.prefix { $0 != "=" })"), "\(result.err)")
        }
    }
}
