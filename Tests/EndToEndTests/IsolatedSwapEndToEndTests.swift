import Foundation
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The isolated hot swap's failure paths, with the real binary: `run --watch --isolation process`.
@Suite("End to end: isolated swap, rollback and leftovers", .serialized, .promptResumes)
struct IsolatedSwapEndToEndTests {
    /// A counter feature whose screen says `greeting` and the count. Its snapshot names its version; with
    /// `abortsOnNewer`, restoring a snapshot of another version aborts the process (as a crash in restore would).
    private static func source(greeting: String, version: Int, abortsOnNewer: Bool) -> String {
        """
        import Foundation
        import MicroappSDK

        public enum TallyFeature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(
                    id: "tally", version: 1, displayName: "Tally", routes: [RouteDeclaration("tally://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { TallyRoot() }
        }

        @MainActor final class TallyRoot: Root {
            var count = 0
            func screen(at location: Location) -> Screen {
                Screen(title: "Tally", content: [
                    .text(Text("\(greeting) \\(count)")), .button(Button(id: "bump", title: "Bump")),
                ])
            }
            func handle(_ action: Action, at location: Location) {
                if case .tap(id: "bump") = action { count += 1 }
            }
            func snapshot() -> Data? { Data("\(version):\\(count)".utf8) }
            func restore(from snapshot: Data) throws {
                let text = String(decoding: snapshot, as: UTF8.self)
                if \(abortsOnNewer) && !text.hasPrefix("\(version):") { abort() }
                count = Int(text.split(separator: ":").last ?? "") ?? 0
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(TallyFeature.self)
        }
        """
    }

    private static func build(greeting: String, version: Int, abortsOnNewer: Bool = false) async throws -> URL {
        try await compilePlugin(
            module: "Tally", source: source(greeting: greeting, version: version, abortsOnNewer: abortsOnNewer)
        ).appendingPathComponent("libTally.so")
    }

    @Test(
        "events piped during an isolated swap all reach the new version; a rollback whose old version dies taking the state leaves the new one running and says so"
    )
    func swapThenFailedRollback() async throws {
        let first = try await Self.build(greeting: "One", version: 1, abortsOnNewer: true)
        let second = try await Self.build(greeting: "Two", version: 2)
        let (app, installed) = try HotSwapEndToEndTests.watchIsolated(first, feature: "tally")
        try await app.waitForFrame(route: "tally://home") { screenText($0).contains("One 0") }
        try await app.waitFor("notice") { $0["code"] as? String == "watching" }

        // The build lands, and a script pipes twenty taps at once without waiting for anything.
        try HotSwapEndToEndTests.install(second, at: installed)
        try app.send(Array(repeating: ["type": "tap", "id": "bump"], count: 20))
        let swapped = try await app.waitFor("notice") { $0["code"] as? String == "swapped" }
        #expect(swapped["from"] as? Int == 1 && swapped["to"] as? Int == 2)
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("Two 20") && $0["version"] as? Int == 2
        }
        #expect(!app.objects.contains { $0["code"] as? String == "not-settled" })
        let running = try await HotSwapEndToEndTests.waitForOneFeatureHost(of: app.processID)
        // Nothing of v1's child stays: below the app only v2's namespace's two processes (none without them).
        let inside = ProcessNamespaces.refusal(ProcessInfo.processInfo.environment) == nil ? 2 : 0
        let pid = app.processID
        #expect(
            await ProcessNamespacesEndToEndTests.below(pid) {
                $0.filter(HangDiagnosis.inNestedNamespace).count == inside
            })

        // v1's restore aborts on v2's state: its new child dies, v2's child runs on, and the error says so.
        try app.send([["type": "rollback", "feature": "tally"]])
        let failed = try await app.waitFor("error") { $0["code"] as? String == "rollback-failed" }
        let message = failed["message"] as? String ?? ""
        #expect(message.hasPrefix("Tally could not roll back to v1: "))
        #expect(message.hasSuffix("; v2 keeps running"))
        try app.send([["type": "tap", "id": "bump"]])
        try await app.waitForFrame(route: "tally://home") {
            screenText($0).contains("Two 21") && $0["version"] as? Int == 2
        }
        #expect(try await HotSwapEndToEndTests.waitForOneFeatureHost(of: app.processID) == running)
        #expect(!app.objects.contains { ($0["code"] as? String)?.hasPrefix("feature-") == true })
        #expect(try await app.finish() == 0)
    }

    @Test("the private copies and pinned links of a killed host are removed by the next host; a running host's stay")
    func leftoversOfAKilledHost() async throws {
        let plugins = try temporaryFolder("tally-leftovers")
        try FileManager.default.copyItem(
            at: try await Self.build(greeting: "One", version: 1), to: plugins.appendingPathComponent("libTally.so"))
        let arguments = [
            "run", "--no-supervise", "--isolation", "process", "--plugins", plugins.path, "--only", "tally", "--ui",
            "json",
        ]
        let temporary = Scratch.childEnvironment()["TMPDIR"] ?? NSTemporaryDirectory()
        func leftovers(of pid: Int32) -> [String] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
            return names.filter { $0 == "microapp-pinned-\(pid)" || $0.hasPrefix("microapp-feature-\(pid)-") }.sorted()
        }
        // The host sees no feature of this repository (an empty MICROAPP_TEST_FEATURES), only libTally.so. The extra
        // child folders full runs once counted were those of the repository's own features beside the host: under
        // --isolation process each of their libraries starts a child, because a feature's id (what --only names) is
        // known only once its child reports the manifest; --only then ends those children, and each one's folder is
        // removed once its last stderr lines are read, a moment later. With one library there is one child, so the
        // folders are exactly one pinned folder and one child's folder, for each host.
        let environment = ["MICROAPP_TEST_FEATURES": ""]
        func expectOwnFolders(of pid: Int32, _ names: [String]) {
            #expect(names.count == 2, "a pinned folder and one child's folder, nothing else: \(names)")
            #expect(names.contains("microapp-pinned-\(pid)"), "the pinned folder: \(names)")
            #expect(names.contains { $0.hasPrefix("microapp-feature-\(pid)-") }, "the child's folder: \(names)")
        }
        let killed = try AppProcess(arguments, environment: environment)
        try await killed.waitForFrame(route: "tally://home") { screenText($0).contains("One 0") }
        expectOwnFolders(of: killed.processID, leftovers(of: killed.processID))
        #expect(kill(killed.processID, SIGKILL) == 0)
        _ = try? await killed.finish()

        let next = try AppProcess(arguments, environment: environment)
        try await next.waitForFrame(route: "tally://home") { screenText($0).contains("One 0") }
        // The cleanup runs beside the start, on a thread of its own: it is waited for, not assumed done.
        try await next.waitUntil { leftovers(of: killed.processID).isEmpty }
        // The running host's pinned folder and its child's folder stay.
        expectOwnFolders(of: next.processID, leftovers(of: next.processID))
        #expect(try await next.finish() == 0)
    }
}
