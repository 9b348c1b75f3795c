import Foundation
import TestScratch
import Testing

/// The engine's layers, read from their sources: dev loop → platform → core → SDK, and system calls only below core.
@Suite("Layers")
struct LayerTests {
    /// The repository, three folders above this file (`Tests/MicroappCoreTests/LayerTests.swift`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Each Swift file (or file named with `suffix`) under `folder` (relative to the repository) with its code, `//`
    /// comments left out.
    static func sources(_ folder: String, suffix: String = ".swift") throws -> [(name: String, code: String)] {
        let directory = root.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(suffix) }
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

    @Test("the core makes no system call: no Glibc, no files, no processes, no dynamic loading", .offThePool)
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

    @Test("the dev loop calls the system only through the platform: no Glibc, no C calls of its own", .offThePool)
    func devLoopCallsThroughThePlatform() throws {
        let devLoop = try Self.sources("Sources/MicroappDevLoop")
        #expect(devLoop.count > 5, "the dev loop's sources were not found under \(Self.root.path)")
        let forbidden = [
            "import Glibc", "import CPlatform", "Glibc.", "inotify_", " stat(", "lstat(", "flock(", "unlink(",
            "chmod(", "getpid(", "kill(", "errno", "usleep", " open(", " close(", "waitpid", "posix_spawn",
        ]
        #expect(Self.uses(forbidden, in: devLoop) == [])
    }

