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

    /// Every Swift module of the package but the platform's, by folder: what must call the system through it.
    static let abovePlatform = [
        "Sources/MicroappCore", "Sources/MicroappSDK/Swift", "Sources/MicroappTesting", "Sources/CommandLineSpec",
        "Sources/DemoContracts", "Sources/MicroappDevLoop", "Sources/MicroappHost", "Sources/MicroappRelease",
        "Sources/MicroappTerminal", "Sources/MicroappWeb",
        "Sources/MicroappTool",
        "hosts/microapp/CLI", "hosts/monolith",
    ]

    /// Files of `abovePlatform` allowed a system call of their own, each with why. The terminal front end drives the
    /// person's terminal, a device of its own, not the engine's: raw mode and the signal handlers that put it back
    /// (termios, CPlatform's terminal guard), keys read from stdin, frames written to stdout unbuffered, and whether
    /// stdin and stdout are a terminal. Moving those four behind the platform would make the front end depend on the
    /// engine's platform for a handful of calls the engine never makes.
    static let allowedSystemCalls: Set = [
        "Sources/MicroappTerminal/FrontEnd.swift", "Sources/MicroappTerminal/KeyReader.swift",
        "Sources/MicroappTerminal/StandardStreams.swift", "Sources/MicroappTerminal/TerminalMode.swift",
    ]

    /// Module folders under Sources/ that the lists here do not name: a new module must be placed in a layer.
    @Test("every module of Sources/ is placed: the platform, a C target, the digest's binding, or above the platform")
    func everyModuleIsPlaced() throws {
        let below: Set = [
            "MicroappPlatform", "CPlatform", "CCrypto",
            // The browser front end's C: libmicrohttpd's two variadic calls, and the page's files embedded as bytes.
            "CWebServer", "CWebPage",
            // libcurl's easy interface for a channel's downloads, which only the platform imports.
            "CFetch",
            // SHA-256 from libcrypto: a binding of C functions beside the platform, which makes no system call.
            "MicroappDigest",
        ]
        let folders = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path)
        let placed = below.union(Self.abovePlatform.map { String($0.split(separator: "/")[1]) })
        #expect(folders.filter { !$0.hasPrefix(".") && !placed.contains($0) }.sorted() == [])
    }

    @Test(
        "only the platform calls the system: no other module imports Glibc or CPlatform, or calls FileManager or a C function (the terminal's device excepted, by name)"
    )
    func onlyThePlatformCallsTheSystem() throws {
        let forbidden = [
            "import Glibc", "import Musl", "import CPlatform", "import CFetch", "Glibc.", "FileManager", "getpid(",
            "getppid(", "_exit(",
            "strerror(", "errno", "isatty(", "kill(", "mkdtemp(", "mkstemps(", "unlink(", "strdup(", "fork(",
            "waitpid(", "usleep(", "tcsetattr(", "sigaction(", "prctl(", "posix_spawn", "dlopen(",
        ]
        var found: [String] = []
        for folder in Self.abovePlatform {
            let files = try Self.sources(folder)
            #expect(!files.isEmpty, "no sources in \(folder)")
            found += Self.uses(forbidden, in: files).map { "\(folder)/\($0)" }.filter { use in
                !Self.allowedSystemCalls.contains(String(use.prefix { $0 != ":" }))
            }
        }
        #expect(found == [])
        // Each exception still is one: a file that no longer calls the system leaves the list.
        let excepted = try Self.allowedSystemCalls.sorted().filter { path in
            let folder = (path as NSString).deletingLastPathComponent
            let name = (path as NSString).lastPathComponent
            return try Self.uses(forbidden, in: Self.sources(folder).filter { $0.name == name }).isEmpty
        }
        #expect(excepted == [], "no longer calls the system: take it off allowedSystemCalls")
    }

    @Test(
        "the environment is read in one place: only HostEnvironment.process reads ProcessInfo, the current directory and the home folder; above the platform nothing reads the temporary folder, and the core no clock"
    )
    func environmentIsReadOnce() throws {
        let ambient = [
            "ProcessInfo", "NSTemporaryDirectory", "temporaryDirectory", "currentDirectoryPath", "NSHomeDirectory",
        ]
        let readers = try (Self.abovePlatform + ["hosts/microapp/Services"]).flatMap { folder in
            try Self.uses(ambient, in: Self.sources(folder)).map { "\(folder)/\($0)" }
        }
        // The manifest `new --package` writes for another package reads that package's environment: text, not a read.
        #expect(readers == ["Sources/MicroappTool/PackageTemplates.swift: ProcessInfo"])
        // In the platform the private folders of children and copies are the platform's own (a later host sweeps a
        // killed one's from the same place); the process's environment is read by `HostEnvironment.process` alone.
        let platform = try Self.uses(
            ["ProcessInfo", "currentDirectoryPath", "NSHomeDirectory", "getenv("],
            in: Self.sources("Sources/MicroappPlatform"))
        #expect(
            platform.sorted() == [
                "HostEnvironment+Process.swift: ProcessInfo", "HostEnvironment+Process.swift: currentDirectoryPath",
            ])
        let core = try Self.sources("Sources/MicroappCore")
        #expect(Self.uses(["ContinuousClock.now", "Date()", ".now - ", "= .now"], in: core) == [])
    }
}
