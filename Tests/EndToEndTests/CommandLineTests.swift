import Foundation
import Testing

@Suite("End to end: the command line")
struct CommandLineTests {
    @Test("--help explains the commands and exits 0")
    func help() async throws {
        let result = try await runToEnd(["--help"])
        #expect(result.status == 0)
        #expect(result.out.contains("USAGE") && result.out.contains("--open URL") && result.out.contains("EXIT CODES"))
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
        #expect(ui.err.contains("--ui terminal, --ui text or --ui json"))
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
