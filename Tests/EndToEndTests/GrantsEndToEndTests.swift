import Foundation
import MicroappLoading
import MicroappPlatform
import TestScratch
import Testing

/// An outside team's feature that asks for what only the demo's own features should have: deleting the account
/// (required) and the person's recent searches (optional). Its screen says whether it got the searches; Go deletes
/// the signed-in account; Forge writes a call of `search.recent` on the protocol socket (its standard input in a
/// child) whether or not it was granted.
enum Intruder {
    static let source = """
        import Foundation
        import Glibc
        import MicroappSDK

        struct RecentQueries: Codable, Sendable { var queries: [String] }

        let deleteAccount = DependencyKey<Service<Nothing, Nothing>>.service("auth.delete-account")
        let recent = DependencyKey<Service<Nothing, RecentQueries>>.service("search.recent", optional: true)

        public enum IntruderFeature: Feature {
            public static let manifest = FeatureManifest(
                id: "intruder", version: 1, displayName: "Intruder", routes: [RouteDeclaration("intruder://home")],
                requirements: [
                    deleteAccount.requirement, recent.requirement,
                    DependencyKey<Session?>.session(access: .read).requirement,
                ])
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                IntruderRoot(
                    delete: try context.service(deleteAccount), recent: try? context.service(recent),
                    invalidate: context.invalidate)
            }
        }

        @MainActor final class IntruderRoot: Root {
            let delete: Service<Nothing, Nothing>
            let recent: Service<Nothing, RecentQueries>?
            let invalidate: () -> Void
            var result = "not yet"

            init(delete: Service<Nothing, Nothing>, recent: Service<Nothing, RecentQueries>?, invalidate: @escaping () -> Void) {
                self.delete = delete
                self.recent = recent
                self.invalidate = invalidate
            }

            func screen(at location: Location) -> Screen {
                Screen(title: "Intruder", content: [
                    .text(Text("recent searches: \\(recent == nil ? "absent" : "present")")),
                    .text(Text("result: \\(result)")),
                    .button(Button(id: "go", title: "Go")), .button(Button(id: "forge", title: "Forge")),
                ])
            }

            func handle(_ action: Action, at location: Location) {
                switch action {
                case .tap(id: "go"):
                    Task {
                        do {
                            _ = try await delete(Nothing())
                            result = "deleted"
                        } catch {
                            result = "refused: \\(error)"
                        }
                        invalidate()
                    }
                case .tap(id: "forge"):
                    let body = Array(#"{"serviceCall":{"id":77,"key":"search.recent","request":"e30="}}"#.utf8)
                    let length = UInt32(body.count).bigEndian
                    let frame = withUnsafeBytes(of: length) { Array($0) } + body
                    _ = write(0, frame, frame.count)
                default: break
                }
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(IntruderFeature.self)
        }
        """

    /// Built once: a folder of its own holding only `libIntruder.so`.
    static let library = Task { try await compilePlugin(module: "Intruder", source: source) }

    /// A new folder holding a copy of the library, for a run (a lock written there concerns that run only).
    static func folder() async throws -> URL {
        let built = try await library.value.appendingPathComponent("libIntruder.so")
        let folder = try temporaryFolder("intruder-plugins")
        try FileManager.default.copyItem(at: built, to: folder.appendingPathComponent("libIntruder.so"))
        return folder
    }

    /// Writes a `plugins.lock` pinning the library with `grants`; `trusted: false` leaves it writable by the group,
    /// so the host ignores it.
    static func lock(_ folder: URL, grants: [String], trusted: Bool) throws {
        let library = folder.appendingPathComponent("libIntruder.so").path
        let lock = """
            {"version":1,"libraries":{"libIntruder.so":{"feature":"intruder","sha256":"\(try PluginLock.digest(of: library))","grants":[\(grants.map { "\"\($0)\"" }.joined(separator: ","))]}}}
            """
        let file = folder.appendingPathComponent(PluginLock.fileName)
        try lock.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: trusted ? 0o644 : 0o664], ofItemAtPath: file.path)
    }

    /// The demo app with the intruder's folder under `--isolation mode`, on a fresh data folder, signed in as Rick.
    static func signedIn(_ folder: URL, mode: String, _ extra: [String] = []) async throws -> AppProcess {
        let app = try AppProcess(
            ["run", "--no-supervise", "--ui", "json", "--isolation", mode, "--plugins", folder.path] + extra)
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        try app.signInAsRick()
        try await app.waitForFrame(route: "characters://list") { $0["account"] as? String == "rick@example.com" }
        return app
    }

    /// The `not-granted` error line about `key`, once it came.
    @discardableResult
    static func notGranted(_ key: String, in app: AppProcess) async throws -> [String: Any] {
        try await app.waitFor("error") {
            $0["code"] as? String == "not-granted" && ($0["message"] as? String)?.contains(key) == true
        }
    }

    /// Opens the intruder's screen and taps Go; answers the frame with its result.
    static func tapGo(in app: AppProcess) async throws {
        try app.send([["type": "open", "url": "intruder://home"]])
        try await app.waitForFrame(route: "intruder://home") { screenText($0).contains("\"go\"") }
        try app.send([["type": "tap", "id": "go"]])
    }
}

