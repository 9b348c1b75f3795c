import Foundation
import MicroappPlatform
import Testing

/// `microapp update` against a channel server that attacks: a gzip bomb in place of a file, a file trickled a byte at
/// a time. Measured by the kernel (wait4's rusage of the real binary), never by the wall clock.
@Suite("Updates from a hostile channel server, end to end")
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
}
