import Foundation
import MicroappCore
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// `microapp run` as people start it: a small parent that runs the app in a child process and, when a plugin
/// crashes it, starts it again within a second without that plugin, on the route it was showing, with a banner
/// naming the plugin. Several crashes in a short time stop with a report (exit 3) instead of a loop.
enum Supervisor {
    /// Crashes this close together mean the app cannot be kept up.
    static let crashWindow: Duration = .seconds(10)
    static let crashLimit = 3

    /// How `run` ends: in the supervisor with its exit code; in an app process it forked (not started), with the
    /// command line that process is to run, as if it had been started with it.
    enum Outcome {
        case ended(ExitCode)
        case appProcess([String])
    }

    static func run(_ words: [String], environment: HostEnvironment) -> Outcome {
        let temporaryBase = environment.temporaryFolder
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        // A folder of its own, made fresh with mode 0700: never one that exists already at a predictable name (a
        // symbolic link planted there would have the state and crash files written where it points).
        guard let folder = makePrivateFolder(in: temporaryBase) else {
            Console.err(
                Problem(
                    code: "no-temporary-folder", subject: "",
                    reason:
                        "cannot make a temporary folder in \(temporaryBase) for the supervisor (\(String(cString: strerror(errno))))",
                    fix: "set TMPDIR to a writable folder, or run with --no-supervise")
            )
            return .ended(.usage)
        }
        // Removed by the supervisor alone: a forked app process leaves this function with the folder in use.
        var isSupervisor = true
        defer { if isSupervisor { try? FileManager.default.removeItem(atPath: folder) } }
        let stateFile = folder + "/state.json"
        let terminal = TerminalState.save()
        ignoreInterrupts()
        // `kill <supervisor>` or a closed terminal ends the app through this process, which then removes its folder.
        try? TerminationForwarding.install()
        var skipped: [String] = []
        var crashes: [(at: ContinuousClock.Instant, report: String)] = []
        var restart: [String] = []
        var starts = 0
        while true {
            // A name of its own per start: the report file is created new (O_EXCL) when the app process crashes.
            let crashFile = folder + "/crash-\(starts).txt"
            starts += 1
            // The app process's own options go before a `--` the person wrote, where they are still options.
            let end = words.firstIndex(of: "--") ?? words.endIndex
            let arguments =
                words[..<end] + ["--supervised", "--state-file", stateFile]
                + skipped.flatMap { ["--skip-library", $0] }
                + restart + words[end...]
            let signal: Int32
            switch startApp(executable, Array(arguments), crashFile: crashFile, environment: environment) {
            case .appProcess(let command):
                isSupervisor = false
                return .appProcess(command)
            case .ended(.exited(let code)): return .ended(ExitCode(rawValue: code) ?? .crashed)
            case .ended(.signalled(let number)) where terminationSignals.contains(number):
                // Ended on purpose (this process passed on a SIGTERM or SIGHUP, or someone sent it to the app):
                // as the shell reports a program a signal ended, not as a crash.
                terminal?.restore()
                return .ended(number == SIGHUP ? .hungUp : .terminated)
            case .ended(.signalled(let number)): signal = number
            case .ended(.timedOut): signal = SIGKILL
            }
            // The reader of the output went away (`| head -1`): the app ended as any program in a pipe does.
            guard signal != SIGPIPE else { return .ended(.outputClosed) }
            terminal?.restore()
            let report = (try? String(contentsOfFile: crashFile, encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
            var crash = CrashReport(report ?? "")
            if report == nil { crash.headline = "ended by signal \(signal), \(String(cString: strsignal(signal)))" }
            let now = environment.now()
            crashes.removeAll { now - $0.at > crashWindow }
            // The plugin at fault is the innermost frame in a library the app loaded, matched by full path: a
            // library of the same file name elsewhere (`libAuth.so` in a --plugins folder) is another plugin, and
            // a hot-swapped copy is turned off as the library its feature started from.
            let state = RecordedState.load(stateFile)
            let loaded = state?.libraries ?? [:]
            guard let image = crash.library(among: loaded.keys), let crashed = loaded[image],
                !skipped.contains(crashed.library)
            else {
                let kept = keep(crashFile, in: temporaryBase)
                Console.err(
                    Problem(
                        code: "app-crashed", subject: "",
                        reason: "the app crashed (\(crash.headline)) outside any plugin, so it cannot be isolated",
                        fix: "report it with "
                            + (kept ?? "the command line and what you did (no crash report was written)")))
                return .ended(.crashed)
            }
            crashes.append((now, "\(crashed.feature) in \(image): \(crash.headline)"))
            if crashes.count >= crashLimit {
                Console.err(
                    "microapp: \(crashes.count) plugin crashes within \(crashWindow); stopping instead of looping:")
                for entry in crashes { Console.err("  \(entry.report)") }
                Console.err("  to fix: run `microapp doctor` and fix or remove those plugins")
                if let kept = keep(crashFile, in: temporaryBase) { Console.err("  crash report: \(kept)") }
                return .ended(.crashed)
            }
            skipped.append(crashed.library)
            let crashedFeature = crashed.feature
            let place = crashed.swapped == true ? "\(image), a hot-swapped copy of \(crashed.library)" : crashed.library
            let message =
                "\(crashedFeature) crashed (\(crash.headline)) in \(place) and was turned off; the app restarted without it"
            restart = ["--crash-notice=\(message)"]
            // Back where the person was, unless that screen was the crashed feature's: then home (an empty --open).
            let route = state.flatMap { $0.feature == crashedFeature ? nil : $0.route } ?? ""
            restart += ["--open=\(route)"]
        }
    }

    /// A crash report worth keeping is copied out of the run's temporary folder (removed at the end); returns
    /// where, or nil when there was no report to keep (a process killed by SIGKILL writes none).
    private static func keep(_ crashFile: String, in temporaryBase: String) -> String? {
        guard let report = FileManager.default.contents(atPath: crashFile), !report.isEmpty else { return nil }
        // A new file (O_EXCL, mode 0600) at a name no one could guess or plant beforehand.
        var template = Array("\(temporaryBase)/microapp-crash-XXXXXX.txt".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard descriptor >= 0 else { return nil }
        let kept = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard (try? handle.write(contentsOf: report)) != nil else {
            unlink(kept)
            return nil
        }
        return kept
    }

    /// `mkdtemp` of `<temporaryBase>/microapp-run-XXXXXX`: a new folder, mode 0700; nil when it cannot be made.
    private static func makePrivateFolder(in temporaryBase: String) -> String? {
        var template = Array("\(temporaryBase)/microapp-run-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        return String(cString: made)
    }

    /// Ctrl-C goes to the whole process group: the child quits cleanly on it, and the parent waits to hear so.
    private static func ignoreInterrupts() {
        for signal in appSignals { Glibc.signal(signal, SIG_IGN) }
    }

    /// How an app process start went: how one that ended ended, or, in a forked app process, its command line.
    private enum AppStart {
        case ended(ChildProcess.Termination)
        case appProcess([String])
    }

    /// Runs the app process and waits for it. A fork of this process while it is still single-threaded (the usual
    /// case) saves a whole process start on the way to the first frame; otherwise, or when the fork fails, the
    /// executable is started again.
    private static func startApp(
        _ executable: String, _ arguments: [String], crashFile: String, environment: HostEnvironment
    ) -> AppStart {
        let variables = ChildLaunch.variables(backtrace: "enable=yes,interactive=no,output-to=\(crashFile)")
        let defaults = appSignals + terminationSignals
        switch try? ForkedProcess.fork(environment: variables, defaultSignals: defaults, crashReport: crashFile) {
        case .child: return .appProcess(arguments)
        case .parent(let child): return .ended(TerminationForwarding.forward(to: child.pid) { child.wait() })
        case nil:
            return .ended(
                spawnAndWait(executable, arguments, environment: environment.variables.merging(variables) { $1 }))
        }
    }

    /// The signals the supervisor ignores and its app process answers (ctrl-C quits the app cleanly).
    private static let appSignals = [SIGINT, SIGQUIT]
    /// The signals the supervisor passes on to its app process, which ends by them.
    private static let terminationSignals = TerminationForwarding.signals

    private static func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String: String])
        -> ChildProcess.Termination
    {
        do {
            let child = try ChildProcess(
                [executable] + arguments, environment: environment,
                input: .inherit, output: .inherit, error: .inherit, defaultSignals: appSignals + terminationSignals)
            return TerminationForwarding.forward(to: child.pid) { child.wait().termination }
        } catch {
            Console.err("microapp: could not start the app process (\(executable)): \(error.problem.reason)")
            return .exited(ExitCode.crashed.rawValue)
        }
    }
}

/// The terminal's settings before the app ran, put back after a crash (the crashed child could not).
private struct TerminalState {
    var settings: termios

    static func save() -> TerminalState? {
        guard isatty(0) == 1 else { return nil }
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return nil }
        return TerminalState(settings: settings)
    }

    func restore() {
        var settings = self.settings
        tcsetattr(0, TCSANOW, &settings)
        // Leave the alternate screen and show the cursor again; a terminal that was closed answers EIO, which must
        // not end the supervisor before it removes its folder.
        try? FileHandle.standardOutput.write(contentsOf: Data("\u{1B}[?1049l\u{1B}[?25h".utf8))
    }
}

/// What the app process records for its supervisor: where it is, and which feature each loaded library holds.
struct RecordedState: Codable {
    var route: String
    var feature: String
    /// Every plugin library the app process loaded, by canonical full path (as a crash report names it), hot-swapped
    /// copies included.
    var libraries: [String: RecordedLibrary]

    static func load(_ path: String) -> RecordedState? {
        try? JSONDecoder().decode(RecordedState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func save(_ path: String) {
        try? JSONEncoder().encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The libraries of `images`, each its own feature's starting library, keyed by the file mapped (its private
    /// copy, which a crash report names).
    static func libraries(of images: [PluginImage]) -> [String: RecordedLibrary] {
        Dictionary(
            images.map { image in
                (
                    canonicalPath(image.file),
                    RecordedLibrary(feature: image.manifest.id, library: canonicalPath(image.path))
                )
            }, uniquingKeysWith: { first, _ in first })
    }

    /// `path` with symbolic links, `.` and `..` resolved, as the kernel names a mapped file; `path` itself when it
    /// cannot be resolved (gone).
    static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// One loaded plugin library: the feature it holds and the library to turn off when it crashes (the file the
/// feature was started from, which for a hot-swapped copy is not the copy).
struct RecordedLibrary: Codable, Equatable {
    var feature: String
    var library: String
    /// True for a hot-swapped build's copy (false or absent: the copy the feature started from).
    var swapped: Bool?
}