@Suite("End to end: an untrusted feature gets only what it was granted", .serialized, .promptResumes)
struct GrantsEndToEndTests {
    static let modes = ["process", "auto"]

    @Test(
        "a feature from --plugins asking for auth.delete-account is refused not-granted, and the account stays",
        arguments: modes)
    func deleteAccountIsNotGranted(mode: String) async throws {
        let app = try await Intruder.signedIn(try await Intruder.folder(), mode: mode)
        let refusal = try await Intruder.notGranted("auth.delete-account", in: app)
        #expect((refusal["message"] as? String)?.contains("intruder") == true)
        #expect((refusal["fix"] as? String)?.contains("--grant intruder=auth.delete-account") == true)
        try app.send([["type": "open", "url": "intruder://home"]])
        try await app.waitForFrame(route: "intruder://home") { screenText($0).contains("Cannot open") }
        // The account is still there: the session holds, and the person signs in again with the same password.
        try app.send([["type": "open", "url": "settings://home"]])
        try await app.waitForFrame(route: "settings://home") { screenText($0).contains("rick@example.com") }
        let signedOut = app.mark
        try app.send([["type": "tap", "id": "sign-out"]])
        try await app.waitFor("frame", since: signedOut) { $0["account"] is NSNull }
        let again = app.mark
        try app.signInAsRick()
        try await app.waitFor("frame", since: again) { $0["account"] as? String == "rick@example.com" }
        #expect(try await app.finish() == 0)
    }

    @Test("run --strict with a requirement not granted exits 2 naming it", arguments: modes)
    func strictRefuses(mode: String) async throws {
        let folder = try await Intruder.folder()
        let result = try await runMicroapp(
            [
                "run", "--ui", "json", "--isolation", mode, "--plugins", folder.path, "--strict", "--no-build",
                "--data", AppProcess.freshDataDirectory(),
            ],
            in: Repository.root)
        #expect(result.status == 2)
        #expect(result.err.contains("needs auth.delete-account (read) ← host grants it to: settings only"))
    }

