import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappShipping
import TestScratch
import Testing

@testable import MicroappTool

@Suite("A start after a crash inside a canary window takes the version on trial back before loading")
struct CanaryRecoveryTests {
    @Test(
        "a version on trial whose library the supervisor saw crash is rejected, said, and no longer skipped",
        .offThePool)
    func unfinishedTrialsTakenBack() throws {
        let folder = Scratch.folder("canary-recovery").path
        CanaryRecord.begin(.init(feature: "tally", version: 3, previous: 2, library: "libTally.so"), in: folder)
        var rejected: [String] = []
        let crashed: Set<String> = [folder + "/libTally.so"]
        let recovery = CanaryRecovery.takeBack(in: [folder], crashed: crashed) { place, trial in
            rejected.append("\(place): \(trial.feature) v\(trial.version) → v\(trial.previous)")
            return nil
        }
        #expect(rejected == ["\(folder): tally v3 → v2"])
        #expect(recovery.restored == [RecordedState.canonicalPath(folder + "/libTally.so")])
        let notice = try #require(recovery.notices.first)
        #expect(notice.code == "update-rolled-back" && notice.from == 3 && notice.to == 2)
        #expect(notice.message.contains("the app ended (an in-process crash) while it was on trial"))
        #expect(CanaryRecord.read(folder).trials.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + CanaryRecord.fileName))
    }

    @Test(
        "a trial the app's end cut short without a crash of its library (terminal closed, SIGTERM) is not held against it",
        .offThePool)
    func trialCutShortKeepsItsVersion() throws {
        let folder = Scratch.folder("canary-cut-short").path
        CanaryRecord.begin(.init(feature: "tally", version: 3, previous: 2, library: "libTally.so"), in: folder)
        let otherCrash: Set<String> = [folder + "/libOther.so"]
        var rejected = 0
        let recovery = CanaryRecovery.takeBack(in: [folder], crashed: otherCrash) { _, _ in
            rejected += 1
            return nil
        }
        #expect(rejected == 0)
        #expect(recovery.restored.isEmpty)
        let notice = try #require(recovery.notices.first)
        #expect(notice.code == "canary-cut-short" && notice.message.contains("v3 keeps running"), "\(notice.message)")
        #expect(CanaryRecord.read(folder).trials.isEmpty)
    }

    @Test("a folder with no record, or a rejection that fails, restores nothing", .offThePool)
    func nothingToTakeBack() {
        let empty = Scratch.folder("canary-none").path
        #expect(CanaryRecovery.takeBack(in: [empty], crashed: []) { _, _ in nil }.notices.isEmpty)
        let folder = Scratch.folder("canary-failing").path
        CanaryRecord.begin(.init(feature: "tally", version: 3, previous: 2, library: "libTally.so"), in: folder)
        let recovery = CanaryRecovery.takeBack(in: [folder], crashed: [folder + "/libTally.so"]) { _, _ in
            Problem(code: "x", subject: folder, reason: "the folder is read-only", fix: "make it writable")
        }
        #expect(recovery.restored.isEmpty)
        #expect(recovery.notices.first?.code == "update-reject-failed")
    }
}
