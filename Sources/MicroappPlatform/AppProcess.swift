import CPlatform
import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// The supervisor's app process and the system around it: started as a fork of this process while it is still
/// single-threaded (the usual case: a whole process start saved on the way to the first frame), else as a new
/// process of the executable; its ending read as the supervisor tells endings apart.
package enum AppProcess {
    /// How an app process start went.
    package enum Start {
        /// It ran and ended so.
        case ended(AppEnding)
        /// This is the forked app process: it goes on to run this command line, as if started with it.
        case appProcess([String])
        /// No process could be started.
        case notStarted(Problem)
    }

    /// The signals the supervisor ignores and its app process answers (ctrl-C quits the app cleanly).
    private static let appSignals = [SIGINT, SIGQUIT]

    /// Runs the app process with `arguments` and waits for it; SIGTERM and SIGHUP reaching this process meanwhile
    /// are passed on to it. `environment` is this process's, for a process started afresh; a crash report goes to
    /// `crashFile`.
    package static func start(
        _ executable: String, _ arguments: [String], crashFile: String, environment: [String: String]
    ) -> Start {
        let variables = variables(crashFile: crashFile)
        let defaults = appSignals + TerminationForwarding.signals + TerminationForwarding.passedOn
        switch try? ForkedProcess.fork(environment: variables, defaultSignals: defaults, crashReport: crashFile) {
        case .child: return .appProcess(arguments)
        case .parent(let child):
            return .ended(ending(of: TerminationForwarding.forward(to: child.pid) { child.wait() }))
        case nil: break
        }
        do {
            let child = try ChildProcess(
                [executable] + arguments, environment: environment.merging(variables) { $1 },
                input: .inherit, output: .inherit, error: .inherit, defaultSignals: defaults)
            return .ended(ending(of: TerminationForwarding.forward(to: child.pid) { child.wait().termination }))
        } catch {
            return .notStarted(
                Problem(
                    code: .appNotStarted, subject: executable,
                    reason: "could not start the app process (\(executable)): \(error.problem.reason)",
                    fix: "check that \(executable) runs"))
        }
    }

    /// The variables an app process gets on top of the supervisor's: its crash report to `crashFile`, the marker.
    private static func variables(crashFile: String) -> [String: String] {
        ChildLaunch.variables(backtrace: "enable=yes,interactive=no,output-to=\(crashFile)")
    }

    /// What CPlatform's constructor made of this process before `main` (early_supervisor.c): for a command line that
    /// is a supervised `run`, it forked the first app process there, so that process starts as an unsupervised one
    /// does (no copy of a started runtime to fault in again), and the supervisor waited for it before starting
    /// anything. Read once `main` runs.
    package enum EarlyStart {
        /// Nothing was forked before main.
        case none
        /// This is the first app process: it calls `takeOver()`, then runs the app as the supervisor would have
        /// started it (its state in `folder`).
        case appProcess(folder: SupervisorFolder)
        /// This is the supervisor, its first app process ended.
        case supervisor(FirstStart)
    }

    /// The supervisor's first app process, started and ended before `main`.
    package struct FirstStart {
        /// The supervisor's folder, made before the fork.
        package var folder: SupervisorFolder
        /// Where that process's crash report went.
        package var crashFile: String
        /// How it ended.
        package var ending: AppEnding
        /// The terminal's settings before it ran.
        package var terminal: SavedTerminal?
    }

    /// This process's part in a supervised run forked before main.
    package static var early: EarlyStart {
        guard let folder = microapp_early_supervisor_folder(), let base = microapp_early_supervisor_base(),
            let crashFile = microapp_early_supervisor_crash_file()
        else { return .none }
        let made = SupervisorFolder(path: String(cString: folder), base: String(cString: base))
        switch microapp_early_supervisor_role() {
        case Int32(microapp_early_supervisor_app.rawValue): return .appProcess(folder: made)
        case Int32(microapp_early_supervisor_parent.rawValue):
            return .supervisor(
                FirstStart(
                    folder: made, crashFile: String(cString: crashFile),
                    ending: ending(of: ChildProcess.Termination(waitStatus: microapp_early_supervisor_status())),
                    terminal: SavedTerminal.savedBeforeMain()))
        default: return .none
        }
    }

    /// In the first app process forked before main: tells the supervisor `main` took it over (it then goes on into
    /// `main` when this process ends, instead of ending as it did).
    package static func takeOver() { microapp_early_supervisor_took_over() }

    /// In the first app process forked before main, once its command line is known to be a supervised run: sets the
    /// variables a forked app process gets (its crash report's place, the internal marker).
    package static func becomeApp() {
        guard let crashFile = microapp_early_supervisor_crash_file() else { return }
        for (name, value) in variables(crashFile: String(cString: crashFile)) { setenv(name, value, 1) }
    }

    /// Ctrl-C goes to the whole process group: the child quits cleanly on it, and the supervisor waits to hear so.
    package static func ignoreInterrupts() {
        for signal in appSignals { Glibc.signal(signal, SIG_IGN) }
    }

    /// How the supervisor reads `termination`: a hang-up, termination or interrupt signal ended it on purpose, SIGPIPE as a
    /// program in a pipe, any other signal (or a kill at the time limit) is a crash.
    package static func ending(of termination: ChildProcess.Termination) -> AppEnding {
        switch termination {
        case .exited(let code): .exited(code)
        case .signalled(SIGHUP): .hungUp
        case .signalled(SIGTERM): .terminated
        case .signalled(SIGINT): .interrupted
        case .signalled(SIGPIPE): .outputClosed
        case .signalled(let number): .crashed(signal: number, name: String(cString: strsignal(number)))
        case .timedOut: .crashed(signal: SIGKILL, name: String(cString: strsignal(SIGKILL)))
        }
    }
}

