import Foundation
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An isolated feature's child sees only itself: its own PID namespace and /proc, as an attacker inside finds it.
@Suite("End to end: an isolated child sees only its own processes in /proc", .serialized, .promptResumes)
struct ProcessNamespacesEndToEndTests {
    @Test(
        "Peeker lists /proc, reads pid 1, and goes for the host, its zygote and a sibling feature's processes: it finds only itself",
        arguments: ["1", "0"])
    func childSeesOnlyItself(zygote: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Peeker", "Pwd"])
        let app = try AppProcess.isolated(plugins, opening: "pwd://home", environment: ["MICROAPP_ZYGOTE": zygote])
        try await app.waitForFrame(route: "pwd://home") { screenText($0).contains("cwd=") }
        if let refusal = ProcessNamespaces.refusal(ProcessInfo.processInfo.environment) {
            // A kernel that refuses them, or a run with MICROAPP_NAMESPACES=0: the run says so, and the rest of this
            // test has nothing to look at (a kernel's refusal is recorded: this machine gives children less).
            try await app.waitUntil { app.objects.contains { $0["code"] as? String == "namespaces-missing" } }
            if refusal.step != .turnedOff {
                Issue.record("this machine gives no namespaces (\(refusal.reason)): only the notice was checked")
            }
            return
        }
        #expect(!app.objects.contains { $0["code"] as? String == "namespaces-missing" })
        try app.send([["type": "open", "url": "peeker://home"]])
        let home = screenText(try await app.waitForFrame(route: "peeker://home") { screenText($0).contains("procs=") })
        // Itself (2) and its namespace's first process (1, which only reaps): no host, no zygote, no sibling.
        #expect(home.contains("self=2"), "\(home)")
        #expect(home.contains("procs=1,2\""), "\(home)")
        #expect(home.contains("cmdline1=") && !home.contains("--ui") && !home.contains("--plugins"), "\(home)")
        // Every process of the app's tree by the pid the host knows it by: the app, its zygote, Pwd's child and
        // Peeker's own outer processes. None is there to read or to signal.
        let targets = [app.processID] + descendants(of: app.processID)
        #expect(targets.count >= 4, "\(targets)")
        for target in targets {
            try app.send([["type": "open", "url": "peeker://page/\(target)"]])
            let text = screenText(
                try await app.waitForFrame(route: "peeker://page/\(target)") { screenText($0).contains("kill=") })
            for file in ["cmdline", "environ", "maps"] {
                #expect(text.contains("\(file)=denied(\(ENOENT))"), "pid \(target): \(text)")
            }
            // Refused before the kernel looks (seccomp lets a child signal only itself), and no such pid in here anyway.
            #expect(text.contains("kill=refused("), "pid \(target): \(text)")
        }
        // Pwd still answers: nothing of the app was reached.
        try app.send([["type": "open", "url": "pwd://home"]])
        try await app.waitForFrame(route: "pwd://home")
        #expect(try await app.finish() == 0)
    }

    @Test("with the namespaces turned off the child sees the host's command line, and the run says so once")
    func turnedOffIsSaid() async throws {
        let plugins = try await OriginFixtures.plugins(["Peeker"])
        let app = try AppProcess.isolated(
            plugins, opening: "peeker://home", environment: [ProcessNamespaces.variable: "0"])
        try await app.waitUntil { app.objects.contains { $0["code"] as? String == "namespaces-missing" } }
        let notices = app.objects.filter { $0["code"] as? String == "namespaces-missing" }
        #expect(notices.count == 1, "\(notices)")
        #expect((notices.first?["message"] as? String)?.contains("see every process") == true, "\(notices)")
        #expect((notices.first?["fix"] as? String)?.contains(ProcessNamespaces.variable) == true, "\(notices)")
        try app.send([["type": "open", "url": "peeker://page/\(app.processID)"]])
        let text = screenText(
            try await app.waitForFrame(route: "peeker://page/\(app.processID)") { screenText($0).contains("kill=") })
        // What the namespaces take away: the host's command line is there to read (its maps and signals stay
        // Landlock's to refuse).
        #expect(text.contains("cmdline=read("), "\(text)")
        #expect(!text.contains("kill=sent"), "\(text)")
        #expect(try await app.finish() == 0)
    }

