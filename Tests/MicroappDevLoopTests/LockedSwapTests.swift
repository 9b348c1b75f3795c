import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import TestScratch
import Testing

/// `--watch` respects `plugins.lock`: a new build dropped into a locked folder runs only once the lock pins it.
@MainActor
@Suite("Hot swap in a locked folder")
struct LockedSwapTests {
    /// Writes `folder/plugins.lock` pinning `libSwappy.so` to the bytes of `library`.
    nonisolated static func lock(_ folder: String, to library: String) throws {
        let entry = #"{"feature":"swappy","sha256":"\#(try PluginLock.digest(of: library))"}"#
        try Data(#"{"version":1,"libraries":{"libSwappy.so":\#(entry)}}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/\(PluginLock.fileName)"))
    }

    /// Puts `library`'s bytes at `folder/libSwappy.so` as a build tool would: a new file, never written in place.
    nonisolated static func drop(_ library: String, into folder: String) throws {
        let target = "\(folder)/libSwappy.so"
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: library, toPath: target)
    }

    @Test("a build the lock does not pin is refused with lock-mismatch and v1 keeps running; locked, it swaps in")
    func unpinnedBuildRefused() async throws {
        let rig = try await SwapRig()
        rig.use(name: "Summer", taps: 1)
        let folder = Scratch.folder("locked-swap").path
        let v1 = try await Swappy.v1.library()
        let v2 = try await Swappy.v2.library()
        try Self.drop(v1, into: folder)
        try Self.lock(folder, to: v1)
        try Self.drop(v2, into: folder)

        let refused = await rig.swapper.swapLibrary(at: "\(folder)/libSwappy.so")
        guard case .failure(let problem) = refused else {
            Issue.record("a build the lock does not pin was swapped in")
            return
        }
        #expect(problem.code == .lockMismatch && problem.subject == "\(folder)/libSwappy.so")
        #expect(problem.fix.contains("microapp lock \(folder)"))
        #expect(rig.runtime.frame.version == 1)
        let error = try await rig.notice { $0.level == .error }
        #expect(error.code == "lock-mismatch" && error.message.contains("v1 keeps running"))

        try Self.lock(folder, to: v2)
        let swapped = try await rig.swapper.swapLibrary(at: "\(folder)/libSwappy.so").get()
        #expect(swapped.to == 2)
        #expect(rig.screen.contains("Howdy, Summer taps 1"))
    }
}