/// The supervisor's own folder, made fresh with mode 0700 (never one that exists already at a predictable name: a
/// symbolic link planted there would have the state and crash files written where it points), and its files.
package struct SupervisorFolder: Sendable {
    /// The folder.
    package let path: String
    /// The temporary folder it was made in (where kept crash reports go).
    package let base: String

    /// `mkdtemp` of `<base>/microapp-run-XXXXXX` (`base`: `$TMPDIR` or `/tmp`, read by the caller).
    package static func make(in base: String) throws(SystemCallError) -> SupervisorFolder {
        var template = Array("\(base)/microapp-run-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SystemCallError(call: "mkdtemp", path: base, errno: errno)
        }
        return SupervisorFolder(path: String(cString: made), base: base)
    }

    /// Removes the folder and everything in it.
    package func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Where the app process records its state.
    package var stateFile: String { path + "/state.json" }

    /// A name of its own per start: the report file is created new (O_EXCL) when the app process crashes.
    package func crashFile(_ start: Int) -> String { path + "/crash-\(start).txt" }

    /// The text of the crash report at `file`; nil when none was written (or it is empty).
    package func report(at file: String) -> String? {
        (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Copies the crash report at `file` out of the folder (removed at the end) to a new file (O_EXCL, mode 0600) at
    /// a name no one could guess or plant beforehand in `base`; returns where, or nil when there was no report to
    /// keep (a process killed by SIGKILL writes none).
    package func keep(_ file: String) -> String? {
        guard let report = FileManager.default.contents(atPath: file), !report.isEmpty else { return nil }
        var template = Array("\(base)/microapp-crash-XXXXXX.txt".utf8CString)
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
}

/// The terminal's settings before the app ran, put back after a crash (the crashed child could not).
package struct SavedTerminal {
    private var settings: termios

    /// The settings of standard input, when it is a terminal.
    package static func save() -> SavedTerminal? {
        guard isatty(0) == 1 else { return nil }
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return nil }
        return SavedTerminal(settings: settings)
    }

    /// The settings standard input had before main, when CPlatform's constructor forked the first app process there
    /// (nil when it is no terminal).
    package static func savedBeforeMain() -> SavedTerminal? {
        var settings = termios()
        return microapp_early_supervisor_terminal(&settings) == 1 ? SavedTerminal(settings: settings) : nil
    }

    /// Puts the settings back, leaves the alternate screen and shows the cursor again.
    package func restore() {
        var settings = self.settings
        tcsetattr(0, TCSANOW, &settings)
        // A terminal that was closed answers EIO, which must not end the supervisor before it removes its folder.
        try? FileHandle.standardOutput.write(contentsOf: Data("\u{1B}[?1049l\u{1B}[?25h".utf8))
    }
}
