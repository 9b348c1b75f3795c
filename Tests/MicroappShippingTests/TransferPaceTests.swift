import Foundation
import MicroappCore
import MicroappPlatform
import TestScratch
import Testing

@Suite("A transfer's pace against its check's budget")
struct TransferPaceTests {
    /// A check of `limits` begun at the clock's zero, and a transfer of it begun `offset` later.
    private func pace(_ limits: CheckLimits, offset: Duration = .zero) -> (TransferPace, ContinuousClock.Instant) {
        let zero = ContinuousClock.now
        let budget = CheckBudget(limits, clock: { zero })
        return (TransferPace(started: zero + offset, budget: budget), zero)
    }

    @Test(
        "below the floor is fine during the grace, then cut; above it, the next look is when the bytes run out",
        .offThePool)
    func floor() {
        let (pace, zero) = pace(CheckLimits(deadline: .seconds(600), minimumRate: 100, grace: .seconds(10)))
        #expect(pace.verdict(bytes: 0, at: zero + .seconds(9)) == .wait(until: zero + .seconds(10)))
        #expect(pace.verdict(bytes: 999, at: zero + .seconds(10)) == .tooSlow)
        #expect(pace.verdict(bytes: 1000, at: zero + .seconds(10)) == .wait(until: zero + .seconds(10)))
        #expect(pace.verdict(bytes: 5000, at: zero + .seconds(20)) == .wait(until: zero + .seconds(50)))
        #expect(pace.verdict(bytes: 5000, at: zero + .seconds(51)) == .tooSlow)
    }

    @Test(
        "the deadline is the check's: a transfer begun late has what is left of it, however fast it goes", .offThePool)
    func deadline() {
        let (pace, zero) = pace(
            CheckLimits(deadline: .seconds(60), minimumRate: 1, grace: .seconds(1)), offset: .seconds(50))
        #expect(pace.verdict(bytes: 1 << 30, at: zero + .seconds(55)) == .wait(until: zero + .seconds(60)))
        #expect(pace.verdict(bytes: 1 << 30, at: zero + .seconds(60)) == .pastDeadline)
    }

    @Test(
        "the limits come from the environment when a variable holds a positive number, else the standard", .offThePool)
    func fromTheEnvironment() {
        func limits(_ variables: [String: String]) -> CheckLimits {
            CheckLimits(
                environment: HostEnvironment(
                    variables: variables, home: nil, temporaryFolder: "/tmp", currentDirectory: "/",
                    now: { .now }, date: { Date() }))
        }
        #expect(limits([:]) == .standard)
        #expect(limits(["MICROAPP_CHECK_DEADLINE": "0", "MICROAPP_MIN_RATE": "fast"]) == .standard)
        #expect(
            limits(["MICROAPP_CHECK_DEADLINE": "3", "MICROAPP_MIN_RATE": "50", "MICROAPP_MIN_RATE_AFTER": "0.5"])
                == CheckLimits(deadline: .seconds(3), minimumRate: 50, grace: .milliseconds(500)))
    }
}
