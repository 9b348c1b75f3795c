import Foundation
import TestScratch
import Testing

@Suite("End to end: microapp solo, one feature on its mocks", .serialized, .promptResumes)
struct SoloTests {
    @Test(
        "every feature in Plugins/ runs alone on its mocks, its first screen headed `solo · mocks`",
        arguments: Repository.featureFolders)
    func eachFeatureRunsAlone(folder: String) async throws {
        let app = try AppProcess(["solo", folder, "--ui", "json"])
        let frame = try await app.waitFor("frame")
        #expect(frame["mode"] as? String == "solo")
        #expect(frame["feature"] as? String == folder.lowercased())
        #expect((frame["route"] as? String)?.hasPrefix(folder.lowercased() + "://") == true)
        #expect(try await app.finish() == 0)
        #expect(!app.errorText.contains("to fix:"), "\(app.errorText)")
    }

    @Test("Characters alone is signed in by its mock session, lists the mock characters and names its mocks")
    func charactersSignedInByMocks() async throws {
        let app = try AppProcess(["solo", "characters", "--ui", "json", "--mock", "characters.detail=failing"])
        let list = try await app.waitForFrame(route: "characters://list") { screenText($0).contains("Morty Smith") }
        #expect(list["account"] as? String == "rick@example.com")
        #expect(list["mocks"] as? [String] == ["characters.detail=failing", "characters.page=default", "session"])
        #expect(screenText(list).contains("Signed in as Rick Sanchez"))
        #expect(try await app.finish() == 0)
    }

    @Test("a route into a feature that is not loaded shows a stub saying where it would go, and Back returns")
    func foreignRouteIsAStub() async throws {
        let app = try AppProcess(["solo", "Characters", "--ui", "json", "--open", "characters://detail/2"])
        try await app.waitForFrame(route: "characters://detail/2") { screenText($0).contains("Origin") }
        try app.send([["type": "open", "url": "auth://sign-in"]])
        let stub = try await app.waitForFrame(route: "auth://sign-in")
        let text = screenText(stub).replacingOccurrences(of: "\\/", with: "/")
        #expect(text.contains("Auth is not loaded"))
        #expect(text.contains("→ would open auth://sign-in (Auth is not loaded)"))
        #expect(stub["mode"] as? String == "solo")
        let notice = try await app.waitFor("notice") { $0["code"] as? String == "stub" }
        #expect((notice["message"] as? String)?.contains("auth://sign-in") == true)
        try app.send([["type": "tap", "id": "back"]])
        try await app.waitFor("frame") {
            $0["route"] as? String == "characters://detail/2"
                && app.objects.contains { $0["route"] as? String == "auth://sign-in" }
        }
        #expect(try await app.finish() == 0)
    }

    @Test("a route of an unknown scheme is a stub named by its scheme")
    func unknownSchemeIsAStub() async throws {
        let app = try AppProcess(["solo", "Auth", "--ui", "json", "--open", "nowhere://at/all"])
        let stub = try await app.waitForFrame(route: "nowhere://at/all")
        let text = screenText(stub).replacingOccurrences(of: "\\/", with: "/")
        #expect(text.contains("→ would open nowhere://at/all (nowhere is not loaded)"))
        #expect(try await app.finish() == 0)
    }

    @Test("signing in to Auth alone continues to the home route, a stub of Characters")
    func authAloneContinuesToAStub() async throws {
        let app = try AppProcess(["solo", "Auth", "--ui", "json"])
        try await app.waitForFrame(route: "auth://select") { $0["mode"] as? String == "solo" }
        try app.send([
            ["type": "tap", "id": "sign-in"],
            ["type": "input", "id": "email", "text": "rick@example.com"],
            ["type": "input", "id": "password", "text": "portal-gun"],
            ["type": "tap", "id": "submit"],
        ])
        let home = try await app.waitForFrame(route: "characters://list")
        #expect(screenText(home).contains("Characters is not loaded"))
        #expect(home["account"] as? String == "rick@example.com")
        #expect(try await app.finish() == 0)
    }

    @Test("--mock characters.page=failing shows the list's error state, with Retry")
    func failingVariant() async throws {
        let app = try AppProcess(["solo", "Characters", "--ui", "json", "--mock", "characters.page=failing"])
        let frame = try await app.waitForFrame(route: "characters://list") {
            screenText($0).contains("Could not load characters")
        }
        #expect(screenText(frame).contains("The characters service is unavailable"))
        #expect(screenText(frame).contains(#""id":"retry""#))
        #expect(try await app.finish() == 0)
    }