    @Test("imports point one way: the core sees only the SDK, the platform never the dev loop", .offThePool)
    func importsPointOneWay() throws {
        let core = try Self.sources("Sources/MicroappCore")
        #expect(
            Self.uses(["import MicroappPlatform", "import MicroappDevLoop", "import MicroappTerminal"], in: core) == [])
        let platform = try Self.sources("Sources/MicroappPlatform")
        #expect(Self.uses(["import MicroappDevLoop", "import MicroappTerminal"], in: platform) == [])
        let devLoop = try Self.sources("Sources/MicroappDevLoop")
        #expect(Self.uses(["import MicroappTerminal"], in: devLoop) == [])
    }

    @Test(
        "dlopen is called in one Swift file of the whole package, the platform's loader, and in one C file, the opener of the system libraries loaded on demand",
        .offThePool)
    func oneLoader() throws {
        let folders = [
            "Sources/MicroappCore", "Sources/MicroappPlatform", "Sources/MicroappDevLoop", "Sources/MicroappTerminal",
            "Sources/MicroappTesting", "Sources/MicroappTool", "hosts/microapp/CLI", "hosts/monolith",
        ]
        let callers = try folders.flatMap { folder in
            try Self.uses(["dlopen("], in: Self.sources(folder)).map { "\(folder)/\($0)" }
        }
        #expect(callers == ["Sources/MicroappPlatform/PluginLoader.swift: dlopen("])
        let cFolders = [
            "Sources/CPlatform", "Sources/CCrypto", "Sources/CFetch", "Sources/CWebServer", "Sources/CWebPage",
        ]
        let cCallers = try cFolders.flatMap { folder in
            try Self.uses(["dlopen("], in: Self.sources(folder, suffix: ".c")).map { "\(folder)/\($0)" }
        }
        #expect(cCallers == ["Sources/CPlatform/library_on_demand.c: dlopen("])
    }

    @Test(
        "processes are started only by the platform's runners: ChildProcess (posix_spawn), ForkedProcess and Zygote (fork)",
        .offThePool)
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
    @Test(
        "every module of Sources/ is placed: the platform, a C target, the digest's binding, or above the platform",
        .offThePool)
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
        "only the platform calls the system: no other module imports Glibc or CPlatform, or calls FileManager or a C function (the terminal's device excepted, by name)",
        .offThePool)
    func onlyThePlatformCallsTheSystem() throws {
        let forbidden = [
            "import Glibc", "import Musl", "import CPlatform", "import CFetch", "Glibc.", "FileManager", "getpid(",
            "getppid(", "_exit(",
            "strerror(", "errno", "isatty(", "kill(", "mkdtemp(", "mkstemps(", "unlink(", "strdup(", "fork(",
            "waitpid(", "usleep(", "tcsetattr(", "sigaction(", "prctl(", "posix_spawn", "dlopen(",
            // Foundation's readers and writers of files: `Files` is the one place (its doc says so).
            "contentsOfFile", "String(contentsOf", "Data(contentsOf", "write(to", "write(toFile", "atomically:",
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
        "the environment is read in one place: only HostEnvironment.process reads ProcessInfo, the current directory and the home folder; above the platform nothing reads the temporary folder, and the core no clock",
        .offThePool)
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

    /// Every folder of Swift code the package ships: each module of Sources/ and the hosts' own.
    static let shipped =
        abovePlatform + [
            "Sources/MicroappPlatform", "Sources/MicroappDigest", "hosts/microapp/Services",
            "hosts/microapp/Services/Accounts", "hosts/microapp/Services/App", "hosts/microapp/Services/Characters",
            "hosts/microapp/Services/Files", "hosts/microapp/Services/Storage",
        ]

    /// Spellings that read a clock or the temporary folder ambiently, or wait on a timer instead of an event.
    static let ambientSpellings = [
        "ContinuousClock()", "ContinuousClock.now", "Date()", "NSTemporaryDirectory", "Thread.sleep", "usleep(",
    ]

    /// Files allowed a spelling of `ambientSpellings`, each with why. Everything else takes its clocks and temporary
    /// folder from the `HostEnvironment` its composition root made, and waits on events.
    static let allowedAmbient: [String: String] = [
        "Sources/MicroappPlatform/HostEnvironment+Process.swift":
            "the one place a composition root's environment is read from the process: its clocks among the rest",
        "Sources/MicroappPlatform/ChildProcess.swift":
            "a child's wait has a deadline on the kernel's own clock: the time `poll` waits is real time",
        "Sources/MicroappSDK/Swift/RootDriver.swift":
            "the SDK a plugin's own tests link: it has no host environment; a test's settle deadline is real time",
        "Sources/MicroappSDK/Swift/Feature.swift":
            "the SDK's live default for a plugin's debounce clock (a plugin's test passes its own)",
        "Sources/MicroappPlatform/IsolatedRoot.swift":
            "a child's request deadlines are sleeps on the kernel's clock: the watchdog's live clock (tests pass theirs)",
        "Sources/MicroappTerminal/TerminalUI.swift":
            "the terminal times what a person sees (how long a notice stays) on the wall of the room, not the host's",
        "Sources/MicroappTerminal/LineSession.swift":
            "a scripted session's settle timeout is real time: it waits for a person's app to settle",
        "Sources/MicroappTool/GalleryLiveSolos.swift":
            "the gallery waits for another process to print its URL into a file, which no event announces",
    ]

    @Test(
        "no module reads a clock or the temporary folder of its own, or sleeps instead of waiting on an event: each exception is named with why",
        .offThePool)
    func timeAndPlacesAreInjected() throws {
        var found: [String] = []
        for folder in Self.shipped {
            found += try Self.uses(Self.ambientSpellings, in: Self.sources(folder)).map { "\(folder)/\($0)" }
        }
        let files = Set(found.map { String($0.prefix { $0 != ":" }) })
        #expect(found.filter { use in Self.allowedAmbient[String(use.prefix { $0 != ":" })] == nil } == [])
        #expect(
            Set(Self.allowedAmbient.keys).subtracting(files).sorted() == [], "no longer ambient: take it off the list")
    }

    /// Process-wide mutable state (a static `Mutex`, `Atomic` or stored `static var`), each with why it is not a value
    /// a composition root makes and passes down.
    static let processWideState: [String: String] = [
        "Sources/MicroappSDK/Swift/Entry.swift liveRegistrars":
            "the C entry point has no context argument: the features registered through it are found by the symbol's key",
        "Sources/MicroappPlatform/LibraryStore.swift swept":
            "once per process and store: a start that stores many libraries lists the store's folder once",
        "Sources/MicroappPlatform/LibraryCopy.swift copies":
            "the names of copies in this process's one folder of loaded copies, unique for the process's life",
        "Sources/MicroappPlatform/LibraryCopy.swift parent":
            "the supervised app's copies go in its supervisor's folder: one folder per process, removed at its exit",
        "Sources/MicroappPlatform/HostScratch.swift chosen":
            "the temporary folder the process's pid-named folders are in, told once by the composition root",
        "Sources/MicroappPlatform/Zygote.swift earlyTaken":
            "the template CPlatform forked before main is one per process and is taken once",
        "Sources/MicroappPlatform/UpdateSignal.swift listener":
            "a signal's handler is the process's: SIGUSR1 reaches one listener",
        "Sources/MicroappPlatform/UpdateSignal.swift installed":
            "a signal's handler is the process's: installed once",
        "Sources/MicroappDevLoop/BuildPlan.swift cache":
            "SwiftPM's plan read once per build folder and stamp, whichever of the loop's builders asks",
        "Sources/MicroappTool/ProgramName.swift current":
            "the name every message of the process says its command with, set once by the tool's dispatch",
        "Sources/MicroappTool/ProgramName.swift typedCommand":
            "the command as a person can type it (the host's name, or its path from a checkout), set beside current",
        "Sources/MicroappTool/Console.swift outputFailed":
            "stdout is the process's: a failed write anywhere makes the exit code 70",
        "Sources/MicroappTerminal/TerminalMode.swift exitHandlerInstalled":
            "the handler that gives the person's terminal back at exit is the process's, installed once",
    ]

    @Test("process-wide mutable state is only where it is named, each with why", .offThePool)
    func processWideStateIsNamed() throws {
        var found: [String] = []
        for folder in Self.shipped {
            for file in try Self.sources(folder) {
                for line in file.code.split(separator: "\n") where !line.contains("@TaskLocal") {
                    let words = line.split(whereSeparator: { " :=<(".contains($0) })
                    guard let index = words.firstIndex(of: "static"), index + 2 < words.count else { continue }
                    let (kind, name) = (words[index + 1], String(words[index + 2]))
                    // Stored: an `=` before any `{` (a computed `static var x: T { … }` holds nothing).
                    let declaration = line.drop { $0 != "=" && $0 != "{" }
                    let stored = kind == "var" && declaration.first == "="
                    let locked = kind == "let" && (line.contains("= Mutex") || line.contains("= Atomic"))
                    if stored || locked { found.append("\(folder)/\(file.name) \(name)") }
                }
            }
        }
        #expect(found.filter { Self.processWideState[$0] == nil } == [])
        #expect(Set(Self.processWideState.keys).subtracting(found).sorted() == [], "gone: take it off the list")
    }
}
