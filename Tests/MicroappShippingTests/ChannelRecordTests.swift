import Foundation
import MicroappPlatform
import MicroappShipping
import TestScratch
import Testing

@Suite("The record of what was seen from channels, on disk")
struct ChannelRecordTests {
    private func store() -> ReleaseStore {
        let home = Scratch.folder("channel-record").path
        return ReleaseStore(folders: ReleaseFolders(environment: ["XDG_STATE_HOME": home + "/state"], home: home))
    }

    @Test(
        "a damaged record is refused with a fix that keeps what was seen: the record before the last save is kept beside it",
        .offThePool)
    func damagedRecordKeepsTheWayBack() throws {
        let store = store()
        let first = SeenVersions().seeing(index: 3, from: "https://example.test/stable")
        #expect(store.save(first) == nil)
        #expect(store.save(first.seeing(index: 4, from: "https://example.test/stable")) == nil)
        let path = store.folders.seenVersions
        let whole = try #require(FileManager.default.contents(atPath: path))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        guard case .failure(let problem) = store.seenVersions() else {
            Issue.record("a truncated record was read")
            return
        }
        #expect(problem.fix.contains("cp \(path).previous \(path)"))
        #expect(!problem.fix.hasPrefix("remove"))
        let previous = try #require(FileManager.default.contents(atPath: path + ".previous"))
        try previous.write(to: URL(fileURLWithPath: path))
        #expect(try store.seenVersions().get().index(of: "https://example.test/stable") == 3)
    }

    @Test("a record grown past its cap is refused without being read whole", .offThePool)
    func oversizeRecord() throws {
        let store = store()
        #expect(store.save(SeenVersions().seeing(index: 1, from: "c")) == nil)
        let path = store.folders.seenVersions
        try Data(repeating: 0x20, count: ReleaseStore.fileCap + 1).write(to: URL(fileURLWithPath: path))
        guard case .failure(let problem) = store.seenVersions() else {
            Issue.record("an oversize record was read")
            return
        }
        #expect(problem.reason.contains("at most \(ReleaseStore.fileCap) bytes"))
    }
}
