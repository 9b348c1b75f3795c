import MicroappCore
import TestScratch
import Testing

@Suite("The canary of live updates: a new version that fails within its window goes back, one that lasts passes")
struct CanaryTests {
    @Test("a crash within the window rolls back to the version that ran before and names the bad one", .offThePool)
    func crashWithinWindowRollsBack() {
        var canary = Canary<TestInstant>(window: .seconds(30))
        canary.began("tally", version: 3, replacing: 2, at: .seconds(100))
        let rollback = canary.failed("tally", .crashed("it crashed (signal 11, SIGSEGV)"), at: .seconds(129))
        #expect(rollback?.feature == "tally" && rollback?.bad == 3 && rollback?.restored == 2)
        #expect(rollback?.reason == "it crashed (signal 11, SIGSEGV)")
        #expect(canary.trials.isEmpty)
        let notice = rollback?.notice
        #expect(notice?.code == "update-rolled-back" && notice?.level == .error)
        #expect(notice?.from == 3 && notice?.to == 2 && notice?.feature == "tally")
        #expect(
            notice?.message
                == "tally v3 was rolled back to v2: it crashed (signal 11, SIGSEGV) within its canary window; "
                + "v3 is marked bad and will not be installed again")
    }

    @Test("a hang or a refused probe within the window rolls back too", .offThePool)
    func hangAndRefusalRollBack() {
        var canary = Canary<TestInstant>()
        canary.began("tally", version: 3, replacing: 2, at: .seconds(0))
        canary.began("clock", version: 8, replacing: 7, at: .seconds(0))
        #expect(canary.failed("tally", .hung("it did not answer"), at: .seconds(1))?.bad == 3)
        #expect(canary.failed("clock", .refused("the probe crashed"), at: .seconds(30))?.restored == 7)
    }

    @Test(
        "a failure after the window, or of a feature not on trial, is an ordinary stop: nothing to roll back",
        .offThePool)
    func failureOutsideWindow() {
        var canary = Canary<TestInstant>(window: .seconds(30))
        #expect(canary.failed("tally", .crashed("boom"), at: .seconds(1)) == nil)
        canary.began("tally", version: 3, replacing: 2, at: .seconds(0))
        #expect(canary.failed("tally", .crashed("boom"), at: .seconds(31)) == nil)
        #expect(canary.trials.isEmpty)
    }

    @Test("a trial passes once its window ended unharmed, oldest first, and is over", .offThePool)
    func trialsPass() {
        var canary = Canary<TestInstant>(window: .seconds(30))
        canary.began("tally", version: 3, replacing: 2, at: .seconds(10))
        canary.began("clock", version: 8, replacing: 7, at: .seconds(5))
        #expect(canary.nextEnd == .seconds(35))
        #expect(canary.passed(at: .seconds(35)).isEmpty)
        let passed = canary.passed(at: .seconds(41))
        #expect(passed.map(\.feature) == ["clock", "tally"])
        #expect(canary.trials.isEmpty && canary.nextEnd == nil)
        #expect(passed.last.map(canary.passedNotice)?.message == "tally v3 passed its canary window (30 s)")
    }

    @Test("a second update of a feature on trial puts the newest on trial, restoring the one it replaced", .offThePool)
    func secondUpdateReplacesTrial() {
        var canary = Canary<TestInstant>()
        canary.began("tally", version: 3, replacing: 2, at: .seconds(0))
        canary.began("tally", version: 4, replacing: 3, at: .seconds(5))
        #expect(canary.failed("tally", .crashed("boom"), at: .seconds(6))?.restored == 3)
    }
}
