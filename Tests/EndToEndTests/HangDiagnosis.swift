import Foundation
import MicroappPlatform
import Synchronization

/// What a process that stopped answering is doing, for a test's failure message: each process of its tree (it and
/// every descendant, such as an isolated feature's child), each thread's state and kernel wait channel, and where gdb
/// is installed, every thread's stack. A hang that happens once in many loaded runs is then diagnosed by the run it
/// happened in.
enum HangDiagnosis {
    /// The diagnosis of `pid` and its descendants.
    static func tree(_ pid: Int32) -> String {
        ([pid] + descendants(of: pid)).map { process in
            let command = (try? String(contentsOfFile: "/proc/\(process)/cmdline", encoding: .utf8)) ?? ""
            return "process \(process) (\(command.replacingOccurrences(of: "\0", with: " ")))\n" + threads(of: process)
        }.joined(separator: "\n")
    }

    /// Each thread of `pid`: its state and wait channel, then its stacks from gdb when there is one.
    ///
    /// A process in a PID namespace of its own (an isolated feature's, `ProcessNamespaces`) gets its kernel stacks
    /// instead: gdb attached from outside takes the thread ids its libthread_db reads in the process's memory for ids
    /// of this namespace (gdb warns that they are unreliable), and once waited out its whole limit with the feature in
    /// tracing stop; three such processes per feature made one report of the hostile corpus outlast the suite.
    static func threads(of pid: Int32) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let nested = inNestedNamespace(pid)
        var lines = tasks.sorted().map { task in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)) ?? ""
            let wchan = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? ""
            let line = "  thread \(task): \(stat.split(separator: ")").last?.prefix(3) ?? "?") wchan \(wchan)"
            guard nested, let stack = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stack", encoding: .utf8)
            else { return line }
            return line + "\n" + stack.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        }
        if !nested, let stacks = gdbStacks(of: pid) { lines.append(stacks) }
        return lines.joined(separator: "\n")
    }

    /// Whether `pid` runs in a PID namespace below this process's: its status lists more ids (`NSpid`, one per
    /// namespace level) than this process's does.
    static func inNestedNamespace(_ pid: Int32) -> Bool {
        func levels(_ process: String) -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").first { $0.hasPrefix("NSpid:") }?.split(separator: "\t").count ?? 0
        }
        return levels("\(pid)") > levels("self")
    }

    /// Each process with a descriptor on `pipe` (as /proc names it: "pipe:[inode]"), as "pid (command line)".
    static func processes(holding pipe: String) -> String {
        processIDs().compactMap { pid -> String? in
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let holds = descriptors.contains {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == pipe
            }
            guard holds else { return nil }
            let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            return "\(pid) (\(command.replacingOccurrences(of: "\0", with: " ")))"
        }.joined(separator: ", ")
    }

    /// Whether any process has `pipe` ("pipe:[inode]") open for reading: a descriptor on it whose access mode, in
    /// /proc/PID/fdinfo, is O_RDONLY (a pipe's write end is O_WRONLY).
    static func hasReader(of pipe: String) -> Bool {
        processIDs().contains { pid in
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            return descriptors.contains { descriptor in
                guard
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"))
                        == pipe,
                    let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(descriptor)", encoding: .utf8),
                    let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
                    let mode = Int(flags.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
                else { return false }
                return Int32(mode) & O_ACCMODE == O_RDONLY
            }
        }
    }

    /// Every process now running.
    private static func processIDs() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    }

    /// The parent of `pid`, from the field after the command in /proc/PID/stat.
    private static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ") ", options: .backwards)
        else { return nil }
        let fields = stat[end.upperBound...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The processes whose parent is `pid`, lowest id first.
    static func children(of pid: Int32) -> [Int32] {
        processIDs().filter { parent(of: $0) == pid }.sorted()
    }

    /// Every descendant of `root`, parents before their children.
    private static func descendants(of root: Int32) -> [Int32] {
        let parents = Dictionary(
            uniqueKeysWithValues: processIDs().compactMap { pid in parent(of: pid).map { (pid, $0) } })
        var found: [Int32] = []
        var frontier = [root]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key).sorted()
            found += children
            frontier += children
        }
        return found
    }

    /// `thread apply all bt` of `pid` (then Dispatch's own state), or nil without gdb. gdb gets `limit` and is killed
    /// past it (`bounded`): under a load of 20 and more, gdb once sat in `poll` for over ten minutes with the app in
    /// tracing stop, and the whole run waited on it. `tool` is gdb's command line before its arguments (a test puts in
    /// one that never ends).
    static func gdbStacks(
        of pid: Int32, tool: [String] = ["/usr/bin/gdb"], limit: Duration = .seconds(30), grace: Duration = .seconds(2)
    ) -> String? {
        guard let executable = tool.first, FileManager.default.isExecutableFile(atPath: executable) else { return nil }
        // Then Dispatch's own state (its main queue, root queues and fork flags, as raw words): a process whose
        // queued work no thread runs is told apart from one waiting for nothing.
        let arguments = [
            "-batch", "-nx", "-p", "\(pid)", "-ex", "thread apply all bt 40", "-ex", "echo DISPATCH main_q\\n",
            "-ex", "x/24gx &_dispatch_main_q", "-ex", "echo DISPATCH root_queues\\n", "-ex",
            "x/208gx &_dispatch_root_queues", "-ex", "echo DISPATCH fork flags\\n", "-ex",
            "x/2bx &_dispatch_unsafe_fork",
        ]
        guard let run = bounded(executable, Array(tool.dropFirst()) + arguments, limit: limit, grace: grace) else {
            return nil
        }
        // A tracer killed mid-attach can leave its tracee stopped: let go on, the test can still end it its own way.
        if run.cut { kill(pid, SIGCONT) }
        // Only the stacks: gdb's notes on symbols it could not read would bury them.
        let stacks = run.output.split(separator: "\n").filter {
            $0.hasPrefix("Thread ") || $0.hasPrefix("#") || $0.hasPrefix("0x") || $0.hasPrefix("DISPATCH")
        }
        let note: [Substring] = run.cut ? ["gdb did not finish in \(limit) and was killed; above is what it wrote"] : []
        return (stacks + note).joined(separator: "\n")
    }

    /// Runs `executable` with its output (stdout and stderr) collected, for at most `limit` of the time it could run
    /// (`ChildTimeLimit`: its waits for a CPU on a loaded machine are added back, up to four times `limit` of wall
    /// time; a tool asleep or stuck meets `limit` as it is): past it, SIGTERM, then SIGKILL a `grace` later, then at
    /// most a `grace` more; what it wrote by then is returned, `cut` set. Its output is read on a thread of its own and
    /// waited for with a deadline too, so a descendant still holding the pipe cannot make this wait either. Nil when
    /// it could not be started.
    static func bounded(
        _ executable: String, _ arguments: [String], limit: Duration, grace: Duration = .seconds(2)
    ) -> (output: String, cut: Bool)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = privatePipe()
        guard (try? process.run(stdin: nil, stdout: output, stderr: output)) != nil else { return nil }
        let collected = Mutex(Data())
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let handle = output.fileHandleForReading
            while let chunk = try? handle.read(upToCount: 65536), !chunk.isEmpty {
                collected.withLock { $0.append(chunk) }
            }
            finished.signal()
        }
        let pid = process.processIdentifier
        let time = ChildTimeLimit(limit, pid: pid)
        var done = false
        while !done, case let left = time.remaining(), left > .zero {
            done = finished.wait(timeout: .now() + left.timeInterval) == .success
        }
        let cut = !done
        if cut {
            kill(pid, SIGTERM)
            if finished.wait(timeout: .now() + grace.timeInterval) == .timedOut {
                kill(pid, SIGKILL)
                _ = finished.wait(timeout: .now() + grace.timeInterval)
            }
        }
        // Reaped with a deadline as well: a process in uninterruptible sleep outlives even SIGKILL for a while.
        let deadline = Date() + grace.timeInterval
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return (String(decoding: collected.withLock { $0 }, as: UTF8.self), cut)
    }
}

extension Duration {
    /// The duration in seconds, as Dispatch and Foundation take it.
    var timeInterval: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