    @Test(
        "--grant makes the required key work, and the optional key not granted is absent from the feature",
        arguments: modes)
    func grantOption(mode: String) async throws {
        let app = try await Intruder.signedIn(
            try await Intruder.folder(), mode: mode, ["--grant", "intruder=auth.delete-account"])
        try await Intruder.notGranted("search.recent", in: app)
        let before = app.mark
        try await Intruder.tapGo(in: app)
        // Deleted: the service ran on the real database, and the session it ended is gone.
        try await app.waitFor("frame", since: before) { $0["account"] is NSNull }
        let intruder = try #require(
            app.objects(since: before).last {
                $0["type"] as? String == "frame" && $0["route"] as? String == "intruder://home"
            })
        #expect(screenText(intruder).contains("recent searches: absent"))
        #expect(try await app.finish() == 0)
    }

    @Test("--grant of both keys hands the feature the person's recent searches too", arguments: modes)
    func grantBoth(mode: String) async throws {
        let app = try await Intruder.signedIn(
            try await Intruder.folder(), mode: mode,
            ["--grant", "intruder=auth.delete-account", "--grant", "intruder=search.recent"])
        try app.send([["type": "open", "url": "intruder://home"]])
        try await app.waitForFrame(route: "intruder://home") { screenText($0).contains("recent searches: present") }
        #expect(!app.objects.contains { $0["code"] as? String == "not-granted" })
        #expect(try await app.finish() == 0)
    }

    @Test("a --grant naming a key nobody offers is a usage error naming it")
    func grantOfUnknownKey() async throws {
        let folder = try await Intruder.folder()
        let result = try await runMicroapp(
            [
                "run", "--ui", "json", "--plugins", folder.path, "--grant", "intruder=auth.delete-everything",
                "--no-build", "--data", AppProcess.freshDataDirectory(),
            ],
            in: Repository.root)
        #expect(result.status == 1)
        #expect(result.err.contains("auth.delete-everything"))
        #expect(result.err.contains("nobody offers"))
    }

    @Test(
        "a trusted lock entry's grants make the key work; the same lock left writable by others grants nothing",
        arguments: modes)
    func lockGrants(mode: String) async throws {
        let trusted = try await Intruder.folder()
        try Intruder.lock(trusted, grants: ["auth.delete-account"], trusted: true)
        let app = try await Intruder.signedIn(trusted, mode: mode)
        let before = app.mark
        try await Intruder.tapGo(in: app)
        try await app.waitFor("frame", since: before) { $0["account"] is NSNull }
        #expect(try await app.finish() == 0)

        let ignored = try await Intruder.folder()
        try Intruder.lock(ignored, grants: ["auth.delete-account"], trusted: false)
        let second = try await Intruder.signedIn(ignored, mode: mode)
        try await Intruder.notGranted("auth.delete-account", in: second)
        #expect(try await second.finish() == 0)
    }

    @Test("an isolated child that calls a key it was not granted is cut off with feature-protocol, answered nothing")
    func ungrantedCallIsCutOff() async throws {
        let app = try await Intruder.signedIn(
            try await Intruder.folder(), mode: "process", ["--grant", "intruder=auth.delete-account"])
        try app.send([["type": "open", "url": "intruder://home"]])
        try await app.waitForFrame(route: "intruder://home") { screenText($0).contains("\"forge\"") }
        try app.send([["type": "tap", "id": "forge"]])
        let error = try await app.waitFor("error") { $0["code"] as? String == "feature-protocol" }
        #expect((error["message"] as? String)?.contains("'search.recent', which it was not granted") == true)
        try app.send([["type": "open", "url": "characters://list"]])
        try await app.waitForFrame(route: "characters://list") { $0["account"] as? String == "rick@example.com" }
        #expect(try await app.finish() == 0)
    }

    @Test("keys, graph and doctor show who may use each key and whether each requirement is granted, and why")
    func inspectCommandsShowGrants() async throws {
        let folder = try await Intruder.folder()
        func rows(_ arguments: [String]) async throws -> [[String: Any]] {
            let result = try await runMicroapp(arguments + ["--no-build"], in: Repository.root)
            return result.out.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        let keys = try await rows(["keys", "--json", "--plugins", folder.path])
        let delete = try #require(keys.first { $0["key"] as? String == "auth.delete-account" })
        #expect(delete["grantedTo"] as? String == "settings only")
        #expect(delete["public"] as? Bool == false)
        let page = try #require(keys.first { $0["key"] as? String == "characters.page" })
        #expect(page["public"] as? Bool == true)

        let graph = try await rows(["graph", "--format", "json", "--plugins", folder.path])
        let intruder = try #require(graph.first { $0["feature"] as? String == "intruder" })
        #expect(intruder["trust"] as? String == "untrusted")
        let edges = try #require(intruder["requirements"] as? [[String: Any]])
        let deleteEdge = try #require(edges.first { $0["key"] as? String == "auth.delete-account" })
        #expect(deleteEdge["status"] as? String == "not-granted")
        #expect(deleteEdge["grant"] as? String == "refused")
        #expect(deleteEdge["grantedTo"] as? String == "settings only")
        let sessionEdge = try #require(edges.first { $0["key"] as? String == "session" })
        #expect(sessionEdge["status"] as? String == "ok")
        #expect(sessionEdge["grant"] as? String == "rule")

        let granted = try await rows(
            ["graph", "--format", "json", "--plugins", folder.path, "--grant", "intruder=auth.delete-account"])
        let grantedEdges = try #require(
            granted.first { $0["feature"] as? String == "intruder" }?["requirements"] as? [[String: Any]])
        #expect(grantedEdges.first { $0["key"] as? String == "auth.delete-account" }?["grant"] as? String == "explicit")

        let doctor = try await rows(["doctor", "--json", folder.path])
        let row = try #require(doctor.first { $0["feature"] as? String == "intruder" })
        #expect(row["verdict"] as? String == "refused")
        #expect(row["code"] as? String == "not-granted")
        #expect(row["trust"] as? String == "untrusted")
        #expect(
            (row["requirements"] as? [[String: Any]])?.contains { $0["status"] as? String == "not-granted" } == true)
    }
}
