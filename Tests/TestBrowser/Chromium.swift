import Foundation
import Synchronization
import TestScratch

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's `chromium`, headless, driven over the DevTools protocol on a pipe: it reads commands on its file
/// descriptor 3 and writes answers and events on 4, each a JSON object followed by a NUL byte. One browser serves a
/// test process (`shared()`); it is killed when the process exits. Pages are `BrowserPage`s.
public final class Chromium: Sendable {
    /// Where Debian installs it.
    public static let executable = "/usr/bin/chromium"
    /// The window every page gets: what screenshots show.
    public static let windowSize = (width: 1280, height: 800)

    /// The browser of this test process, started on first use. Throws (a test fails, never skips) when chromium is
    /// missing or does not answer.
    public static func shared() throws(BrowserError) -> Chromium {
        try started.get()
    }

    private static let started: Result<Chromium, BrowserError> = Result { () throws(BrowserError) in
        try Chromium()
    }

    /// A command waiting for its answer.
    private struct Pending {
        let method: String
        let continuation: CheckedContinuation<Data, any Error>
    }

    private struct State {
        var nextID = 1
        var pending: [Int: Pending] = [:]
        var ended: String?
    }

    private let state = Mutex(State())
    private let processID: pid_t
    /// The write end of the browser's fd 3, written under `writeLock`.
    private let commands: Int32
    private let writeLock = Mutex(())

