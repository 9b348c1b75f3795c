import Foundation
import TestScratch
import Testing

/// An app's own host, outside this repository: a package whose `main.swift` hands its own services to the
/// MicroappTool library, and a feature of its own that needs one of them. SLOW: the package's clean build compiles
/// the whole host stack; it is made once per test process and shared.
@Suite("End to end: an app's own host built on MicroappTool", .serialized)
struct AppHostTests {
    /// The host's composition root, exactly as the README's "Your own app host" shows it.
    static let mainSource = """
        import Foundation
        import MicroappTool

        /// The one service this app offers its features: `greeting.message`.
        let greeting = DependencyKey<Service<Nothing, String>>.service("greeting.message")
            .described("The app's greeting")

        var host = HostConfiguration(
            name: "Hello App", home: "hello://home",
            services: { _, _ in
                let container = Container()
                container.provide(greeting, Service { _ in "Hello from the app's own service" })
                return container
            })
        // Any feature may read the greeting; an unnamed key would be for features own or pinned by a trusted lock.
        host.grants = [greeting.id: .public]

        exit(await MicroappTool.main(host: host))

        """

    /// The app's feature: one screen showing what `greeting.message` answers, with a mock for `solo`.
    static let featureSource = """
        import MicroappSDK

        public enum HelloFeature: Feature {
            static let greeting = DependencyKey<Service<Nothing, String>>.service("greeting.message")

            public static let manifest = FeatureManifest(
                id: "hello", version: 1, displayName: "Hello", routes: [RouteDeclaration("hello://home")],
                requirements: [greeting.requirement], hasMocks: true)

            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                HelloRoot(greet: try context.service(greeting), onChange: { context.invalidate() })
            }

            @MainActor public static func mocks() -> Mocks {
                var mocks = Mocks()
                mocks.service(greeting, Service { _ in "Hello from the feature's mock" })
                return mocks
            }
        }

        @MainActor final class HelloRoot: Root {
            private let greet: Service<Nothing, String>
            private let onChange: () -> Void
            private var message = "Asking the app…"

            init(greet: Service<Nothing, String>, onChange: @escaping () -> Void) {
                self.greet = greet
                self.onChange = onChange
            }

            func willShow(_ location: Location) {
                Task {
                    message = (try? await greet(Nothing())) ?? "The app's greeting service failed"
                    onChange()
                }
            }

            func screen(at location: Location) -> Screen { Screen(title: "Hello", content: [.text(Text(message))]) }
            func handle(_ action: Action, at location: Location) {}
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(HelloFeature.self)
        }

        """

    /// The package's manifest as docs/app-host.md shows it (its `swift` block that starts `// swift-tools-version`),
    /// `/path/to/microapps` replaced by this repository's path: the guide's manifest as pasted, in a checkout whose
    /// folder is not named `microapps` (a package named by its path's last component would not resolve there).
    static func manifest(repository: URL) throws -> String {
        let guide = try String(contentsOf: repository.appendingPathComponent("docs/app-host.md"), encoding: .utf8)
        let blocks = guide.components(separatedBy: "```swift\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first ?? ""
        }
        guard let block = blocks.first(where: { $0.hasPrefix("// swift-tools-version") }) else {
            throw AppProcessError("docs/app-host.md has no Package.swift block")
        }
        return block.replacingOccurrences(of: "/path/to/microapps", with: repository.path) + "\n"
    }

    /// The built host; `libHello.so` is beside it, where a host looks for its plugins first.
    static func host() async throws -> String {
        try await SharedBuilds.shared.value(of: "app-host-hello") { try await build() }
    }

