import DemoServices
import Foundation
import MicroappPlatform
import MicroappSDK
import Testing

@Suite("Blocking service calls wait on threads of their own, never on Swift's cooperative pool")
@MainActor
struct CooperativePoolTests {
    @Test("sign-ups waiting for a database another program holds leave the cooperative pool free")
    func lockedDatabaseLeavesThePoolFree() async throws {
        let directory = TemporaryDirectory()
        let backend = try await DemoBackend.open(
            .init(dataDirectory: directory.path, busyTimeoutMilliseconds: 600_000, environment: .process),
            report: { _ in })
        // Another program holds the write lock until the test lets go: every sign-up's INSERT waits for it.
        let holder = try Database(path: backend.database.path)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? holder.transaction { (_) throws(StorageError) in
                held.signal()
                release.wait()
            }
        }
        await BlockingWork.run { held.wait() }
        // More waiting calls than the pool has threads: if they blocked it, nothing else could run.
        let events = Collected<String>()
        let signUp = backend.signUp
        let calls = (0..<ProcessInfo.processInfo.activeProcessorCount + 2).map { n in
            Task.detached {
                let session = try await signUp(
                    NewAccount(name: "Person \(n)", email: "person\(n)@example.com", password: "long-enough-\(n)"))
                events.add("signed up")
                return session
            }
        }
        // The lock is let go once a trivial task on the pool has run (or, if the pool is starved, after a
        // generous limit, and the order below fails the test).
        let poolRan = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = poolRan.wait(timeout: .now() + 120)
            events.add("released")
            release.signal()
        }
        await Task.detached {
            events.add("pool ran")
            poolRan.signal()
        }.value
        var emails: [String] = []
        for call in calls { emails.append(try await call.value.email) }
        #expect(events.all == ["pool ran", "released"] + Array(repeating: "signed up", count: calls.count))
        #expect(Set(emails).count == calls.count)
    }
}
