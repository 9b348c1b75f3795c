import Foundation
import TestScratch
import Testing

@Suite("End to end: the command line", .promptResumes)
struct CommandLineTests {
    /// Every command `microapp` accepts.
    static let commands = [
        "run", "solo", "preview", "routes", "graph", "doctor", "new", "remove", "sdk", "probe", "lock", "keys", "help",
        "keygen", "trust", "release", "publish", "rotate", "update", "versions", "rollback", "install", "bundle",
    ]

    @Test("--help explains the commands and exits 0")
    func help() async throws {
        let result = try await runToEnd(["--help"])
        #expect(result.status == 0)
        #expect(result.out.contains("USAGE") && result.out.contains("--open URL") && result.out.contains("EXIT CODES"))
        #expect(!result.out.hasPrefix("usage:"), "the overview, not the help of `run`")
    }

    @Test(
        "each command's --help prints that command's own usage line, not the overview, and exits 0", arguments: commands
    )
    func commandHelp(command: String) async throws {
        let result = try await runToEnd([command, "--help"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.hasPrefix("usage: microapp \(command)"), "\(result.out)")
        let named = try await runToEnd(["help", command])
        #expect(named.status == 0)
        #expect(named.out == result.out)
    }

    @Test("every command the overview lists is one with help of its own, and the overview lists them all")
    func overviewListsEveryCommand() async throws {
        let overview = try await runToEnd(["--help"])
        let listed = overview.out.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.count > 1, words[0] == "microapp" else { return nil }
            let command = words[1].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return command.allSatisfy(\.isLetter) ? command : nil
        }
        #expect(Set(listed) == Set(Self.commands))
    }

    @Test("the demo's own options are its host's: `run` shows --data and --characters-url, no other command takes them")
    func demoOptionsAreRuns() async throws {
        let help = try await runToEnd(["run", "--help"])
        #expect(help.out.contains("--data DIR") && help.out.contains("--characters-url URL"), "\(help.out)")
        let overview = try await runToEnd(["--help"])
        #expect(overview.out.contains("--data DIR"), "the overview shows run's options, the host's included")
        let routes = try await runToEnd(["routes", "--no-build", "--data", "/tmp"])
        #expect(routes.status == 1)
        #expect(routes.err.contains("`microapp routes` has no option --data"), "\(routes.err)")
    }

