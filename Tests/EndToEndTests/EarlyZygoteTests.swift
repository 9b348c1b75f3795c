import Foundation
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The template of isolated features and probes is forked before `main` reads anything of the person's (the default),
/// and scrubbed: ready when the app is, and holding none of what the app knows.
@Suite("End to end: the zygote forked before main", .serialized, .promptResumes)
struct EarlyZygoteTests {
    @Test(
        "a supervised run with every feature isolated forks its children from a template the supervisor made at start")
    func templateOfTheSupervisor() async throws {
        let app = try AppProcess(["run", "--ui", "json", "--isolation", "process"])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        // The feature's child → its template → the supervisor: the template was forked by the supervisor, right after
        // it forked the app process (a template the app started would sit one level further down). The library is
        // mapped below that child, in its namespace's feature process.
        let grandchildren = Self.children(of: app.processID).flatMap(Self.children(of:))
        let mapping = grandchildren.filter { child in
            ([child] + descendants(of: child)).contains { Self.maps($0, "libAuth.so") }
        }
        #expect(mapping.count == 1)
        // The supervisor forks it right after the app process (the app does not wait for its fork), so it must not
        // keep the supervisor's signals: ctrl-C and ctrl-\ are ignored in the supervisor, not in the template.
        let template = try #require(mapping.first.flatMap(Self.parent(of:)))
        #expect(Self.parent(of: template) == app.processID)
        let interruptAndQuit: UInt64 = 1 << (UInt64(SIGINT) - 1) | 1 << (UInt64(SIGQUIT) - 1)
        #expect(Self.ignoredSignals(of: template).map { $0 & interruptAndQuit } == 0)
        #expect(
            Self.ignoredSignals(of: app.processID).map { $0 & interruptAndQuit } == interruptAndQuit,
            "the harness reads what it should")
        app.send(#"{"type":"quit"}"#)
        _ = try await app.finish()
    }

    @Test(
        "the template and every feature's child hold none of the app's secrets: not in their environment, command line or memory"
    )
    func noSecretsInChildren() async throws {
        let canary = "canary-\(UUID().uuidString)"
        // In the app's environment, and in its heap: the environment and the --data folder's path are read into it.
        let data = Scratch.folder("data-\(canary)").path
        let app = try AppProcess(
            ["run", "--no-supervise", "--ui", "json", "--isolation", "process", "--data", data],
            environment: ["MICROAPP_TEST_CANARY": canary])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        let template = try #require(Self.children(of: app.processID).first { !Self.children(of: $0).isEmpty })
        // Every feature's child: once this process's probe cache knows the children's manifests (an isolated test ran
        // before), the three not on screen start after the first frame (alone in a fresh cache, all four before it).
        try await app.waitUntil { Self.children(of: template).count == 4 }
        let features = Self.children(of: template)
        #expect(features.count == 4)
        // The harness finds the canary where it is (the app's own memory and environment): its absence means something.
        #expect(Self.memory(of: app.processID, contains: canary))
        #expect(procText("/proc/\(app.processID)/environ").contains(canary))
        // A child shows the environment it holds (its own marker), only not the app's.
        #expect(features.allSatisfy { procText("/proc/\($0)/environ").contains("MICROAPP_INTERNAL=1") })
        for pid in [template] + features {
            #expect(!procText("/proc/\(pid)/environ").contains(canary), "environment of \(pid)")
            #expect(!procText("/proc/\(pid)/cmdline").contains(canary), "command line of \(pid)")
            #expect(!Self.memory(of: pid, contains: canary), "memory of \(pid)")
        }
        app.send(#"{"type":"quit"}"#)
        _ = try await app.finish()
    }

    @Test(
        "a library new to the probe cache is probed in a child forked from the template, not one the app started; MICROAPP_ZYGOTE=started probes it in a process the app started",
        arguments: ["", "started", "supervised"])
    func probeForkedFromTemplate(zygote: String) async throws {
        // Its constructor aborts when the process that forked it is the template; its registration refuses anyway.
        let library = try await InspectionSandboxTests.constructorLibrary(
            "ABORT_UNDER_TEMPLATE", named: "TemplateChild")
        // A probe cache of its own: the library is new to it, so this start probes it.
        var environment = ["XDG_CACHE_HOME": Scratch.folder("probe-cache").path]
        if zygote == "started" { environment["MICROAPP_ZYGOTE"] = zygote }
        // Supervised, the template is forked by the supervisor after the app process, which holds its socket.
        let app = try AppProcess(
            ["run"] + (zygote == "supervised" ? [] : ["--no-supervise"]) + [
                "--ui", "json", "--isolation", "none", "--plugins", library.deletingLastPathComponent().path,
            ], environment: environment)
        let refusal = try await app.waitFor("error") {
            ($0["message"] as? String)?.contains("libTemplateChild") == true
        }
        let code = refusal["code"] as? String
        #expect(zygote == "started" ? code != "probe-crashed" : code == "probe-crashed", "\(refusal)")
        try await app.waitForFrame(route: "auth://select")
        #expect(try await app.finish() == 0)
    }

    /// True when `text` is in a writable mapping of `pid` (where a string it read or made can be).
    private static func memory(of pid: Int32, contains text: String) -> Bool {
        let maps = procText("/proc/\(pid)/maps")
        let memory = open("/proc/\(pid)/mem", O_RDONLY)
        guard memory >= 0 else { return false }
        defer { close(memory) }
        let needle = Data(text.utf8)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, fields[1].hasPrefix("rw") else { continue }
            let range = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard range.count == 2 else { continue }
            var bytes = Data(count: Int(range[1] - range[0]))
            let count = bytes.withUnsafeMutableBytes { pread(memory, $0.baseAddress, $0.count, off_t(range[0])) }
            // Searched by Foundation (optimized even in a debug build): megabytes per process.
            if count > 0, bytes.prefix(count).range(of: needle) != nil { return true }
        }
        return false
    }

    private static func children(of pid: Int32) -> [Int32] {
        let processes = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        return processes.filter { parent(of: $0) == pid }
    }

    private static func maps(_ pid: Int32, _ library: String) -> Bool {
        procText("/proc/\(pid)/maps").contains(library)
    }

    /// The mask of signals `pid` ignores (`SigIgn` in its status), bit n − 1 for signal n.
    private static func ignoredSignals(of pid: Int32) -> UInt64? {
        let line = procText("/proc/\(pid)/status").split(separator: "\n").first { $0.hasPrefix("SigIgn:") }
        return line.flatMap { UInt64($0.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
    }

    private static func parent(of pid: Int32) -> Int32? {
        let stat = procText("/proc/\(pid)/stat")
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 2 ? Int32(fields[1]) : nil
    }
}
