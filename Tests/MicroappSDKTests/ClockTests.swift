import MicroappSDK
import MicroappTesting
import Testing

@MainActor
@Suite("Clocks a feature waits on")
struct ClockTests {
    @Test("advancing a test clock resumes the sleeps it reaches, earliest deadline first, and no later ones")
    func advanceResumesInDeadlineOrder() async throws {
        let clock = TestClock()
        var woken: [Int] = []
        for milliseconds in [30, 10, 20] {
            Task { @MainActor in
                try await clock.sleep(until: clock.now.advanced(by: .milliseconds(milliseconds)))
                woken.append(milliseconds)
            }
        }
        try await until { clock.sleepers == 3 }
        clock.advance(by: .milliseconds(25))
        try await until { woken.count == 2 }
        #expect(woken == [10, 20])
        #expect(clock.sleepers == 1)
        #expect(clock.now == TestClock.Instant(offset: .milliseconds(25)))
        clock.advance(by: .milliseconds(5))
        try await until { woken.count == 3 }
        #expect(woken == [10, 20, 30])
    }

    @Test("a sleep whose deadline has passed returns at once, and a cancelled sleep throws and leaves the queue")
    func pastDeadlinesAndCancellation() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(1))
        try await clock.sleep(until: TestClock.Instant(offset: .milliseconds(500)))
        let sleeping = Task { @MainActor in try await clock.sleep(for: .seconds(5)) }
        try await until { clock.sleepers == 1 }
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(clock.sleepers == 0)
    }

    @Test("a timer's deadline is read when the timer is made, not when it starts to wait")
    func timerDeadlineIsReadAtOnce() async throws {
        let clock = TestClock()
        let timer = clock.timer(after: .milliseconds(300))
        clock.advance(by: .milliseconds(300))
        try await timer()
        #expect(clock.sleepers == 0)
    }

    @Test("an immediate clock returns from every sleep at once, and its time moves by each sleep")
    func immediateClockSkipsWaits() async throws {
        let clock = ImmediateClock()
        try await clock.sleep(for: .seconds(3600))
        #expect(clock.now == TestClock.Instant(offset: .seconds(3600)))
    }

    @Test("a harness makes the Root with a test's own factory and hands it the test's clock")
    func harnessTakesFactoryAndClock() async throws {
        let clock = TestClock()
        let harness = try RootDriver(
            manifest: Waiting.manifest, dependencies: DependencyValues(), open: "waiting://home", clock: clock
        ) { context in
            WaitingRoot(delay: .seconds(2), context: context)
        }
        #expect(harness.screen.texts == ["waiting"])
        clock.advance(by: .seconds(2))
        _ = try await harness.next(where: { $0.texts == ["waited"] })
    }

    /// Waits up to thirty seconds for `condition`, letting other main-actor work run.
    private func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw RootDriver.Failure("the condition never held") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// A feature with one screen that waits on its clock.
private enum Waiting {
    static let manifest = FeatureManifest(
        id: "waiting", version: 1, displayName: "Waiting", routes: [RouteDeclaration("waiting://home")],
        requirements: [])
}

/// Says how long it waits on its context's clock, then that it waited.
@MainActor
private final class WaitingRoot: Root {
    private var text: String

    init(delay: Duration, context: FeatureContext) {
        text = "waiting"
        let timer = context.clock.timer(after: delay)
        Task { @MainActor [weak self] in
            try await timer()
            self?.text = "waited"
            context.invalidate()
        }
    }

    func screen(at location: Location) -> Screen { Screen(title: "Waiting", content: [.text(Text(text))]) }
    func handle(_ action: Action, at location: Location) {}
}