    @Test("--version prints the version and the entry ABI")
    func version() async throws {
        let result = try await runToEnd(["--version"])
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("microapp ") && result.out.contains("ABI 1"))
    }

    @Test("an unknown command or option is a usage error with a fix and exit code 1")
    func usageErrors() async throws {
        let command = try await runToEnd(["frobnicate"])
        #expect(command.status == 1)
        #expect(command.err.contains("unknown command 'frobnicate'") && command.err.contains("to fix:"))
        let option = try await runToEnd(["routes", "--colour"])
        #expect(option.status == 1)
        #expect(option.err.contains("no option --colour"))
        let ui = try await runToEnd(["run", "--ui", "gui", "--no-build"])
        #expect(ui.status == 1)
        #expect(ui.err.contains("--ui terminal, --ui text, --ui json or --ui web"))
    }

    @Test(
        "a --plugins or doctor folder that does not exist, or is a file, is a usage error naming it (exit 1), even without --strict",
        arguments: [
            ["run", "--ui", "json", "--plugins", "/nonexistent/.build/degub"],
            ["solo", "Characters", "--ui", "json", "--plugins", "/nonexistent/.build/degub"],
            ["routes", "--plugins", "/nonexistent/.build/degub"],
            ["doctor", "/nonexistent/.build/degub"],
        ])
    func missingPluginFolder(command: [String]) async throws {
        let result = try await runToEnd(command + ["--no-build"], input: "")
        #expect(result.status == 1, "\(result.err)")
        #expect(result.err.contains("/nonexistent/.build/degub: no such folder") && result.err.contains("to fix:"))
        #expect(!result.err.contains("loaded from"), "the missing folder is not listed as a place features came from")
    }

    @Test(
        "a malformed --open URL is a usage error before the app starts, in run and solo",
        arguments: [["run"], ["solo", "Characters"]])
    func malformedOpen(command: [String]) async throws {
        let result = try await runToEnd(
            command + ["--no-build", "--ui", "json", "--open", "characters//detail/2"], input: "")
        #expect(result.status == 1, "\(result.err)")
        #expect(result.err.contains("--open characters//detail/2: it has no scheme"), "\(result.err)")
        #expect(result.out.isEmpty, "no frame was drawn")
    }

    @Test("a --plugins argument that is a file is a usage error saying so")
    func pluginFolderIsAFile() async throws {
        let result = try await runToEnd(["routes", "--no-build", "--plugins", AppProcess.executable])
        #expect(result.status == 1)
        #expect(result.err.contains("\(AppProcess.executable): is a file, not a folder"), "\(result.err)")
    }

    @Test("a near miss of a command or an option is answered with the word meant, not the list of everything")
    func didYouMean() async throws {
        let command = try await runToEnd(["doctr"])
        #expect(
            command.status == 1 && command.err.contains("did you mean `\(AppProcess.typed) doctor`?"), "\(command.err)")
        let option = try await runToEnd(["run", "--plugin", "x"])
        #expect(option.status == 1 && option.err.contains("did you mean --plugins?"), "\(option.err)")
        let swapped = try await runToEnd(["routes", "--jsno"])
        #expect(swapped.err.contains("did you mean --json?"), "two letters swapped count as one edit")
        let far = try await runToEnd(["routes", "--colour"])
        #expect(far.err.contains("its options are --json"), "nothing close: the list")
    }

    @Test("routes --json lists every route with its owner and guards")
    func routes() async throws {
        let result = try await runToEnd(["routes", "--json", "--no-build"])
        #expect(result.status == 0)
        let rows = result.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let patterns = Set(rows.compactMap { $0["pattern"] as? String })
        #expect(patterns.isSuperset(of: ["auth://select", "characters://list", "characters://detail/{id}"]))
        let detail = rows.first { $0["pattern"] as? String == "characters://detail/{id}" }
        #expect(detail?["requiresSession"] as? Bool == true)
        #expect(detail?["feature"] as? String == "characters")
    }

    @Test("the --json outputs of probe, routes and graph share one vocabulary: optional, requiresSession, isSignIn")
    func oneVocabulary() async throws {
        func objects(_ text: String) -> [[String: Any]] {
            text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func keys(_ value: Any) -> Set<String> {
            if let object = value as? [String: Any] {
                return object.reduce(into: Set(object.keys)) { $0.formUnion(keys($1.value)) }
            }
            return (value as? [Any])?.reduce(into: Set<String>()) { $0.formUnion(keys($1)) } ?? []
        }
        let library = AppProcess.buildDirectory.appendingPathComponent("libCharacters.so").path
        let probe = try await runToEnd(["probe", library, "--json"])
        let routes = try await runToEnd(["routes", "--json", "--no-build"])
        let graph = try await runToEnd(["graph", "--format", "json", "--no-build"])
        let manifest = try #require(objects(probe.out).first?["manifest"] as? [String: Any])
        let needs = try #require(manifest["requirements"] as? [[String: Any]])
        #expect(!needs.isEmpty && needs.allSatisfy { $0["optional"] is Bool }, "\(probe.out)")
        let declared = try #require(manifest["routes"] as? [[String: Any]])
        #expect(declared.allSatisfy { $0["requiresSession"] is Bool && $0["isSignIn"] is Bool })
        let edges = objects(graph.out).flatMap { ($0["requirements"] as? [[String: Any]]) ?? [] }
        #expect(!edges.isEmpty && edges.allSatisfy { $0["optional"] is Bool })
        #expect(objects(routes.out).allSatisfy { $0["requiresSession"] is Bool && $0["isSignIn"] is Bool })
        let every = keys(objects(probe.out) + objects(routes.out) + objects(graph.out))
        #expect(!every.contains("isOptional"), "\(every.sorted())")
    }

    @Test("a folder whose plugins.lock was deleted after `microapp lock` gets a warning naming the lock and the fix")
    func deletedLockWarned() async throws {
        let folder = Scratch.folder("microapp-locked").path
        try await offThePool {
            for name in ["libAuth.so", "libSettings.so"] {
                try FileManager.default.copyItem(
                    atPath: AppProcess.buildDirectory.appendingPathComponent(name).path, toPath: "\(folder)/\(name)")
            }
        }
        let lock = try await runToEnd(["lock", folder])
        #expect(lock.status == 0, "\(lock.err)")
        let quiet = try await runToEnd(["doctor", folder, "--no-build", "--no-probe"])
        #expect(!quiet.err.contains("warning"), "\(quiet.err)")
        try FileManager.default.removeItem(atPath: "\(folder)/plugins.lock")
        let doctor = try await runToEnd(["doctor", folder, "--no-build", "--no-probe"])
        #expect(doctor.err.contains("microapp: warning: \(folder)/plugins.lock: the folder had a plugins.lock before"))
        // The fix's commands are said as they can be typed: the build folder's microapp is not on PATH.
        let typed = AppProcess.typed
        #expect(
            doctor.err.contains("to fix: restore the lock, or lock the folder again with `\(typed) lock \(folder)`"),
            "\(doctor.err)")
        #expect(doctor.err.contains("if you removed it on purpose, run `\(typed) lock \(folder) --forget`"))
        let forget = try await runToEnd(["lock", folder, "--forget"])
        #expect(forget.status == 0 && forget.out.contains("forgot that \(folder) had a plugins.lock"), "\(forget)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/plugins.lock"), "--forget writes no lock")
        let forgotten = try await runToEnd(["doctor", folder, "--no-build", "--no-probe"])
        #expect(!forgotten.err.contains("warning"), "\(forgotten.err)")
    }

    @Test("probe prints a real plugin's manifest and refuses a file that is not a library")
    func probe() async throws {
        let good = try await runToEnd(["probe", AppProcess.buildDirectory.appendingPathComponent("libAuth.so").path])
        #expect(good.status == 0)
        #expect(good.out.contains("Auth (auth) v1") && good.out.contains("auth://select"))
        let bad = try await runToEnd(["probe", "/etc/hostname", "--json"])
        #expect(bad.status == 2)
        #expect(bad.out.contains(#""verdict":"refused""#))
    }
}