    @Test(
        "an unknown --mock key or variant is a usage error listing the mocks there are, in the app or in a child",
        arguments: ["none", "process"])
    func unknownMock(isolation: String) async throws {
        let key = try await runToEnd([
            "solo", "Characters", "--ui", "text", "--no-build", "--mock", "characters.nope=failing", "--isolation",
            isolation,
        ])
        #expect(key.status == 1)
        #expect(key.err.contains("there is no mock for 'characters.nope'"))
        #expect(key.err.contains("characters.page = default | failing") && key.err.contains("session (state)"))
        #expect(key.err.contains("variants: characters.detail = default | failing; characters.page"), "\(key.err)")
        #expect(!key.err.contains("   "), "the list is one line of items separated by '; ', not spaces: \(key.err)")
        let variant = try await runToEnd([
            "solo", "Characters", "--ui", "text", "--no-build", "--mock", "characters.page=slowish", "--isolation",
            isolation,
        ])
        #expect(variant.status == 1)
        #expect(
            variant.err.contains("characters.page has no variant 'slowish'") && variant.err.contains("default, failing")
        )
        let malformed = try await runToEnd(["solo", "Characters", "--no-build", "--mock", "characters.page"])
        #expect(malformed.status == 1)
        #expect(malformed.err.contains("KEY=VARIANT"))
    }

    @Test("an unknown feature is a usage error listing the features there are")
    func unknownFeature() async throws {
        let result = try await runToEnd(["solo", "Nobody", "--ui", "text", "--no-build"])
        #expect(result.status == 1)
        #expect(result.err.contains("no feature is called 'Nobody'"))
        #expect(result.err.contains("Auth") && result.err.contains("Characters"))
    }

    @Test(
        "a requirement without a mock stops solo with exit 2, naming every such key and how to add the mock, in the app or in a child",
        arguments: ["none", "process"])
    func unmockedRequirement(isolation: String) async throws {
        let source = try temporaryFolder("microapp-unmocked").appendingPathComponent("Unmocked.swift")
        try Self.unmockedSource.write(to: source, atomically: true, encoding: .utf8)
        let plugins = try await compilePlugin(module: "Unmocked", sources: [source])
        let result = try await runToEnd([
            "solo", "Unmocked", "--ui", "text", "--no-build", "--plugins", plugins.path, "--isolation", isolation,
        ])
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains("unmocked.clock") && result.err.contains("unmocked.weather"), "\(result.err)")
        #expect(result.err.contains("cannot run alone until every requirement has a mock"), "\(result.err)")
        #expect(!result.err.contains("rebuild"), "a mock problem is not the library's build: \(result.err)")
        #expect(result.err.contains("ships no mock") && result.err.contains("mocks.service("))
        #expect(result.err.contains("UnmockedFeature"))
        let preview = try await runToEnd(["preview", "Unmocked", "--no-build", "--plugins", plugins.path])
        #expect(preview.status == 1)
        #expect(preview.err.contains("Unmocked has no previews") && preview.err.contains("previews()"))
    }

    @Test("previews that choose a mock variant the feature lacks fail with exit 2, naming it and the known ones")
    func previewWithUnknownVariant() async throws {
        let plugins = try await compilePlugin(module: "Varied", source: Self.variedSource)
        let result = try await runToEnd(["preview", "Varied", "--no-build", "--plugins", plugins.path])
        #expect(result.status == 2, "\(result.err)")
        #expect(result.err.contains("varied.count has no variant 'slow'"), "\(result.err)")
        #expect(result.err.contains("use one of: default, failing"), "\(result.err)")
    }

    /// A feature with a mocked service in two variants whose previews ask for a third.
    static let variedSource = """
        import MicroappSDK

        public enum VariedFeature: Feature {
            static let count = DependencyKey<Service<Nothing, Nothing>>.service("varied.count")

            public static let manifest = FeatureManifest(
                id: "varied", version: 1, displayName: "Varied", routes: [RouteDeclaration("varied://home")],
                requirements: [count.requirement], hasMocks: true)

            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                _ = try context.service(count)
                return VariedRoot()
            }

            @MainActor public static func mocks() -> Mocks {
                var mocks = Mocks()
                mocks.service(count, Service { _ in Nothing() })
                mocks.service(count, variant: "failing", Service { _ in throw ServiceError(code: "down", message: "Down") })
                return mocks
            }

            @MainActor public static func previews() async throws -> [ScreenPreview] {
                [try RootDriver(Self.self, open: "varied://home", mocks: [count.id: "slow"]).preview()]
            }
        }

        @MainActor final class VariedRoot: Root {
            func screen(at location: Location) -> Screen { Screen(title: "Varied", content: []) }
            func handle(_ action: Action, at location: Location) {}
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(VariedFeature.self)
        }
        """

    /// A feature that needs a service and ships no mocks at all.
    static let unmockedSource = """
        import MicroappSDK

        public enum UnmockedFeature: Feature {
            static let clock = DependencyKey<Service<Nothing, Nothing>>.service("unmocked.clock")
            static let weather = DependencyKey<Service<Nothing, Nothing>>.service("unmocked.weather")

            public static let manifest = FeatureManifest(
                id: "unmocked", version: 1, displayName: "Unmocked", routes: [RouteDeclaration("unmocked://home")],
                requirements: [clock.requirement, weather.requirement])

            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                throw DependencyError(key: "unmocked.clock", reason: "never started in this test", fix: "none")
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(UnmockedFeature.self)
        }
        """
}
