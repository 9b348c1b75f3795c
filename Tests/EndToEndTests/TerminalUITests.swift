import Foundation
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The interactive terminal UI as a person sees it: the real binary in a tmux pane of 80×24.
final class TmuxPane {
    /// The server's socket, in the test run's scratch folder: tmux never removes its socket when its server ends (a
    /// dead one stayed in /tmp/tmux-UID for every pane of every run), so the pane removes it (`close`, `deinit`).
    let socket = Scratch.root.appendingPathComponent("tmux-\(UUID().uuidString.prefix(8))").path
    private let session = "app"

    init(_ command: String, environment: [String: String] = [:]) throws {
        let exports = Scratch.environment.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
            .joined(separator: " ")
        try tmux(["new-session", "-d", "-x", "80", "-y", "24", "-s", session, "env \(exports) \(command)"])
    }

    /// What the pane shows now, one string per line.
    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", session]) }

    /// Sends keys: tmux key names (`Enter`, `Tab`, `Escape`) or, with `literal`, text to type.
    func send(_ keys: String, literal: Bool = false) throws {
        try tmux(["send-keys", "-t", session] + (literal ? ["-l", keys] : [keys]))
    }

    /// Waits until the pane shows every one of `texts`; returns the screen.
    @discardableResult
    func waitFor(_ texts: String..., timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try screen()
            if texts.allSatisfy(last.contains) { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw AppProcessError("the terminal never showed \(texts); it shows:\n\(last)")
    }

    /// True while the program in the pane runs (the session ends with it).
    var isRunning: Bool { (try? tmux(["has-session", "-t", session])) != nil }

    /// Runs tmux with posix_spawn and waitpid. Foundation's Process is not used here: it waits for every process
    /// that inherited its descriptors, and the tmux server that `new-session` forks lives on.
    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let outputPath = Scratch.root.appendingPathComponent("tmux-\(UUID().uuidString)").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The tmux server forked here lives on: it must not keep other tests' pipes open (an app whose stdin pipe
        // it held would never see EOF). glibc has the call, the Glibc module does not show it.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw AppProcessError("this C library lacks posix_spawn_file_actions_addclosefrom_np (glibc ≥ 2.34)")
        }
        _ = unsafeBitCast(closeFrom, to: CloseFrom.self)(&actions, 3)
        let argv = (["tmux", "-S", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // A thread of the test runner may block signals, and a spawned process inherits the mask: a tmux server
        // (and the app in its pane) that blocks SIGHUP and SIGTERM outlives `kill-server`.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid = pid_t()
        guard posix_spawnp(&pid, "tmux", &actions, &attributes, argv, environ) == 0 else {
            throw AppProcessError("tmux could not be started: is it installed? (apt-get install tmux)")
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else {
            throw AppProcessError("tmux \(arguments.joined(separator: " ")) failed (wait status \(status))")
        }
        return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// Closes the terminal as a person closing its window does: the tmux server goes, the app's terminal hangs up.
    func close() throws {
        defer { unlink(socket) }
        _ = try tmux(["kill-server"])
    }

    /// Ends the server if it still runs (its session ends with the program in it) and removes its socket.
    deinit {
        _ = try? tmux(["kill-server"])
        unlink(socket)
    }
}

@Suite("End to end: the terminal UI in tmux", .serialized, .promptResumes)
struct TerminalUITests {
    @Test(
        "a pane's tmux socket is removed once its server ends: when the terminal is closed, and when the program in it ended by itself"
    )
    func tmuxSocketsAreRemoved() async throws {
        let closed = try TmuxPane("sleep 60")
        #expect(FileManager.default.fileExists(atPath: closed.socket), "the server listens at \(closed.socket)")
        try closed.close()
        #expect(!FileManager.default.fileExists(atPath: closed.socket))

        var ended: TmuxPane? = try TmuxPane("true")
        let socket = try #require(ended?.socket)
        while ended?.isRunning == true { try await Task.sleep(for: .milliseconds(20)) }
        ended = nil
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test("a person signs in with the keyboard and sees the characters list, then quits with q")
    func signInWithKeyboard() async throws {
        let pane = try TmuxPane(
            "\(AppProcess.executable) --no-build --data \(AppProcess.freshDataDirectory())",
            environment: ["NO_COLOR": "1"])
        let welcome = try await pane.waitFor("Microapps · Auth", "Create account", "auth://select")
        #expect(welcome.contains("signed out"))
        try await pane.typeRicksCredentials()
        try pane.send("Tab")
        try await pane.waitFor("[>Sign in<]")
        try pane.send("Enter")
        let list = try await pane.waitFor("Microapps · Characters", "Rick Sanchez", "rick@example.com")
        #expect(list.contains("characters://list"))
        #expect(!list.contains("portal-gun"))
        try pane.send("Escape")
        try pane.send("q", literal: true)
        let deadline = ContinuousClock.now + .seconds(5)
        while pane.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!pane.isRunning)
    }

    @Test(
        "closing the terminal of a supervised app (SIGHUP, a terminal answering EIO) leaves no folder of the run behind"
    )
    func closedTerminalLeavesNothing() async throws {
        let temporary = Scratch.root.appendingPathComponent("hangup-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let runFolders = {
            ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).filter {
                $0.hasPrefix("microapp-run-")
            }
        }
        let pane = try TmuxPane(
            "\(AppProcess.executable) --no-build --data \(AppProcess.freshDataDirectory())",
            environment: ["NO_COLOR": "1", "TMPDIR": temporary.path])
        try await pane.waitFor("Microapps · Auth", "auth://select")
        #expect(runFolders().count == 1, "the supervisor made its folder")
        try pane.close()
        let deadline = ContinuousClock.now + .seconds(15)
        while !runFolders().isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(runFolders().isEmpty, "left behind: \(runFolders())")
    }

    @Test(
        "what an isolated feature prints never reaches the app's screen; ctrl-l opens a log of it with the feature's name, ctrl-l closes it"
    )
    func logView() async throws {
        let plugins = try await IsolationTests.printer.value
        let pane = try TmuxPane(
            "\(AppProcess.executable) run --no-build --no-supervise --isolation process --plugins \(plugins.path)"
                + " --only printer --open printer://home --data \(AppProcess.freshDataDirectory())",
            environment: ["NO_COLOR": "1"])
        // The footer offers the log once the feature's printed lines reached the host.
        let screen = try await pane.waitFor("Printer", "Crash", "ctrl-l log", "printer://home")
        #expect(!screen.contains("hello from the plugin") && !screen.contains("forged"))
        try pane.send("C-l")
        let log = try await pane.waitFor("Log · what isolated features printed", "printer │ hello from the plugin")
        #expect(log.contains("printer │ {\"type\":\"frame\",\"forged\":true}"))
        #expect(!log.contains("[31m") && !log.contains("[0m"), "escape sequences were removed")
        #expect(!log.contains("Crash"), "the log takes the screen's place")
        #expect(log.contains("ctrl-l/esc close log"))
        try pane.send("C-l")
        let back = try await pane.waitFor("Crash", "ctrl-l log ·")
        #expect(!back.contains("hello from the plugin"))
        try pane.send("q", literal: true)
        let deadline = ContinuousClock.now + .seconds(5)
        while pane.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!pane.isRunning)
    }

    @Test(
        "mistyped addresses: one problem screen that says why once under a proper header, back returns where the person was with no stale error, a bad id and a missing character offer Back, and the footer fits 80 columns"
    )
    func mistypedAddresses() async throws {
        let pane = try TmuxPane(
            "\(AppProcess.executable) --no-build --data \(AppProcess.freshDataDirectory())",
            environment: ["NO_COLOR": "1"])
        try await pane.waitFor("Microapps · Auth", "auth://select")
        try await pane.typeRicksCredentials()
        try pane.send("Enter")
        let list = try await pane.waitFor("Rick Sanchez", "characters://list", "[1 Characters]")
        #expect(list.contains("esc back · ctrl-c quit"), "the footer at 80 columns:\n\(list)")
        for url in ["characters://nope", "nowhere://at/all"] {
            try pane.send(":", literal: true)
            try pane.send(url, literal: true)
            try pane.send("Enter")
            try await pane.waitFor("Cannot open \(url)")
        }
        let problem = try await pane.waitFor("Cannot open nowhere://at/all", "no loaded feature answers")
        let header = problem.components(separatedBy: "\n")[0]
        #expect(header.hasPrefix(" Microapps   ") && !header.contains("v0"), "\(header)")
        #expect(problem.components(separatedBy: "no loaded feature answers").count == 2, "said once:\n\(problem)")
        // One Back leaves the failed attempts: they replaced each other on the stack.
        try pane.send("Escape")
        let back = try await pane.waitFor("Rick Sanchez", "characters://list")
        #expect(!back.contains("no loaded feature") && !back.contains("no route like it"), "\(back)")

        try pane.send(":", literal: true)
        try pane.send("characters://detail/abc", literal: true)
        try pane.send("Enter")
        let bad = try await pane.waitFor("characters://detail/abc", "[>Back<]")
        #expect(bad.contains("✗ No such screen"))
        try pane.send("Enter")
        try await pane.waitFor("Rick Sanchez", "characters://list")

        try pane.send(":", literal: true)
        try pane.send("characters://detail/99999", literal: true)
        try pane.send("Enter")
        let missing = try await pane.waitFor("No character with id 99999", "[>Back<]")
        #expect(!missing.contains("Retry"))
        try pane.send("Enter")
        try await pane.waitFor("Rick Sanchez", "characters://list")
    }

    @Test("a route whose parameter the feature cannot read writes an error line in JSON and offers Back")
    func badParameterInJSON() async throws {
        let app = try AppProcess(["run", "--ui", "json", "--open", "characters://detail/abc"])
        try await app.waitForFrame(route: "auth://select")
        try app.signInAsRick()
        let error = try await app.waitFor("error") { $0["code"] as? String == "screen-error" }
        #expect((error["message"] as? String)?.contains("characters://detail/abc") == true)
        try await app.waitForFrame(route: "characters://detail/abc") { screenText($0).contains("Back") }
        try app.send([["type": "tap", "id": "back"]])
        try await app.waitForFrame(route: "characters://list")
        #expect(try await app.finish() == 0)
    }
}
