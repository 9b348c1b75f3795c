import DemoServices
import Foundation
import MicroappCore
import MicroappPlatform
import Testing

@Suite("Opening the backend (SQLite, migration, yescrypt, the session file) never blocks the main actor")
@MainActor
struct BackendOpeningTests {
    @Test("the main actor runs a job while the backend is still opening")
    func mainActorRunsWhileOpening() async throws {
        let directory = TemporaryDirectory()
        // A damaged session file is reported from the middle of the opening's blocking work; the report waits
        // there until a job on the main actor lets it go (or, had the opening held the main actor, until 30 s).
        try Data("{".utf8).write(to: URL(fileURLWithPath: directory.file("session.json")))
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let outcome = Collected<String>()
        let opening = Task { @MainActor in
            try await DemoBackend.open(
                .init(dataDirectory: directory.path, environment: .process),
                report: { _ in
                    reached.signal()
                    outcome.add(release.wait(timeout: .now() + 30) == .success ? "released" : "timed out")
                })
        }
        await BlockingWork.run { reached.wait() }
        await MainActor.run { _ = release.signal() }
        let backend = try await opening.value
        #expect(outcome.all == ["released"])
        #expect(backend.session.value == nil)
    }
}
