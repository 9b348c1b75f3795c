import Foundation
import MicroappCore
import MicroappSDK
import Synchronization
import TestScratch
import Testing

@testable import MicroappIsolation

/// The isolation protocol's rules, message by message, without a child process: what `IsolatedRoot` does with each
/// verdict is tested with real children elsewhere (HostileCorpus, the sandbox suites).
@Suite("The host's gate on a child's messages: each stage allows its own, anything else cuts the child off")
struct ChildMessageGateTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: @Sendable () -> ContinuousClock.Instant { { self.instant.withLock { $0 } } }
        func advance(_ by: Duration) { instant.withLock { $0 += by } }
    }

    static let home = Location(url: "demo://home", pattern: "demo://home")
    static let welcome = FeatureMessage.welcome(version: FeatureWire.version, manifest: "{}")

    /// A gate past the handshake, started with the service `menu` served, `cart` declared but not granted, the state
    /// `session` readable and `draft` writable.
    static func started(clock: Clock = Clock()) -> ChildMessageGate {
        var gate = ChildMessageGate(now: clock.now)
        #expect(gate.admit(welcome) == .accept)
        gate.phase = .started
        gate.started(declared: ["menu", "cart"], served: ["menu"], state: ["session": false, "draft": true])
        return gate
    }

    @Test("the handshake: one welcome in the host's protocol version, a refusal only before it", .offThePool)
    func handshake() {
        var gate = ChildMessageGate(now: Clock().now)
        #expect(
            gate.admit(.welcome(version: FeatureWire.version + 1, manifest: "{}"))
                == .cutOff(
                    "protocol version \(FeatureWire.version + 1), the host speaks \(FeatureWire.version)"))
        var fresh = ChildMessageGate(now: Clock().now)
        #expect(fresh.admit(.refused("no")) == .accept)
        #expect(fresh.admit(Self.welcome) == .accept)
        fresh.phase = .welcomed
        #expect(fresh.admit(Self.welcome) == .cutOff("a second welcome"))
        var after = Self.started()
        #expect(after.admit(.refused("late")) == .cutOff("a refusal after the handshake"))
    }

    @Test("a message only the host sends is a fault from the child", .offThePool)
    func hostMessages() {
        var gate = Self.started()
        #expect(gate.admit(.hello(version: 1)) == .cutOff("a host message (hello) from the child"))
        #expect(gate.admit(.screen(Self.home)) == .cutOff("a host message (screen) from the child"))
        #expect(gate.admit(.started) == .accept)
    }

    @Test("screens come only for locations asked, a done only for a request in flight", .offThePool)
    func requests() {
        var gate = Self.started()
        let screen = Screen(title: "Home", content: [])
        #expect(
            gate.admit(.screenUpdate(Self.home, screen))
                == .cutOff(
                    "a screen for demo://home, which the host did not ask for"))
        var asking = Self.started()
        #expect(asking.admit(.done) == .cutOff("an answer to no request"))
        var counted = Self.started()
        counted.requested(Self.home)
        counted.requested(Self.home)
        #expect(counted.pending == 2)
        #expect(counted.admit(.screenUpdate(Self.home, screen)) == .accept)
        #expect(counted.admit(.done) == .accept && counted.admit(.done) == .accept)
        #expect(counted.pending == 0)
        #expect(counted.admit(.done) == .cutOff("an answer to no request"))
    }

    @Test("state is written only where it was granted writable", .offThePool)
    func stateWrites() {
        var gate = Self.started()
        #expect(gate.admit(.stateWrite(key: "draft", value: Data("1".utf8))) == .accept)
        #expect(
            gate.admit(.stateWrite(key: "session", value: Data("{}".utf8)))
                == .cutOff(
                    "a write of 'session', which it may only read"))
        var other = Self.started()
        #expect(
            other.admit(.stateWrite(key: "secrets", value: Data()))
                == .cutOff(
                    "a write of 'secrets', which it was not granted"))
        var early = ChildMessageGate(now: Clock().now)
        #expect(
            early.admit(.stateWrite(key: "draft", value: Data()))
                == .cutOff(
                    "a write of 'draft', which it was not granted"), "before start nothing is granted")
    }

    @Test(
        "a service call is answered only when declared and granted, at most 64 at once; an answer frees a place",
        .offThePool)
    func serviceCalls() {
        var gate = Self.started()
        #expect(
            gate.admit(.serviceCall(id: 1, key: "orders", request: Data()))
                == .cutOff(
                    "a call of 'orders', which it did not declare"))
        var ungranted = Self.started()
        #expect(
            ungranted.admit(.serviceCall(id: 1, key: "cart", request: Data()))
                == .cutOff(
                    "a call of 'cart', which it was not granted"))
        var busy = Self.started()
        for id in 1...64 { #expect(busy.admit(.serviceCall(id: UInt64(id), key: "menu", request: Data())) == .accept) }
        #expect(busy.answering == 64)
        var full = busy
        #expect(
            full.admit(.serviceCall(id: 65, key: "menu", request: Data()))
                == .cutOff(
                    "more than 64 service calls at once"))
        busy.answered()
        #expect(busy.admit(.serviceCall(id: 65, key: "menu", request: Data())) == .accept)
    }

    @Test("a burst past the budget cuts the child off; the budget refills with time", .offThePool)
    func budget() {
        let clock = Clock()
        var gate = Self.started(clock: clock)
        // The welcome spent one message.
        for _ in 1..<MessageBudget.messages { #expect(gate.admit(.started) == .accept) }
        var flooded = gate
        #expect(flooded.admit(.started) == .cutOff("more than 4000 messages or 1000 log lines at once"))
        clock.advance(.seconds(1))
        for _ in 0..<2000 { #expect(gate.admit(.started) == .accept) }

        var logging = Self.started(clock: clock)
        for _ in 0..<MessageBudget.logs { #expect(logging.admit(.log("line")) == .accept) }
        #expect(logging.admit(.log("line")) == .cutOff("more than 4000 messages or 1000 log lines at once"))
        var printing = Self.started(clock: clock)
        for _ in 0..<MessageBudget.logs { #expect(printing.admitPrinted() == .accept) }
        #expect(printing.admitPrinted() == .cutOff("more than 1000 printed lines at once"))
    }

    @Test("once the child ended or was cut off, nothing it sends counts", .offThePool)
    func afterTheEnd() {
        var cut = Self.started()
        cut.violation = "a second welcome"
        #expect(cut.admit(.hello(version: 1)) == .ignore)
        #expect(cut.admit(.done) == .ignore)
        var ended = Self.started()
        ended.phase = .ended
        #expect(ended.admit(.stateWrite(key: "secrets", value: Data())) == .ignore)
        #expect(ended.admitPrinted() == .ignore)
    }
}