    @Test(
        "no process of a child outlives it: not when it exits, when its restart is cut off, when the host kills the pid it knows, or when the host is killed"
    )
    func noProcessOutlivesItsChild() async throws {
        // A kernel without them: childSeesOnlyItself records it; the chain looked for here is not there.
        guard ProcessNamespaces.refusal(ProcessInfo.processInfo.environment) == nil else { return }
        let plugins = try await OriginFixtures.plugins(["Shifter", "Pwd"])
        let app = try AppProcess.isolated(
            plugins, opening: "shifter://home", environment: ["MICROAPP_TEST_FEATURES": ""])
        try await app.waitForFrame(route: "shifter://home") { screenText($0).contains("Go") }
        // Each child forked from the template is two processes: its namespace's first (the pid the host knows), and
        // the feature's.
        let shifter = try await Self.chain(mapping: "libShifter.so", under: app.processID)
        #expect(shifter.count == 2, "\(shifter)")
        try app.send([["type": "tap", "id": "go"]])
        try await app.waitFor("error") { $0["code"] as? String == "feature-exited" }
        try await app.waitUntil { !shifter.contains(where: Self.exists) }

        // A restart that registers another manifest is cut off: nothing of the new child stays.
        try await app.waitForFrame(route: "shifter://home") { screenText($0).contains("\"restart\"") }
        let before = Set(descendants(of: app.processID))
        try app.send([["type": "tap", "id": "restart"]])
        try await app.waitFor("error") { $0["code"] as? String == "feature-protocol" }
        let settled = await Self.below(app.processID) { Set($0).isSubset(of: before) }
        #expect(settled, "new processes left: \(Set(descendants(of: app.processID)).subtracting(before))")

        // SIGKILL to the pid the host knows, as the watchdog and a swap send it: the namespace ends with it.
        let pwd = try await Self.chain(mapping: "libPwd.so", under: app.processID)
        #expect(pwd.count == 2, "\(pwd)")
        #expect(kill(pwd[0], SIGKILL) == 0)
        try await app.waitFor("error") { $0["code"] as? String == "feature-killed" }
        try await app.waitUntil { !pwd.contains(where: Self.exists) }

        // The host killed: every process below it ends (the children read the end of their sockets).
        let all = descendants(of: app.processID)
        #expect(kill(app.processID, SIGKILL) == 0)
        _ = try? await app.finish()
        let deadline = ContinuousClock.now + .seconds(10)
        while all.contains(where: Self.exists) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!all.contains(where: Self.exists), "left behind: \(all.filter(Self.exists))")
    }

    /// Waits until `condition` holds of the processes below `ancestor` (10 s at most); whether it did. Each look reads
    /// all of /proc, on a thread of its own every 100 ms: a poll on the cooperative pool every 20 ms kept one of its
    /// two threads busy under load, and other suites' tests wait for those threads.
    static func below(_ ancestor: Int32, until condition: @escaping @Sendable ([Int32]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if await BlockingWork.run({ condition(descendants(of: ancestor)) }) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Whether process `pid` is still there (a zombie not yet reaped counts: it was not cleaned up either).
    static func exists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// The process below `ancestor` that maps `library` and its ancestors inside its PID namespace, outermost first
    /// (waited for, 10 s at most): the namespace's first process and the feature's. For a child forked from the
    /// template the first is the pid the host knows (one started afresh has an outer process above it).
    static func chain(mapping library: String, under ancestor: Int32) async throws -> [Int32] {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let below = await BlockingWork.run { descendants(of: ancestor) }
            if let feature = below.first(where: { maps($0, library) }) {
                var chain = [feature]
                while let parent = parent(of: chain[0]), below.contains(parent),
                    HangDiagnosis.inNestedNamespace(parent)
                {
                    chain.insert(parent, at: 0)
                }
                return chain
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw AppProcessError("no process below \(ancestor) maps \(library)")
    }

    private static func maps(_ pid: Int32, _ library: String) -> Bool {
        let text = (try? FileHandle(forReadingAtPath: "/proc/\(pid)/maps")?.readToEnd()) ?? Data()
        return String(decoding: text, as: UTF8.self).contains(library)
    }

    private static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}

extension AppProcess {
    /// `run --no-supervise --ui json --isolation process` of `plugins` with fresh data, opening `route`: one app whose
    /// features each run in a child.
    static func isolated(_ plugins: URL, opening route: String, environment: [String: String]) throws -> AppProcess {
        try AppProcess(
            [
                "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
                "--data", AppProcess.freshDataDirectory(), "--open", route,
            ], environment: environment)
    }
}
