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

    @Test("a child kept waiting for a CPU gets another deadline, at most three times; one answering then is not cut")
    func starvedChildGetsMoreDeadlines() async throws {
        let clock = TestClock()
        var expired: [String] = []
        var asked = 0
        let watchdog = RequestWatchdog(
            deadline: .seconds(2), clock: clock,
            excuse: {
                asked += 1
                return .starved
            }
        ) { expired.append($0) }
        _ = watchdog.begin("screen counter://home")
        for round in 1...3 {
            try await until { clock.sleepers == 1 }
            clock.advance(by: .seconds(2))
            try await until { asked == round }
            #expect(expired.isEmpty, "expired at round \(round) while the child was starved")
        }
        try await until { clock.sleepers == 1 }
        clock.advance(by: .seconds(2))
        try await until { !expired.isEmpty }
        #expect(asked == 4, "asked at each of the four deadlines; the fourth starved answer expires it")
        #expect(expired == ["screen counter://home"])

        let answered = RequestWatchdog(deadline: .seconds(2), clock: clock, excuse: { .starved }) {
            expired.append($0)
        }
        let ticket = answered.begin("action tap increment")
        try await until { clock.sleepers == 1 }
        clock.advance(by: .seconds(2))
        try await until { clock.sleepers == 1 }
        answered.answered(ticket)
        try await until { clock.sleepers == 0 }
        #expect(expired == ["screen counter://home"] && answered.expiredRequest == nil)
    }

    @Test(
        "a child waiting for the host's own service gets deadline after deadline for up to a minute; answered, it is free"
    )
    func waitingForHostIsExcusedForAMinute() async throws {
        let clock = TestClock()
        var expired: [String] = []
        var asked = 0
        let watchdog = RequestWatchdog(
            deadline: .seconds(20), clock: clock,
            excuse: {
                asked += 1
                return .waitingForHost
            }
        ) { expired.append($0) }
        _ = watchdog.begin("action tap more")
        for round in 1...3 {
            try await until { clock.sleepers == 1 }
            clock.advance(by: .seconds(20))
            try await until { asked == round }
            #expect(expired.isEmpty, "cut after \(round) deadlines while the host was answering")
        }
        // 60 s of the host's time excused: the fourth deadline ends it (a frozen child whose other thread keeps
        // calls going is still found hung).
        try await until { clock.sleepers == 1 }
        clock.advance(by: .seconds(20))
        try await until { !expired.isEmpty }
        #expect(asked == 4 && expired == ["action tap more"])

        let answered = RequestWatchdog(deadline: .seconds(2), clock: clock, excuse: { .waitingForHost }) {
            expired.append($0)
        }
        let ticket = answered.begin("screen more://list")
        for _ in 1...5 {
            try await until { clock.sleepers == 1 }
            clock.advance(by: .seconds(2))
        }
        try await until { clock.sleepers == 1 }
        answered.answered(ticket)
        try await until { clock.sleepers == 0 }
        #expect(answered.expiredRequest == nil)
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
