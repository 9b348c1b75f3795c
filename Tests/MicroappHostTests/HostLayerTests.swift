import Foundation
import TestScratch
import Testing

@Suite("MicroappHost decides; the platform calls the system")
struct HostLayerTests {
    /// The module's sources, comments left out, read from the repository (three folders above this file).
    static func sources() throws -> [(name: String, code: String)] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MicroappHost")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        return try names.sorted().map { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }
            return (name, code.joined(separator: "\n"))
        }
    }

    @Test("the loading pipeline reads no variable or clock and makes no system call of its own", .offThePool)
    func noSystemCalls() throws {
        let files = try Self.sources()
        #expect(files.count >= 6, "MicroappHost's sources were not found")
        let forbidden = [
            "import Glibc", "import CPlatform", "Glibc.", "FileManager", "FileHandle", "ProcessInfo", "getenv",
            "ContinuousClock", "Date()", "dlopen", "posix_spawn", "fork(", "realpath(", "contentsOf", "write(to",
            "import MicroappTerminal", "import MicroappTool",
        ]
        let uses = files.flatMap { file in forbidden.filter(file.code.contains).map { "\(file.name): \($0)" } }
        #expect(uses == [])
    }
}
