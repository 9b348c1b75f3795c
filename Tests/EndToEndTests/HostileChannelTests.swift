import Foundation
import MicroappPlatform
import TestScratch
import Testing

/// `microapp update` against a channel server that attacks: a gzip bomb in place of a file, a file trickled a byte at
/// a time. Measured by the kernel (wait4's rusage of the real binary), never by the wall clock.
@Suite("Updates from a hostile channel server, end to end", .promptResumes)
struct HostileChannelTests {
    /// What a refused update must not cost over an update that installs (the issue's bound).
    static let memoryMargin = 64 << 10

    @Test(
        "a gzip bomb served as index.json or as the library is refused before it is inflated, and memory stays within 64 MiB of an ordinary update",
        arguments: ["index.json", "libTick.so"])
    func gzipBomb(_ file: String) async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        let bombed = try await ChannelServer.serving(
            world.home + "/served", hostile: .gzipBomb(path: file, inflated: 256 << 20)
        ) { server in
            try await world.measured(["update", "--channel", server.baseURL + "/channel", "--plugins", world.plugins])
        }
        #expect(bombed.status == 1, "\(bombed.out)\(bombed.err)")
        #expect(
            bombed.err.contains("channel-content-coding") || bombed.err.contains("a content coding"), "\(bombed.err)")
        #expect(bombed.err.contains("/channel/\(file.hasSuffix(".so") ? "releases/tick/2/" : "")\(file)"))
        #expect(FileManager.default.contents(atPath: world.plugins + "/libTick.so") == (try await Tick.library(1)))

        let ordinary = try await ChannelServer.serving(world.home + "/served") { server in
            try await world.measured(["update", "--channel", server.baseURL + "/channel", "--plugins", world.plugins])
        }
        #expect(ordinary.status == 0, "\(ordinary.err)")
        #expect(
            bombed.peakKiB <= ordinary.peakKiB + Self.memoryMargin,
            "peak \(bombed.peakKiB) KiB against a bomb, \(ordinary.peakKiB) KiB for an update")
    }

    /// `update` of a new world's folder (the channel offering v2) from a server that trickles index.json a byte every
    /// 50 ms (20 bytes a second), with the check's limits set by their variables; the folder must stay as it was.
    private func trickled(_ limits: [String: String]) async throws -> (
        world: UpdateWorld, run: (status: Int32, out: String, err: String, peakKiB: Int, cpuSeconds: Double)
    ) {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        let before = world.pluginFiles()
        let run = try await ChannelServer.serving(
            world.home + "/served", hostile: .trickle(path: "index.json", seconds: 0.05)
        ) { server in
            try await world.with(limits).measured([
                "update", "--channel", server.baseURL + "/channel", "--plugins", world.plugins,
            ])
        }
        #expect(run.status == 1, "\(run.out)\(run.err)")
        #expect(world.pluginFiles() == before)
        return (world, run)
    }

    @Test(
        "a transfer that averages less than the floor is cut with channel-too-slow once past its grace, and nothing changes"
    )
    func belowTheFloor() async throws {
        let (_, slow) = try await trickled(["MICROAPP_MIN_RATE": "1000", "MICROAPP_MIN_RATE_AFTER": "1"])
        #expect(slow.err.contains("/channel/index.json: it came at"), "\(slow.err)")
        #expect(slow.err.contains("below the floor of 1000 (MICROAPP_MIN_RATE)"))
    }

    @Test(
        "a whole check ends by its deadline, however steadily the server trickles, and waiting for it costs no CPU"
    )
    func deadline() async throws {
        // 20 bytes a second is above this floor: only the 3 s deadline ends it (the index takes ~30 s to trickle).
        let (world, held) = try await trickled(["MICROAPP_MIN_RATE": "1", "MICROAPP_CHECK_DEADLINE": "3"])
        #expect(held.err.contains("/channel/index.json: the check did not end within its 3 s"), "\(held.err)")
        // The same process's CPU for a check that is refused at once: waiting 3 s added less than a fifth of a second.
        let quick = try await ChannelServer.serving(world.home + "/served") { server in
            try await world.measured(["update", "--channel", server.baseURL + "/nothing", "--plugins", world.plugins])
        }
        #expect(quick.err.contains("the server answered 404"), "\(quick.err)")
        #expect(
            held.cpuSeconds < quick.cpuSeconds + 0.2, "\(held.cpuSeconds) s of CPU held, \(quick.cpuSeconds) s quick")
    }

    @Test(
        "a redirect is followed only to http(s) and at most five times: one to a file, or a loop, is refused and nothing changes",
        arguments: ["file:///etc/passwd", "/channel/index.json"])
    func redirects(_ location: String) async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        let before = world.pluginFiles()
        let result = try await ChannelServer.serving(
            world.home + "/served", hostile: .redirect(path: "index.json", location: location)
        ) { server in
            try await world.microapp(["update", "--channel", server.baseURL + "/channel", "--plugins", world.plugins])
        }
        #expect(result.status == 1, "\(result.out)\(result.err)")
        #expect(result.err.contains("/channel/index.json: it cannot be fetched ("), "\(result.err)")
        #expect(world.pluginFiles() == before)
    }

    @Test("a check-updates event while a trickled check runs says a check is under way and for how long")
    func checkUnderWay() async throws {
        let world = try await UpdateWorld.make()
        try await world.publish(2)
        // Two bytes a second: the index takes minutes, so the check at start is surely under way at the first frame.
        try await ChannelServer.serving(world.home + "/served", hostile: .trickle(path: "index.json", seconds: 0.5)) {
            server in
            let app = try AppProcess(
                ["run", "--isolation", "none", "--plugins", world.plugins, "--only", "tick", "--ui", "json"]
                    + ["--channel", server.baseURL + "/channel", "--check-every", "60", "--no-supervise"],
                environment: world.with(["MICROAPP_MIN_RATE": "1", "MICROAPP_CHECK_DEADLINE": "600"]).environment
                    .merging(["MICROAPP_TEST_FEATURES": ""]) { $1 })
            try await app.waitForFrame(route: "tick://home") { screenText($0).contains("Tick v1") }
            // The check at start is still trickling the index.
            try app.send([["type": "check-updates"]])
            let notice = try await app.waitFor("notice") { $0["code"] as? String == "update-check-under-way" }
            let message = notice["message"] as? String ?? ""
            #expect(message.hasPrefix("A check of \(server.baseURL)/channel has been under way for "), "\(message)")
            #expect(message.contains("(it ends within 600 s of its start)"))
            #expect(notice["milliseconds"] is Int)
            #expect(try await app.finish() == 0)
        }
    }
}
