import Foundation
import Testing

/// The engine's layers, read from their sources: dev loop → platform → core → SDK, and system calls only below core.
@Suite("Layers")
struct LayerTests {
    /// The repository, three folders above this file (`Tests/MicroappCoreTests/LayerTests.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each Swift file under `folder` (relative to the repository) with its code, comments left out.
    static func sources(_ folder: String) throws -> [(name: String, code: String)] {
        let directory = root.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".swift")
        }
        return try names.sorted().map { name in
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }
            return (name, code.joined(separator: "\n"))
        }
    }

    /// `file: word` for each word of `words` that a file of `files` uses.
    static func uses(_ words: [String], in files: [(name: String, code: String)]) -> [String] {
        files.flatMap { file in words.filter(file.code.contains).map { "\(file.name): \($0)" } }
    }

    @Test("the core makes no system call: no Glibc, no files, no processes, no dynamic loading")
    func coreIsPure() throws {
        let core = try Self.sources("Sources/MicroappCore")
        #expect(core.count > 10, "the core's sources were not found under \(Self.root.path)")
        let forbidden = [
            "import Glibc", "import Musl", "import CPlatform", "FileManager", "FileHandle", "Process(", "ProcessInfo",
            "posix_spawn", "dlopen", "dlsym", "fopen(", "Glibc.", "stat(", "waitpid", "fork(", "usleep",
            "contentsOfFile",
            "Data(contentsOf", "String(contentsOf", "write(to", "atomically:", "getenv",
        ]
        #expect(Self.uses(forbidden, in: core) == [])
    }

    @Test("the dev loop calls the system only through the platform: no Glibc, no C calls of its own")
    func devLoopCallsThroughThePlatform() throws {
        let devLoop = try Self.sources("Sources/MicroappDevLoop")
        #expect(devLoop.count > 5, "the dev loop's sources were not found under \(Self.root.path)")
        let forbidden = [
            "import Glibc", "import CPlatform", "Glibc.", "inotify_", " stat(", "lstat(", "flock(", "unlink(",
            "chmod(", "getpid(", "kill(", "errno", "usleep", " open(", " close(", "waitpid", "posix_spawn",
        ]
        #expect(Self.uses(forbidden, in: devLoop) == [])
    }

    @Test("imports point one way: the core sees only the SDK, the platform never the dev loop")
    func importsPointOneWay() throws {
        let core = try Self.sources("Sources/MicroappCore")
        #expect(
            Self.uses(["import MicroappPlatform", "import MicroappDevLoop", "import MicroappTerminal"], in: core) == [])
        let platform = try Self.sources("Sources/MicroappPlatform")
        #expect(Self.uses(["import MicroappDevLoop", "import MicroappTerminal"], in: platform) == [])
        let devLoop = try Self.sources("Sources/MicroappDevLoop")
        #expect(Self.uses(["import MicroappTerminal"], in: devLoop) == [])
    }

    @Test("dlopen is called in one file of the whole package, the platform's loader")
    func oneLoader() throws {
        let folders = [
            "Sources/MicroappCore", "Sources/MicroappPlatform", "Sources/MicroappDevLoop", "Sources/MicroappTerminal",
            "Sources/MicroappTesting", "Sources/MicroappTool", "hosts/microapp/CLI", "hosts/monolith",
        ]
        let callers = try folders.flatMap { folder in
            try Self.uses(["dlopen("], in: Self.sources(folder)).map { "\(folder)/\($0)" }
        }
        #expect(callers == ["Sources/MicroappPlatform/PluginLoader.swift: dlopen("])
    }

    @Test(
        "processes are started only by the platform's runners: ChildProcess (posix_spawn), ForkedProcess and Zygote (fork)"
    )
    func oneProcessRunner() throws {
        let folders = [
            "Sources/MicroappCore", "Sources/MicroappPlatform", "Sources/MicroappDevLoop", "Sources/MicroappTerminal",
            "Sources/MicroappTesting", "Sources/MicroappTool", "hosts/microapp/CLI", "hosts/microapp/Services",
            "hosts/monolith",
        ]
        let starters = try folders.flatMap { folder in
            try Self.uses(
                ["posix_spawn(", "posix_spawnp(", "Process()", "fork()", "waitpid("], in: Self.sources(folder)
            )
            .map { "\(folder)/\($0)" }
        }
        #expect(
            starters == [
                "Sources/MicroappPlatform/ChildProcess.swift: posix_spawn(",
                "Sources/MicroappPlatform/ChildProcess.swift: posix_spawnp(",
                "Sources/MicroappPlatform/ChildProcess.swift: waitpid(",
                "Sources/MicroappPlatform/ForkedProcess.swift: fork()",
                "Sources/MicroappPlatform/ForkedProcess.swift: waitpid(",
                "Sources/MicroappPlatform/Zygote.swift: fork()",
                "Sources/MicroappPlatform/Zygote.swift: waitpid(",
            ])
    }
}
