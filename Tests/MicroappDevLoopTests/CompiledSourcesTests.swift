import Foundation
import TestScratch
import Testing

@testable import MicroappDevLoop

@Suite("What a replay compiles again: sources the Swift driver's whole-second record cannot tell apart")
struct CompiledSourcesTests {
    /// A source and its object in `folder`, modified at the given times (seconds since 1970).
    private static func pair(_ name: String, in folder: String, source: Double, object: Double) throws -> (
        String, String
    ) {
        let (sourcePath, objectPath) = (folder + "/\(name).swift", folder + "/\(name).o")
        for (path, time) in [(sourcePath, source), (objectPath, object)] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(name.utf8)))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: time)], ofItemAtPath: path)
        }
        return (sourcePath, objectPath)
    }

    @Test(
        "without a record, the object of a source saved in its object's second or later is deleted; an older source's is kept",
        .offThePool)
    func firstReplayAfterSwiftPM() throws {
        let folder = Scratch.folder("compiled-sources").path
        let (sameSecond, sameObject) = try Self.pair(
            "Saved", in: folder, source: 1_800_000_000.9, object: 1_800_000_000.2)
        let (later, laterObject) = try Self.pair("Later", in: folder, source: 1_800_000_003, object: 1_800_000_000.2)
        let (older, olderObject) = try Self.pair("Older", in: folder, source: 1_799_999_990, object: 1_800_000_000.2)
        let sources = CompiledSources(
            record: folder + "/record.json", objects: [sameSecond: sameObject, later: laterObject, older: olderObject])
        let digests = sources.forgetChanged()
        #expect(!FileManager.default.fileExists(atPath: sameObject))
        #expect(!FileManager.default.fileExists(atPath: laterObject))
        #expect(FileManager.default.fileExists(atPath: olderObject))
        #expect(Set(digests.keys) == [sameSecond, later, older])
    }

    @Test("with a record, only the objects of sources whose bytes changed are deleted, whatever the times", .offThePool)
    func recordedBytesDecide() throws {
        let folder = Scratch.folder("compiled-sources-record").path
        let (kept, keptObject) = try Self.pair("Kept", in: folder, source: 1_800_000_000.9, object: 1_800_000_000.2)
        let (edited, editedObject) = try Self.pair("Edited", in: folder, source: 1_799_999_990, object: 1_800_000_000.2)
        let sources = CompiledSources(
            record: folder + "/record.json", objects: [kept: keptObject, edited: editedObject])
        sources.save(sources.forgetChanged())
        // The compile wrote both objects again.
        for object in [keptObject, editedObject] {
            #expect(FileManager.default.createFile(atPath: object, contents: Data()))
        }
        try Data("Edited again".utf8).write(to: URL(fileURLWithPath: edited))
        _ = sources.forgetChanged()
        #expect(FileManager.default.fileExists(atPath: keptObject))
        #expect(!FileManager.default.fileExists(atPath: editedObject))
    }
}
