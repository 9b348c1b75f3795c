import CPlatform
import Dispatch
import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// One `microapp feature-host` process: the protocol socket (its standard input), pipes for its standard output
/// and error (never the host's own), and a private 0700 folder holding the copy of the library it maps and its
/// scratch folder. The folder is removed once the child ended.
package final class IsolatedChild: Sendable {
    package let channel: FeatureChannel
    package let process: IsolatedProcess
    package let folder: String
    /// The private copy of the library the child maps.
    package let library: String
    private let outputs: [Int32]
    /// Signalled by the thread of `watch` once the child was reaped and its folder removed.
    private let reaped = DispatchSemaphore(value: 0)
    /// Lines of stderr kept for the stop report.
    package static let tailLength = 20

    private init(channel: FeatureChannel, process: IsolatedProcess, folder: String, library: String, outputs: [Int32]) {
        self.channel = channel
        self.process = process
        self.folder = folder
        self.library = library
        self.outputs = outputs
    }

    /// Copies `library` into a new private folder (opened once, `LibraryCopy`: a symbolic link is resolved once and
    /// its target copied, never the link) and starts `executable feature-host` on the copy: forked from `zygote`
    /// when there is one (about a millisecond), else a process of its own, with `extra` feature-host options
    /// (`--mocks`). With `prepared` (the copy the start-up lock check made and hashed), that copy is moved into the
    /// folder instead of reading the library again. Blocks: call it off the main actor.
    ///
    /// `check` looks at the copy (its digest: the folder's lock) before any child maps it; the bytes checked are the
    /// bytes the child loads, not a file someone may replace meanwhile; its problem refuses the start.
    package static func spawn(
        library: String, prepared: LibraryCopy? = nil, executable: String, zygote: Zygote?,
        environment: [String: String], extra: [String] = [],
        check: (_ copy: LibraryCopy) -> Problem? = { _ in nil }
    ) throws(StartFailure) -> IsolatedChild {
        _ = LeftoverFolders.sweptOnce
        // The host's pid in the name: a later host removes the folder if this one was killed (`LeftoverFolders`).
        var template = Array((HostScratch.folder + "/microapp-feature-\(getpid())-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw .system(SystemCallError(call: "mkdtemp", errno: errno)) }
        let folder = String(cString: made)
        let scratch = folder + "/scratch"
        var socket: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        do throws(StartFailure) {
            // The child maps this copy, never the file a build may replace.
            let copy = try privateCopy(of: library, prepared: prepared, in: folder)
            do {
                try FileManager.default.createDirectory(
                    atPath: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .system(SystemCallError(call: "mkdir", path: scratch, errno: EIO))
            }
            if let problem = check(copy) { throw .refused(problem) }
            let process: IsolatedProcess
            do throws(SystemCallError) {
                try SystemCall.status("socketpair") {
                    socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &socket)
                }
                try SystemCall.run("pipe2") { microapp_pipe_cloexec(&output) }
                try SystemCall.run("pipe2") { microapp_pipe_cloexec(&errors) }
                let arguments = ["feature-host", "--library", copy.path, "--scratch", scratch] + extra
                process =
                    if let zygote {
                        .forked(try zygote.fork(arguments, input: socket[1], output: output[1], error: errors[1]))
                    } else {
                        .spawned(
                            try ChildProcess(
                                [executable] + arguments, environment: environment,
                                directory: scratch, input: .descriptor(socket[1]), output: .descriptor(output[1]),
                                error: .descriptor(errors[1])))
                    }
            } catch {
                throw .system(error)
            }
            [socket[1], output[1], errors[1]].forEach { _ = close($0) }
            return IsolatedChild(
                channel: FeatureChannel(descriptor: socket[0]), process: process, folder: folder, library: copy.path,
                outputs: [output[0], errors[0]])
        } catch {
            (socket + output + errors).filter { $0 >= 0 }.forEach { _ = close($0) }
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// The copy the child maps, in its `folder`: `prepared` moved there (linked, when it is a stored copy; the same
    /// file system), else `library` read once into it.
    private static func privateCopy(
        of library: String, prepared: LibraryCopy?, in folder: String
    ) throws(StartFailure) -> LibraryCopy {
        let name = (library as NSString).lastPathComponent
        if let prepared {
            // A stored copy is shared with other starts: linked (the same read-only inode), never moved away.
            let moved = folder + "/" + name
            if (prepared.isStored ? link(prepared.path, moved) : rename(prepared.path, moved)) == 0 {
                return LibraryCopy(original: prepared.original, path: moved, sha256: prepared.sha256)
            }
        }
        switch LibraryCopy.make(prepared?.path ?? library, in: folder, name: name) {
        case .success(let copy):
            guard let prepared else { return copy }
            return LibraryCopy(original: prepared.original, path: copy.path, sha256: copy.sha256)
        case .failure(let problem): throw .refused(prepared?.naming(problem) ?? problem)
        }
    }

    /// Why a child was not started.
    package enum StartFailure: Error {
        /// A system call failed (the copy, the socket, the fork).
        case system(SystemCallError)
        /// `check` refused the private copy.
        case refused(Problem)

        /// The failure as an error of its own kind, for callers that pass it on.
        package var error: any Error {
            switch self {
            case .system(let error): error
            case .refused(let problem): problem
            }
        }
    }

    /// Watches the child from one thread of its own (a thread each for its socket, its two pipes and its end cost a
    /// swap ≈ 0.7 ms of the host's CPU): each protocol message reaches `receive` and the channel's end `ended`, each
    /// line it prints `line` (`isError` for stderr, escape sequences removed), and once it ended `exited` gets how,
    /// with the last lines it wrote to stderr — all on the main actor. Call once.
    package func watch(
        receive: @escaping @MainActor (FeatureMessage) -> Void,
        ended: @escaping @MainActor (FeatureChannel.End) -> Void,
        line: @escaping @MainActor (String, Bool) -> Void,
        exited: @escaping @MainActor (ChildProcess.Termination, [String]) -> Void
    ) {
        let thread = Thread { [self] in
            var watch = ChildWatch(
                inbound: channel.inbound(receive: receive, ended: ended), outputs: outputs,
                end: process.endDescriptor, line: line)
            let termination = watch.untilEnded { process.wait() }
            channel.close()
            // Its last words come through the pipe after its end (a second at most: a grandchild may hold it).
            let tail = watch.stderrTail(waiting: .now + .seconds(1))
            try? FileManager.default.removeItem(atPath: folder)
            reaped.signal()
            DispatchQueue.main.async { MainActor.assumeIsolated { exited(termination, tail) } }
            watch.drain()
        }
        thread.name = "microapp child"
        thread.start()
    }

    /// A hard link to the copy of the library this child maps, in a folder of this process's pinned copies: later
    /// children of the same version start from it even after a new build replaced the original file. Nil when the
    /// link could not be made.
    package func pin() -> String? {
        let folder = Self.pinnedFolder
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return nil }
        let name = (folder as NSString).appendingPathComponent(
            (self.folder as NSString).lastPathComponent + "-" + ((library as NSString).lastPathComponent))
        return link(library, name) == 0 ? name : nil
    }

    /// Where `pin()` keeps its links: one folder per host process.
    private static var pinnedFolder: String { HostScratch.folder + "/microapp-pinned-\(getpid())" }

    /// Removes the pinned copies (the app is quitting).
    package static func removePinned() { try? FileManager.default.removeItem(atPath: pinnedFolder) }

    /// Kills the child (its end is reported through `exit`).
    package func kill() { process.signal(SIGKILL) }

    /// Kills the child and waits until the thread of `watch` reaped it and removed its folder (at most `limit`: a
    /// killed child ends at once), for a command that ends now. Only when that thread did not finish in time is the
    /// folder removed here: two removals of one tree at once can each give up on what the other took away.
    package func end(waitingAtMost limit: DispatchTimeInterval = .seconds(5)) {
        kill()
        guard reaped.wait(timeout: .now() + limit) == .timedOut else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A child process either way it was started.
    package enum IsolatedProcess: Sendable {
        /// Started afresh with posix_spawn.
        case spawned(ChildProcess)
        /// Forked from the zygote.
        case forked(ZygoteChild)

        /// The child's process id.
        package var pid: pid_t {
            switch self {
            case .spawned(let process): process.pid
            case .forked(let child): child.pid
            }
        }

        package func signal(_ number: Int32) {
            switch self {
            case .spawned(let process): process.signal(number)
            case .forked(let child): child.signal(number)
            }
        }

        /// A descriptor that polls readable once the child ended: `wait` then answers at once.
        package var endDescriptor: Int32 {
            switch self {
            case .spawned(let process): process.endDescriptor
            case .forked(let child): child.statusDescriptor
            }
        }

        /// Waits for its end (killing it once it had `timeout` of time it could run, if given); call once, on a
        /// thread of its own.
        package func wait(timeout: Duration? = nil) -> ChildProcess.Termination {
            switch self {
            case .spawned(let process): process.wait(timeout: timeout).termination
            case .forked(let child): child.wait(timeout: timeout)
            }
        }
    }
}
