import Foundation
import TestScratch
import Testing

/// The engine's layers, read from their sources: SDK ← core ← the system layer (MicroappPlatform) ← the capability
/// modules (loading ← isolation, shipping) ← dev loop ← host ← front ends ← tool; system calls only in the system
/// layer.
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

    /// `file: word` for each word of `words` that a file of `files` uses, a call (`kill(`) only when it is a
    /// function's: `child.kill()` and `microapp_fork()` call a method or a function of the system layer, not the C
    /// library's (`Glibc.kill(` is caught by `Glibc.`).
    static func calls(_ words: [String], in files: [(name: String, code: String)]) -> [String] {
        files.flatMap { file in
            words.filter { word in
                guard word.hasSuffix("("), let first = word.first, first.isLetter || first == "_" else {
                    return file.code.contains(word)
                }
                var rest = file.code[...]
                while let found = rest.range(of: word) {
                    let before =
                        found.lowerBound == file.code.startIndex
                        ? " " : file.code[file.code.index(before: found.lowerBound)]
                    if !(before.isLetter || before.isNumber || before == "_" || before == ".") { return true }
                    rest = file.code[found.upperBound...]
                }
                return false
            }.map { "\(file.name): \($0)" }
        }
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

    /// The engine's modules from the bottom up, modules of one row beside each other: each imports only modules of
    /// the rows below its own. The system layer imports no capability module; loading neither isolation nor shipping;
    /// isolation and shipping not each other.
    static let engineLayers: [[String]] = [
        ["MicroappCore"], ["MicroappPlatform"], ["MicroappLoading"], ["MicroappIsolation", "MicroappShipping"],
        ["MicroappDevLoop"], ["MicroappHost"], ["MicroappTerminal"], ["MicroappWeb"], ["MicroappTool"],
    ]

    /// `Module/file: import Other` for each import of an engine module drawn on the importer's row or above it, the
    /// sources of `Sources/<Module>` read by `read`.
    static func importsUp(reading read: (String) throws -> [(name: String, code: String)]) rethrows -> [String] {
        let all = engineLayers.flatMap { $0 }
        var found: [String] = []
        for (row, modules) in engineLayers.enumerated() {
            let below = Set(engineLayers[..<row].joined())
            for module in modules {
                let banned = all.filter { !below.contains($0) && $0 != module }.map { "import \($0)" }
                found += try uses(banned, in: read("Sources/\(module)")).map { "\(module)/\($0)" }
            }
        }
        return found
    }

    @Test(
        "imports point one way, down the engine's layers: the core sees only the SDK, the system layer no capability, loading neither isolation nor shipping",
        .offThePool)
    func importsPointOneWay() throws {
        #expect(try Self.importsUp { try Self.sources($0) } == [])
        // A rule that fails: loading importing isolation, and the system layer importing shipping, are caught.
        let upward = Self.importsUp { folder in
            folder == "Sources/MicroappLoading"
                ? [("PluginSet.swift", "import MicroappIsolation")]
                : folder == "Sources/MicroappPlatform" ? [("Files.swift", "import MicroappShipping")] : []
        }
        #expect(
            upward == [
                "MicroappPlatform/Files.swift: import MicroappShipping",
                "MicroappLoading/PluginSet.swift: import MicroappIsolation",
            ])
    }

    @Test(
        "dlopen is called in one Swift file of the whole package, the system layer's DynamicLibrary, and in one C file, the opener of the system libraries loaded on demand",
        .offThePool)
    func oneLoader() throws {
        let callers = try Self.shipped.flatMap { folder in
            try Self.uses(["dlopen("], in: Self.sources(folder)).map { "\(folder)/\($0)" }
        }
        #expect(callers == ["Sources/MicroappPlatform/DynamicLibrary.swift: dlopen("])
        let cFolders = [
            "Sources/CPlatform", "Sources/CCrypto", "Sources/CFetch", "Sources/CWebServer", "Sources/CWebPage",
        ]
        let cCallers = try cFolders.flatMap { folder in
            try Self.uses(["dlopen("], in: Self.sources(folder, suffix: ".c")).map { "\(folder)/\($0)" }
        }
        #expect(cCallers == ["Sources/CPlatform/library_on_demand.c: dlopen("])
    }

    @Test(
        "processes are started only by the system layer's runners: ChildProcess (posix_spawn), ForkedProcess and Zygote (fork)",
        .offThePool)
    func oneProcessRunner() throws {
        let starters = try Self.shipped.flatMap { folder in
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

    /// The system layer: the one module that calls the operating system (files, processes and fork, the zygote, the
    /// sandbox's mechanisms, ELF, the one dlopen, libcurl's downloads).
    static let systemLayer = "Sources/MicroappPlatform"

    /// The capability modules, each on the system layer and calling the system only through it.
    static let capabilities = ["Sources/MicroappLoading", "Sources/MicroappIsolation", "Sources/MicroappShipping"]

    /// Every Swift module of the package but the system layer's (and the digest's binding), by folder: what must call
    /// the system through it.
    static let abovePlatform =
        [
            "Sources/MicroappCore", "Sources/MicroappSDK/Swift", "Sources/MicroappTesting", "Sources/CommandLineSpec",
            "Sources/DemoContracts", "Sources/MicroappDevLoop", "Sources/MicroappHost", "Sources/MicroappTerminal",
            "Sources/MicroappWeb", "Sources/MicroappTool", "hosts/microapp/CLI", "hosts/monolith",
        ] + capabilities

    /// The terminal front end drives the person's terminal, a device of its own, not the engine's: raw mode and the
    /// signal handlers that put it back (termios, CPlatform's terminal guard), keys read from stdin, frames written to
    /// stdout unbuffered, and whether stdin and stdout are a terminal. Moving those four behind the system layer would
    /// make the front end depend on the engine's for a handful of calls the engine never makes.
    static let terminalDevice = "the person's terminal, a device of its own: raw mode, keys, frames, isatty"

    /// Files of `abovePlatform` allowed a system call of their own, each with why.
    static let allowedSystemCalls: [String: String] = [
        "Sources/MicroappTerminal/FrontEnd.swift": terminalDevice,
        "Sources/MicroappTerminal/KeyReader.swift": terminalDevice,
        "Sources/MicroappTerminal/StandardStreams.swift": terminalDevice,
        "Sources/MicroappTerminal/TerminalMode.swift": terminalDevice,
        // Capability files moved whole from the platform that still make a call of their own, each to go through the
        // system layer when the system layer has its kind of call.
        "Sources/MicroappLoading/PluginLock.swift":
            "reads the lock and a library's bytes with Foundation's throwing reader, whose error is the problem's reason",
        "Sources/MicroappLoading/PluginProbe.swift":
            "talks to its standby child over their socket (send, MSG_NOSIGNAL) and removes the child's report file",
        "Sources/MicroappLoading/PluginProbe+Child.swift":
            "the child's side of that socket: the byte saying the path arrived (send, MSG_NOSIGNAL)",
        "Sources/MicroappShipping/ChannelSource.swift":
            "reads a file channel's files with O_NOFOLLOW, counting each read against the check's cap",
        "Sources/MicroappShipping/InstallStaging.swift":
            "stages an installation beside its target in a pid-named folder and swaps the two (renameat2, CPlatform)",
        "Sources/MicroappShipping/PluginVersions.swift":
            "renames a durably written version into place (rename, unlink what a failed one left), pid-named folders",
        "Sources/MicroappShipping/ReleaseKeyFile.swift":
            "the signing key's file: made 0600 with O_EXCL and O_NOFOLLOW, its owner and mode checked before a read",
    ]

    /// The C targets and bindings below or beside the system layer, by folder, each with why it is placed there.
    static let belowCapabilities: [String: String] = [
        "Sources/CPlatform": "the system calls Swift cannot make safely, which only the system layer imports",
        "Sources/CCrypto": "libcrypto's SHA-256 and Ed25519, which only the digest imports",
        "Sources/CWebServer": "the browser front end's C: libmicrohttpd's two variadic calls",
        "Sources/CWebPage": "the browser front end's page, embedded as bytes",
        "Sources/CFetch": "libcurl's easy interface for a channel's downloads, which only the system layer imports",
        "Sources/MicroappDigest": "SHA-256 and Ed25519 from libcrypto: a binding of C functions, no system call",
        "hosts/microapp/CSQLite": "the demo host's SQLite, a system library its services bind",
        "hosts/microapp/CCrypt": "the demo host's crypt(3), a system library its services bind",
    ]

    /// What the layer rules place, by module: `Sources/<Module>`, or a host's target folder (`hosts/<app>/<Target>`).
    static func module(of folder: String) -> String {
        folder.split(separator: "/").prefix(folder.hasPrefix("hosts/") ? 3 : 2).joined(separator: "/")
    }

    /// The folders of `manifest`'s targets in Sources/ and hosts/ (its `path: "…"` arguments, and a `.package(path:)`
    /// that is one of the package's modules) that no rule here places.
    static func unplaced(in manifest: String) -> [String] {
        let placed = Set(
            ([systemLayer] + abovePlatform + Array(belowCapabilities.keys) + ["hosts/microapp/Services"]).map(module))
        let folders = manifest.components(separatedBy: "path: \"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        return Set(folders.filter { $0.hasPrefix("Sources/") || $0.hasPrefix("hosts/") }.map(module))
            .subtracting(placed).sorted()
    }

    @Test(
        "every module of Package.swift and Sources/ is placed: the system layer, a capability on it, a C target, the digest's binding, or above them",
        .offThePool)
    func everyModuleIsPlaced() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(Self.unplaced(in: manifest) == [])
        let folders = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources").path)
        #expect(
            Self.unplaced(in: folders.filter { !$0.hasPrefix(".") }.map { "path: \"Sources/\($0)\"" }.joined()) == [])
        // A rule that fails: a target the lists do not name is caught.
        let added = manifest + #".target(name: "MicroappNew", path: "Sources/MicroappNew"),"#
        #expect(Self.unplaced(in: added) == ["Sources/MicroappNew"])
    }

    @Test(
        "only the system layer calls the system: no other module imports Glibc or CPlatform, or calls FileManager or a C function (each exception named with why)",
        .offThePool)
    func onlyTheSystemLayerCallsTheSystem() throws {
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
            found += Self.calls(forbidden, in: files).map { "\(folder)/\($0)" }.filter { use in
                Self.allowedSystemCalls[String(use.prefix { $0 != ":" })] == nil
            }
        }
        #expect(found == [])
        // Each exception still is one: a file that no longer calls the system leaves the list.
        let excepted = try Self.allowedSystemCalls.keys.sorted().filter { path in
            let folder = (path as NSString).deletingLastPathComponent
            let name = (path as NSString).lastPathComponent
            return try Self.calls(forbidden, in: Self.sources(folder).filter { $0.name == name }).isEmpty
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
            systemLayer, "Sources/MicroappDigest", "hosts/microapp/Services",
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
        "Sources/MicroappPlatform/FileLock.swift":
            "`flock` has no timeout and no event: an edit's bounded wait for another process's lock polls in real time",
        "Sources/MicroappSDK/Swift/RootDriver.swift":
            "the SDK a plugin's own tests link: it has no host environment; a test's settle deadline is real time",
        "Sources/MicroappSDK/Swift/Feature.swift":
            "the SDK's live default for a plugin's debounce clock (a plugin's test passes its own)",
        "Sources/MicroappIsolation/IsolatedRoot.swift":
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
        "Sources/MicroappPlatform/SandboxPolicy.swift templateReadPaths":
            "the runtime's paths read once by the template before its first fork, which each forked child inherits",
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