    private init() throws(BrowserError) {
        guard access(Self.executable, X_OK) == 0 else {
            throw BrowserError(
                "\(Self.executable) is not installed, and the browser tests need it; "
                    + "to fix: sudo apt-get install chromium (Debian's package, as .ci/run installs it)")
        }
        // Both pipes close on exec; the child gets its two ends as 3 and 4 through dup2, which clears the flag.
        let toBrowser = try Self.pipe()
        let fromBrowser = try Self.pipe()
        let profile = Scratch.folder("chromium-profile").path
        let arguments = [
            Self.executable, "--headless=new", "--no-sandbox", "--remote-debugging-pipe", "--user-data-dir=\(profile)",
            "--window-size=\(Self.windowSize.width),\(Self.windowSize.height)", "--no-first-run",
            "--no-default-browser-check", "--disable-gpu", "--disable-extensions", "--disable-sync",
            "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows", "--mute-audio", "--password-store=basic", "about:blank",
        ]
        let environment = Scratch.childEnvironment().map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, toBrowser.read, 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser.write, 4)
        // Nothing else of this process reaches the browser: Foundation tells that a process it started has ended by
        // the end of a socket that process holds, and a browser holding a copy (inherited while another test was
        // starting a process) would make that process run forever as far as Foundation knows (seen: a test waiting
        // on a long-finished swiftc).
        try Self.closeFrom(5, in: &actions)
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                posix_spawn(&pid, Self.executable, &actions, nil, argv, envp)
            }
        }
        close(toBrowser.read)
        close(fromBrowser.write)
        guard status == 0 else {
            close(toBrowser.write)
            close(fromBrowser.read)
            throw BrowserError(
                "cannot start \(Self.executable): \(String(cString: strerror(status))); "
                    + "to fix: check that it runs (chromium --version)")
        }
        processID = pid
        commands = toBrowser.write
        Self.children.withLock { $0.append(pid) }
        _ = Self.killAtExit
        let answers = fromBrowser.read
        Thread.detachNewThread { [self] in readAnswers(from: answers) }
    }

    /// Sends `method` with `params` (to the page `session` when given) and returns the answer's `result` as JSON.
    public func send(_ method: String, _ params: [String: any Sendable] = [:], session: String? = nil) async throws
        -> Data
    {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        let bytes = try JSONSerialization.data(withJSONObject: message) + [0]
        return try await withCheckedThrowingContinuation { continuation in
            let ended = state.withLock { state -> String? in
                if let ended = state.ended { return ended }
                state.pending[id] = Pending(method: method, continuation: continuation)
                return nil
            }
            if let ended {
                continuation.resume(throwing: BrowserError("chromium is gone (\(ended)); \(method) was not sent"))
                return
            }
            writeLock.withLock { _ in
                bytes.withUnsafeBytes { buffer in
                    var offset = 0
                    while offset < buffer.count {
                        let written = write(commands, buffer.baseAddress! + offset, buffer.count - offset)
                        if written < 0 && errno == EINTR { continue }
                        if written <= 0 { break }
                        offset += written
                    }
                }
            }
        }
    }

    /// A new page, in a browser context of its own (its own cookies) unless `context` names one, showing `url`.
    public func newPage(_ url: String, context: String? = nil) async throws -> BrowserPage {
        let contextID: String
        if let context {
            contextID = context
        } else {
            contextID = try Self.string(try await send("Target.createBrowserContext"), "browserContextId")
        }
        // A new context opens a new window of the window's size; a sibling is a tab in its window.
        var target: [String: any Sendable] = ["url": "about:blank", "browserContextId": contextID]
        if context == nil { target.merge(["width": Self.windowSize.width, "height": Self.windowSize.height]) { $1 } }
        let targetID = try Self.string(try await send("Target.createTarget", target), "targetId")
        let session = try Self.string(
            try await send("Target.attachToTarget", ["targetId": targetID, "flatten": true]), "sessionId")
        let page = BrowserPage(
            browser: self, target: targetID, session: session, context: contextID, ownsContext: context == nil)
        try await page.prepare()
        if url != "about:blank" { try await page.navigate(url) }
        return page
    }

    /// The string `key` of an answer's result.
    static func string(_ result: Data, _ key: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: result) as? [String: Any]
        guard let value = object?[key] as? String else {
            throw BrowserError("chromium's answer has no \(key): \(String(decoding: result, as: UTF8.self))")
        }
        return value
    }

    // MARK: The pipe

    /// Reads NUL-separated messages until the browser closes its end; answers resume their commands, events are
    /// not needed by the tests and are dropped.
    private func readAnswers(from descriptor: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer += chunk[0..<count]
            while let end = buffer.firstIndex(of: 0) {
                deliver(Data(buffer[..<end]))
                buffer.removeSubrange(...end)
            }
        }
        close(descriptor)
        let pending = state.withLock { state in
            state.ended = "its pipe closed"
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for command in pending {
            command.continuation.resume(
                throwing: BrowserError("chromium closed its pipe before answering \(command.method)"))
        }
    }

    private func deliver(_ message: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any],
            let id = object["id"] as? Int
        else { return }
        guard let command = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
        if let error = object["error"] as? [String: Any] {
            let words = error["message"] as? String ?? "\(error)"
            command.continuation.resume(throwing: BrowserError("chromium refused \(command.method): \(words)"))
            return
        }
        let result = object["result"] ?? [String: Any]()
        command.continuation.resume(
            returning: (try? JSONSerialization.data(withJSONObject: result)) ?? Data("{}".utf8))
    }

    // MARK: The process

    private static let children = Mutex<[pid_t]>([])

    /// Kills every browser this process started when it exits (they would outlive it otherwise).
    private static let killAtExit: Void = {
        atexit {
            for pid in Chromium.children.withLock({ $0 }) {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
    }()

    /// Adds glibc's `posix_spawn_file_actions_addclosefrom_np(from)` (2.34 and later; declared for _GNU_SOURCE only,
    /// which Swift's Glibc module does not define, so it is looked up by name).
    private static func closeFrom(_ from: Int32, in actions: inout posix_spawn_file_actions_t) throws(BrowserError) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw BrowserError(
                "this C library has no posix_spawn_file_actions_addclosefrom_np, which starting chromium needs; "
                    + "to fix: run the tests on glibc 2.34 or later (Debian 12 has 2.36)")
        }
        let status = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, from)
        guard status == 0 else {
            throw BrowserError("cannot arrange chromium's descriptors: \(String(cString: strerror(status)))")
        }
    }

    /// A pipe whose two ends are above the standard descriptors and 3 and 4 (so a dup2 onto 3 or 4 always copies)
    /// and close on exec. (Glibc's pipe2 is not visible to Swift: a process another test starts in the instant before
    /// the move may inherit the first two descriptors, which costs nothing but their being open in it.)
    private static func pipe() throws(BrowserError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else {
            throw BrowserError("cannot make a pipe for chromium: \(String(cString: strerror(errno)))")
        }
        let high = ends.map { end -> Int32 in
            let moved = fcntl(end, F_DUPFD_CLOEXEC, 10)
            close(end)
            return moved
        }
        return (high[0], high[1])
    }
}

/// `strings` as a NULL-terminated array of C strings for the duration of `body`.
private func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}

/// What went wrong driving the browser, in words a failing test shows.
public struct BrowserError: Error, CustomStringConvertible, Sendable {
    /// What, why and the fix.
    public let description: String

    /// An error that says `description`.
    public init(_ description: String) {
        self.description = description
    }
}
