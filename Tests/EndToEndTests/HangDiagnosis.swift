import Foundation
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
    static func threads(of pid: Int32) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var lines = tasks.sorted().map { task in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8)) ?? ""
            let wchan = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? ""
            return "  thread \(task): \(stat.split(separator: ")").last?.prefix(3) ?? "?") wchan \(wchan)"
        }
        if let stacks = gdbStacks(of: pid) { lines.append(stacks) }
        return lines.joined(separator: "\n")
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

    /// `thread apply all bt` of `pid`, or nil without gdb; gdb is given 30 s.
    private static func gdbStacks(of pid: Int32) -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return nil }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
        // Then Dispatch's own state (its main queue, root queues and fork flags, as raw words): a process whose
        // queued work no thread runs is told apart from one waiting for nothing.
        gdb.arguments = [
            "-batch", "-nx", "-p", "\(pid)", "-ex", "thread apply all bt 40", "-ex", "echo DISPATCH main_q\\n",
            "-ex", "x/24gx &_dispatch_main_q", "-ex", "echo DISPATCH root_queues\\n", "-ex",
            "x/208gx &_dispatch_root_queues", "-ex", "echo DISPATCH fork flags\\n", "-ex",
            "x/2bx &_dispatch_unsafe_fork",
        ]
        let output = privatePipe()
        guard (try? gdb.run(stdin: nil, stdout: output, stderr: output)) != nil else { return nil }
        let stop = DispatchWorkItem { [gdb] in if gdb.isRunning { gdb.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: stop)
        let text = String(decoding: (try? output.fileHandleForReading.readToEnd()) ?? Data(), as: UTF8.self)
        stop.cancel()
        gdb.waitUntilExit()
        // Only the stacks: gdb's notes on symbols it could not read would bury them.
        return text.split(separator: "\n").filter {
            $0.hasPrefix("Thread ") || $0.hasPrefix("#") || $0.hasPrefix("0x") || $0.hasPrefix("DISPATCH")
        }.joined(separator: "\n")
    }
}
