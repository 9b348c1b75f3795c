import Foundation
import MicroappCore
import MicroappPlatform

/// How an isolated feature's child ended, in the host's words: a crash by signal, an exit with a status, a kill from
/// outside, or the out-of-memory killer, which is named only when the kernel's own count of such kills says so.
public enum FeatureExit {
    /// The cause of a child's end from its termination. `outOfMemoryKills` is the kernel's count of OOM kills read
    /// when the child started and again after it ended (see `OutOfMemoryCount`): a SIGKILL while the count went up
    /// is reported as out of memory; without both readings a SIGKILL is only "killed".
    public static func cause(
        of termination: ChildProcess.Termination, outOfMemoryKills: (before: Int, after: Int)? = nil
    ) -> FeatureStop.Cause {
        switch termination {
        case .exited(let status): return .exited(status: status)
        case .timedOut: return .killed(signal: SIGKILL)
        case .signalled(let signal):
            if signal == SIGKILL, let kills = outOfMemoryKills, kills.after > kills.before { return .outOfMemory }
            // Signals sent from outside or by a resource limit; every other one is a fault of the code that ran.
            let fromOutside: Set<Int32> = [SIGKILL, SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGXFSZ]
            return fromOutside.contains(signal) ? .killed(signal: signal) : .crashed(signal: signal)
        }
    }
}

/// The kernel's count of processes its out-of-memory killer ended: in this process's memory cgroup when the
/// cgroup says (v2 `memory.events`, v1 `memory.oom_control`), else for the whole machine (`/proc/vmstat`).
public enum OutOfMemoryCount {
    /// The count now, nil when no source can be read.
    public static func read() -> Int? {
        for file in sources() {
            if let text = Files.text(file), let count = value(in: text) {
                return count
            }
        }
        return nil
    }

    /// The `oom_kill N` line of a counter file.
    static func value(in text: String) -> Int? {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "oom_kill" { return Int(words[1]) }
        }
        return nil
    }

    /// The files to try, most specific first.
    private static func sources() -> [String] {
        var files: [String] = []
        let groups = Files.procText("/proc/self/cgroup")
        for line in groups.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                files.append("/sys/fs/cgroup\(path)/memory.events")
            } else if fields[1].split(separator: ",").contains("memory") {
                // Inside a cgroup namespace the path may not be visible; the mount's root is this cgroup then.
                files += [
                    "/sys/fs/cgroup/memory\(path)/memory.oom_control", "/sys/fs/cgroup/memory/memory.oom_control",
                ]
            }
        }
        return files + ["/proc/vmstat"]
    }
}
