import DemoServices
import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK
import Synchronization
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh folder in the scratch folder, removed (after making it writable again) when the value goes away.
final class TemporaryDirectory {
    let path = Scratch.folder("demo-services").path

    /// `path/name`.
    func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit { Scratch.remove(path) }
}

/// A migrated database in a fresh folder, with its stores.
struct TestStore {
    let directory = TemporaryDirectory()
    let database: Database
    let accounts: AccountStore
    let recents: RecentSearchStore

    init(busyTimeoutMilliseconds: Int32 = 5000) throws {
        database = try Database(
            path: directory.file("microapp.sqlite3"),  // where DataDirectory(directory.path) keeps it
            options: Database.Options(busyTimeoutMilliseconds: busyTimeoutMilliseconds))
        try Schema.migrate(database)
        accounts = AccountStore(database: database, date: { Date() })
        recents = RecentSearchStore(database: database, date: { Date() })
    }
}

/// The bytes of `path`.
func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// The permission bits of `path`.
func mode(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : -1
}

/// Runs `body` and answers the `StorageError` it threw, or records an issue when it threw nothing or something else.
func storageError(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> StorageError? {
    do {
        try await body()
        Issue.record("expected a StorageError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StorageError {
        return error
    } catch {
        Issue.record("expected a StorageError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Awaits `body` and answers the `ServiceError` it threw, or records an issue.
func serviceError(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> ServiceError? {
    do {
        try await body()
        Issue.record("expected a ServiceError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ServiceError {
        return error
    } catch {
        Issue.record("expected a ServiceError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Values handed over from any thread (a backend's reports, say), in the order they came.
final class Collected<Value: Sendable>: Sendable {
    private let list = Mutex<[Value]>([])

    func add(_ value: Value) { list.withLock { $0.append(value) } }

    var all: [Value] { list.withLock { $0 } }
}

extension HostEnvironment {
    /// An environment a test states in full: `variables` (its `HOME` the home folder), and folders that are not
    /// this machine's.
    static func stated(_ variables: [String: String]) -> HostEnvironment {
        HostEnvironment(
            variables: variables, home: variables["HOME"], temporaryFolder: "/nonexistent/tmp",
            currentDirectory: "/nonexistent/here", now: { ContinuousClock().now }, date: { Date() })
    }
}
