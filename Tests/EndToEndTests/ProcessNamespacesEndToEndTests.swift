import Foundation
import MicroappPlatform
import Testing

/// An isolated feature's child sees only itself: its own PID namespace and /proc, as an attacker inside finds it.
@Suite("End to end: an isolated child sees only its own processes in /proc", .serialized)
struct ProcessNamespacesEndToEndTests {
    @Test(
        "Peeker lists /proc, reads pid 1, and goes for the host, its zygote and a sibling feature's processes: it finds only itself",
        arguments: ["1", "0"])
    func childSeesOnlyItself(zygote: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Peeker", "Pwd"])
        let app = try AppProcess(
            [
                "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
                "--data", AppProcess.freshDataDirectory(), "--open", "pwd://home",
            ], environment: ["MICROAPP_ZYGOTE": zygote])
        try await app.waitForFrame(route: "pwd://home") { screenText($0).contains("cwd=") }
        if let refusal = ProcessNamespaces.refusalHere {
            // A kernel that refuses them: the run says so, and the rest of this test has nothing to look at.
            try await app.waitUntil { app.objects.contains { $0["code"] as? String == "namespaces-missing" } }
            Issue.record("this machine gives no namespaces (\(refusal.reason)): only the notice was checked")
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
        let app = try AppProcess(
            [
                "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
                "--data", AppProcess.freshDataDirectory(), "--open", "peeker://home",
            ], environment: [ProcessNamespaces.variable: "0"])
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
}
