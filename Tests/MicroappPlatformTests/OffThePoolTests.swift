import Foundation
import TestScratch
import Testing

/// The trait that keeps blocking test bodies off the cooperative pool does move them (see `OffThePool`).
@Suite("Tests marked off the pool run on threads of their own")
struct OffThePoolTests {
    @Test("a synchronous test marked .offThePool runs on an off-the-pool thread", .offThePool)
    func marked() {
        #expect(threadName().hasPrefix("off-the-pool"))
    }

    @Test("an unmarked one runs where Swift Testing puts it, on the cooperative pool")
    func unmarked() {
        #expect(!threadName().hasPrefix("off-the-pool"))
    }
}

/// The name of the thread running the caller.
private func threadName() -> String { Thread.current.name ?? "" }
