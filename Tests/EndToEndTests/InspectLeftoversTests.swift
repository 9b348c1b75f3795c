import Foundation
import TestScratch
import Testing

@Suite("End to end: inspection commands leave nothing behind", .promptResumes)
struct InspectLeftoversTests {
    @Test(
        "keys, graph, routes and doctor on a feature isolated in its own process leave no child process and no private or pinned folder when they end",
        arguments: ["keys", "graph", "routes", "doctor"])
    func nothingOutlivesTheCommand(command: String) async throws {
        // A library from outside the repository: it runs isolated, in a child forked from the template process.
        let plugins = Scratch.folder("microapp-inspect-plugins")
        try FileManager.default.copyItem(
            at: AppProcess.buildDirectory.appendingPathComponent("libSearch.so"),
            to: plugins.appendingPathComponent("libSearch.so"))
        // A temporary folder of its own, where the children's private folders and the pinned copies are made; and a
        // mark in PATH (the one variable every child keeps) to find the processes this command started.
        let temporary = Scratch.folder("microapp-inspect-tmp")
        let mark = "/nonexistent-microapp-mark-\(UUID().uuidString)"
        let path = mark + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let arguments =
            switch command {
            case "doctor": ["doctor", plugins.path, "--no-build", "--json"]
            case "graph": ["graph", "--plugins", plugins.path, "--no-build", "--format", "json"]
            default: [command, "--plugins", plugins.path, "--no-build", "--json"]
            }
        // The repository's own Search is not seen: the isolated one is the only search, and runs to the end.
        let result = try await runToEnd(
            arguments,
            environment: [
                "TMPDIR": temporary.path, "PATH": path, "MICROAPP_TEST_FEATURES": "Auth,Characters,Settings",
            ])
        #expect(result.status == 0 || result.status == 2, "\(result.err)")
        #expect(result.out.contains("search"), "the isolated feature was inspected: \(result.out)\n\(result.err)")

        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter {
            $0.hasPrefix("microapp-feature-") || $0.hasPrefix("microapp-pinned-") || $0.hasPrefix("microapp-loaded-")
        }
        let contents = left.map {
            "\($0): "
                + (FileManager.default.subpaths(atPath: temporary.appendingPathComponent($0).path) ?? [])
                .joined(separator: ", ")
        }
        #expect(left.isEmpty, "folders left in the temporary folder: \(contents)\n\(result.err)")
        #expect(Self.processes(marked: mark).isEmpty, "processes left running")
    }

    /// The pids of this user's processes whose environment holds `mark`.
    static func processes(marked mark: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) }.filter { pid in
            guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return String(decoding: environment, as: UTF8.self).contains(mark)
        }
    }
}
