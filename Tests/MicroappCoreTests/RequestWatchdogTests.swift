import MicroappCore
import MicroappSDK
import Testing

@MainActor
@Suite("The request watchdog of an isolated feature")
struct RequestWatchdogTests {
    @Test("a request not answered within the deadline on the host's clock expires once, naming the request")
    func unansweredRequestExpires() async throws {
        let clock = TestClock()
        var expired: [String] = []
        let watchdog = RequestWatchdog(deadline: .seconds(2), clock: clock) { expired.append($0) }
        _ = watchdog.begin("screen counter://home")
        _ = watchdog.begin("action tap increment")
        try await until { clock.sleepers == 2 }
        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleepers == 2, "a request expired before its deadline")
        clock.advance(by: .milliseconds(1))
        try await until { !expired.isEmpty && watchdog.waiting == 0 }
        #expect(expired.count == 1)
        #expect(["screen counter://home", "action tap increment"].contains(expired[0]))
        #expect(watchdog.expiredRequest == expired[0])
    }

    @Test("an answered request no longer counts, and its timer leaves the clock")
    func answeredRequestIsForgotten() async throws {
        let clock = TestClock()
        var expired: [String] = []
        let watchdog = RequestWatchdog(deadline: .seconds(2), clock: clock) { expired.append($0) }
        let ticket = watchdog.begin("screen counter://home")
        try await until { clock.sleepers == 1 }
        watchdog.answered(ticket)
        try await until { clock.sleepers == 0 }
        clock.advance(by: .seconds(10))
        #expect(watchdog.waiting == 0)
        #expect(expired.isEmpty)
        #expect(watchdog.expiredRequest == nil)
    }

    @Test(
        "an excused child gets three more deadlines — starved, at most three; waiting for the host, a minute of its time at 20 s each — then is cut; answered meanwhile, it is free",
        arguments: [RequestWatchdog.Excuse.starved, .waitingForHost])
    func excusedChildGetsMoreDeadlines(excuse: RequestWatchdog.Excuse) async throws {
        let clock = TestClock()
        var expired: [String] = []
        var asked = 0
        let watchdog = RequestWatchdog(
            deadline: .seconds(20), clock: clock,
            excuse: {
                asked += 1
                return excuse
            }
        ) { expired.append($0) }
        _ = watchdog.begin("screen counter://home")
        for round in 1...3 {
            try await until { clock.sleepers == 1 }
            clock.advance(by: .seconds(20))
            try await until { asked == round }
            #expect(expired.isEmpty, "cut at deadline \(round) while excused")
        }
        try await until { clock.sleepers == 1 }
        clock.advance(by: .seconds(20))
        try await until { !expired.isEmpty }
        #expect(asked == 4, "asked at each of the four deadlines; the fourth excuse is one too many")
        #expect(expired == ["screen counter://home"])

        let answered = RequestWatchdog(deadline: .seconds(20), clock: clock, excuse: { excuse }) {
            expired.append($0)
        }
        let ticket = answered.begin("action tap increment")
        try await until { clock.sleepers == 1 }
        clock.advance(by: .seconds(20))
        try await until { clock.sleepers == 1 }
        answered.answered(ticket)
        try await until { clock.sleepers == 0 }
        #expect(expired == ["screen counter://home"] && answered.expiredRequest == nil)
    }

    @Test("a child not starved at its deadline is cut at once")
    func notStarvedIsCut() async throws {
        let clock = TestClock()
        var expired: [String] = []
        let watchdog = RequestWatchdog(deadline: .seconds(2), clock: clock, excuse: { nil }) { expired.append($0) }
        _ = watchdog.begin("screen counter://home")
        try await until { clock.sleepers == 1 }
        clock.advance(by: .seconds(2))
        try await until { !expired.isEmpty }
        #expect(expired == ["screen counter://home"])
    }

    @Test("the deadline comes from MICROAPP_FEATURE_DEADLINE_MS, else 2 s")
    func deadlineFromEnvironment() {
        #expect(RequestWatchdog.deadline(from: ["MICROAPP_FEATURE_DEADLINE_MS": "250"]) == .milliseconds(250))
        #expect(RequestWatchdog.deadline(from: ["MICROAPP_FEATURE_DEADLINE_MS": "soon"]) == .seconds(2))
        #expect(RequestWatchdog.deadline(from: [:]) == .seconds(2))
    }

    /// Waits for `condition`, giving other tasks turns; fails after a generous number of turns.
    private func until(_ condition: () -> Bool) async throws {
        for _ in 0..<100_000 where !condition() { await Task.yield() }
        #expect(condition())
    }
}