    private static func build() async throws -> String {
        let folder = try temporaryFolder("microapp-app-host").resolvingSymlinksInPath()
        let package = folder.appendingPathComponent("HelloApp")
        let files = [
            "Package.swift": try manifest(repository: Repository.root), "Sources/hello-host/main.swift": mainSource,
            "Sources/Hello/Hello.swift": featureSource,
        ]
        for (path, text) in files {
            let file = package.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        // Built as a person builds it: a plain `swift build` in the package, into its own `.build` (not the
        // repository's, which this test run locks), so the host finds its feature where SwiftPM put it — a package
        // with a Package.swift beside its `.build` is not taken for this repository. No shared manifest cache entry.
        // Without index store and debug information: the claim is that the host compiles, links and runs against
        // MicroappTool as a package outside the repository, which a build without them shows as well; the hosts
        // below run with --no-build, so nothing builds the package again with other options.
        let scratch = package.appendingPathComponent(".build")
        let options = ["--manifest-cache", "none"] + SwiftPM.fixtureOptions
        let started = ContinuousClock.now
        let (status, output) = try await SwiftPM.run(["build"] + options, in: package, timeout: .seconds(900))
        guard status == 0 else {
            throw AppProcessError(
                "`swift build` of the app's own host failed (exit \(status)):\n"
                    + output.split(separator: "\n").suffix(40).joined(separator: "\n"))
        }
        print("app's own host: clean swift build in \(ContinuousClock.now - started)")
        return scratch.appendingPathComponent("debug/hello-host").path
    }

    @Test("run in an app's own host draws its feature with the answer of the host's own service")
    func runDrawsTheHostsService() async throws {
        let host = try await Self.host()
        let app = try AppProcess(["run", "--ui", "json"], executable: host)
        let home = try await app.waitForFrame(route: "hello://home") {
            screenText($0).contains("Hello from the app's own service")
        }
        #expect(home["feature"] as? String == "hello")
        #expect(home["mode"] as? String == "run")
        #expect(try await app.finish() == 0)
    }

    @Test(
        "an app's own host installs as microapp does: under env -i from an unrelated folder, it draws its feature with its service and maps the Swift runtime from its prefix"
    )
    func ownHostInstalls() async throws {
        let host = try await Self.host()
        let prefix = try temporaryFolder("own-host-install").appendingPathComponent("app").path
        let installed = try await runToEnd(["install", "--prefix", prefix, "-c", "debug"], executable: host)
        #expect(installed.status == 0, "\(installed.err)")
        #expect(FileManager.default.fileExists(atPath: prefix + "/bin/hello-host"), "\(installed.out)")
        #expect(FileManager.default.fileExists(atPath: prefix + "/plugins/libHello.so"), "\(installed.out)")
        let home = try temporaryFolder("own-host-home").path
        let elsewhere = try temporaryFolder("own-host-elsewhere").path
        let app = try AppProcess(
            [
                "-i", "--chdir=\(elsewhere)", "HOME=\(home)", "XDG_DATA_HOME=\(home)/data",
                "XDG_CACHE_HOME=\(home)/cache", "XDG_STATE_HOME=\(home)/state", "XDG_CONFIG_HOME=\(home)/config",
                prefix + "/bin/hello-host", "--ui", "json",
            ], executable: "/usr/bin/env")
        try await app.waitForFrame(route: "hello://home") {
            screenText($0).contains("Hello from the app's own service")
        }
        #expect(procText("/proc/\(app.processID)/maps").contains(prefix + "/lib/libswiftCore.so"))
        #expect(try await app.finish() == 0)
    }

    @Test("solo in an app's own host runs its feature alone on the feature's mocks, not the host's service")
    func soloUsesTheMocks() async throws {
        let host = try await Self.host()
        let app = try AppProcess(["solo", "Hello", "--ui", "json"], executable: host)
        let home = try await app.waitForFrame(route: "hello://home") {
            screenText($0).contains("Hello from the feature's mock")
        }
        #expect(home["mode"] as? String == "solo")
        #expect(try await app.finish() == 0)
    }

    @Test("keys, graph and doctor in an app's own host see its own service, offered by the host, used by its feature")
    func inspectCommandsSeeTheHostsService() async throws {
        let host = try await Self.host()
        let keys = try await runToEnd(["keys", "--json", "--no-build"], executable: host)
        #expect(keys.status == 0, "\(keys.err)")
        let rows = keys.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // Besides its keys, every host lists the capabilities it can grant (`kind` capability).
        let offered = rows.filter { $0["kind"] as? String != "capability" }
        #expect(offered.compactMap { $0["key"] as? String } == ["greeting.message"], "the demo's keys are not there")
        let greeting = try #require(offered.first)
        #expect(greeting["provider"] as? String == "host")
        #expect(greeting["summary"] as? String == "The app's greeting")
        #expect(greeting["usedBy"] as? [String] == ["hello"])

        let graph = try await runToEnd(["graph", "--no-build"], executable: host)
        #expect(graph.status == 0, "\(graph.err)")
        #expect(graph.out.contains("greeting.message (read) ← host"), "\(graph.out)")

        let doctor = try await runToEnd(["doctor", "--no-build"], executable: host)
        #expect(doctor.status == 0, "\(doctor.err)")
        #expect(doctor.out.contains("hello") && doctor.out.contains("ok"), "\(doctor.out)")
    }

    @Test(
        "an app's own host speaks its own name, heads its screens with its app's name, shows no account words without sign-in, and says truly why its features are its own"
    )
    func speaksItsOwnName() async throws {
        let host = try await Self.host()
        let nearMiss = try await runToEnd(["rout"], executable: host)
        // Said as it can be typed: the package's .build/debug is not on PATH, so the host by its full path.
        let typed = URL(fileURLWithPath: host).resolvingSymlinksInPath().path
        #expect(nearMiss.err.contains("did you mean `\(typed) routes`?"), "\(nearMiss.err)")
        let version = try await runToEnd(["--version"], executable: host)
        #expect(version.out.hasPrefix("hello-host (MicroappTool 0.1.0, "), "\(version.out)")

        let text = try await runToEnd(["run", "--ui", "text", "--no-build"], executable: host)
        #expect(text.status == 0, "\(text.err)")
        let header = text.out.split(separator: "\n").first.map(String.init) ?? ""
        #expect(header.hasPrefix("Hello App · Hello"), "\(text.out)")
        #expect(header.hasSuffix("   v1") && !header.contains("signed out"), "\(header)")

        let doctor = try await runToEnd(["doctor", "--no-build"], executable: host)
        #expect(doctor.out.contains("isolation none (built in this repository's own build folder)"), "\(doctor.out)")
    }
}
