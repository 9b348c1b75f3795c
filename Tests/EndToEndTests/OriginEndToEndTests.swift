import Foundation
import TestScratch
import Testing

/// Features built out of tree, as an outside team builds them, that try to pass their screens off as another's or to
/// move the person: one source, copied under each module name (the library tells its part from its file name).
enum OriginFixtures {
    static let source = """
        import Foundation
        import MicroappSDK

        /// `Lurker` for `…/libLurker.so`: the mapping of /proc/self/maps that holds this image names its file.
        let module: String = {
            let address = UInt(bitPattern: #dsohandle)
            // Read to its end: /proc says its size is 0, and String(contentsOfFile:) stops after the first page, which
            // holds this image's line only when few mappings lie below it.
            let maps = String(decoding: (try? FileHandle(forReadingAtPath: "/proc/self/maps")?.readToEnd()) ?? Data(), as: UTF8.self)
            for line in maps.split(separator: "\\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let bounds = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
                guard fields.count >= 6, bounds.count == 2, bounds[0] <= address, address < bounds[1] else { continue }
                let file = (String(fields[5]) as NSString).lastPathComponent
                return String(file.dropFirst(3).dropLast(3))
            }
            return "Unknown"
        }()
        let featureID = module.lowercased()
        /// A mark of this process, another in each child (made once, when first asked).
        let childMark = UUID().uuidString.prefix(8)
        let startDirectory = FileManager.default.currentDirectoryPath

        public enum OriginFeature: Feature {
            public static var manifest: FeatureManifest {
                var routes = [RouteDeclaration("\\(featureID)://home"), RouteDeclaration("\\(featureID)://page/{n}")]
                var name = module
                var tab: TabDeclaration?
                // SpoofN: the issue's look-alikes of Settings and more, as display name and tab title at order 1.
                let spoofs = [
                    "Sett\\u{034F}ings", "Settings\\u{3164}", "Settings\\u{FE0F}", "\\u{FF33}ettings", "\\u{0405}ettings",
                    "Set\\u{200D}tings", "\\u{202E}sgnitteS", "\\u{3164}",
                ]
                // (The probe maps a copy whose file name is not the library's own: found anywhere in it.)
                if let at = featureID.range(of: "spoof"), let n = Int(featureID[at.upperBound...]), spoofs.indices.contains(n) {
                    name = spoofs[n]
                    tab = TabDeclaration(title: spoofs[n], route: "\\(featureID)://home", order: 1)
                }
                if module == "Shifter" {
                    // Each child registers another name: its first is the host's record, a restart's is not. (Not
                    // its pid: in a PID namespace of its own every child is 2.)
                    name = "Shifter \\(childMark)"
                }
                if module == "Tabber" {
                    // Asks for the first place in the tab bar.
                    tab = TabDeclaration(title: "Tabber", route: "\\(featureID)://home", order: 1)
                }
                if module == "Impostor" {
                    // Calls itself Settings, with a tab that sorts first, and draws a sign-in form in Auth's scheme.
                    routes.append(RouteDeclaration("auth://verify"))
                    name = "Settings"
                    tab = TabDeclaration(title: "Settings", route: "\\(featureID)://home", order: -100)
                }
                var manifest = FeatureManifest(id: featureID, version: 1, displayName: name, routes: routes)
                manifest.tab = tab
                return manifest
            }

            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                let navigation = context.navigation
                if module == "Lurker" {
                    // Tries to pull the person onto its form at any moment, wherever they are.
                    Task { @MainActor in
                        while true {
                            try? await Task.sleep(for: .milliseconds(400))
                            navigation.open("lurker://page/1")
                        }
                    }
                }
                return OriginRoot(navigation: navigation)
            }
        }

        /// What this process finds of process `pid` through /proc, as an attacker looks: its command line,
        /// environment and memory maps, and whether SIGKILL reaches it.
        func peek(_ pid: Int32) -> [String] {
            func attempt(_ file: String) -> String {
                let descriptor = open("/proc/\\(pid)/\\(file)", O_RDONLY)
                guard descriptor >= 0 else { return "\\(file)=denied(\\(errno))" }
                defer { close(descriptor) }
                var bytes = [UInt8](repeating: 0, count: 4096)
                let count = Glibc.read(descriptor, &bytes, bytes.count)
                return count < 0 ? "\\(file)=denied(\\(errno))" : "\\(file)=read(\\(count))"
            }
            let signal = kill(pid, SIGKILL) == 0 ? "kill=sent" : "kill=refused(\\(errno))"
            return [attempt("cmdline"), attempt("environ"), attempt("maps"), signal]
        }

        /// The processes this one sees in /proc, and the command line of the first.
        func census() -> [String] {
            let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
            let first = (FileManager.default.contents(atPath: "/proc/1/cmdline") ?? Data()).map { $0 == 0 ? 32 : $0 }
            return [
                "self=\\(getpid())", "procs=\\(pids.sorted().map(String.init).joined(separator: ","))",
                "cmdline1=\\(String(decoding: first, as: UTF8.self))",
            ]
        }

        @MainActor final class OriginRoot: Root {
            let navigation: any NavigationHost
            init(navigation: any NavigationHost) { self.navigation = navigation }

            func screen(at location: Location) -> Screen {
                if module == "Peeker" {
                    // Home: what it sees; page/N: what it reaches of process N (a pid as the host's tests know it).
                    let lines = location.parameters["n"].flatMap { Int32($0) }.map(peek) ?? census()
                    return Screen(title: "Peeker", content: lines.map { .text(Text($0)) })
                }
                if module == "Pwd" {
                    // Where the child runs: its working directory as the library first sees it.
                    return Screen(title: "Pwd", content: [.text(Text("cwd=\\(startDirectory)"))])
                }
                return Screen(
                    title: "Verify your account",
                    content: [
                        .field(TextField(id: "password", label: "Password", isSecure: true)),
                        .button(Button(id: "go", title: "Go")),
                    ])
            }

            func handle(_ action: Action, at location: Location) {
                if action == .tap(id: "go"), module == "Shifter" { exit(3) }
                guard action == .tap(id: "go"), module == "Looper" else { return }
                for n in 0..<1_500 { navigation.push("looper://page/\\(n)") }
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(OriginFeature.self)
        }
        """

    /// A folder of `lib<module>.so` for each of `modules`, built once per test run.
    static func plugins(_ modules: [String]) async throws -> URL {
        let built = try await Built.shared.library()
        let folder = try temporaryFolder("origin-plugins")
        for module in modules {
            try FileManager.default.copyItem(
                at: built.appendingPathComponent("libOriginBuild.so"),
                to: folder.appendingPathComponent("lib\(module).so"))
        }
        return folder
    }

    private actor Built {
        static let shared = Built()
        private var folder: URL?
        func library() async throws -> URL {
            if let folder { return folder }
            let built = try await compilePlugin(module: "OriginBuild", source: OriginFixtures.source)
            folder = built
            return built
        }
    }
}

@Suite("End to end: screens belong to their feature, navigation follows the person", .serialized, .promptResumes)
struct OriginEndToEndTests {
    static let isolations = ["process", "auto"]

    static func run(_ isolation: String, plugins: URL, _ extra: [String] = []) throws -> AppProcess {
        try AppProcess(
            [
                "run", "--no-supervise", "--ui", "json", "--isolation", isolation, "--plugins", plugins.path,
                "--data", AppProcess.freshDataDirectory(),
            ] + extra)
    }

    static func errors(_ app: AppProcess, code: String) -> [[String: Any]] {
        app.objects.filter { $0["type"] as? String == "error" && $0["code"] as? String == code }
    }

    @Test(
        "a feature calling itself Settings with a route in Auth's scheme is refused; Auth and Settings run on",
        arguments: isolations)
    func impostorIsRefused(isolation: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Impostor"])
        let app = try Self.run(isolation, plugins: plugins)
        try await app.waitForFrame(route: "auth://select")
        try await app.waitUntil {
            !Self.errors(app, code: "scheme-taken").isEmpty && !Self.errors(app, code: "name-taken").isEmpty
        }
        let scheme = try #require(Self.errors(app, code: "scheme-taken").first)
        #expect((scheme["message"] as? String)?.contains("auth://verify") == true)
        #expect((scheme["message"] as? String)?.contains("impostor") == true)
        #expect((scheme["fix"] as? String)?.isEmpty == false)
        try app.signInAsRick()
        let list = try await app.waitForFrame(route: "characters://list")
        let tabs = (list["tabs"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(tabs.contains("tab.settings") && !tabs.contains("tab.impostor"))
        try app.send([["type": "open", "url": "auth://verify"]])
        try await app.waitFor("error") { ($0["message"] as? String)?.contains("auth://verify") == true }
        #expect(!app.objects.contains { $0["type"] as? String == "frame" && $0["feature"] as? String == "impostor" })
        #expect(try await app.finish() == 0)
    }

    @Test(
        "a feature opening a route from a timer while another is on screen does not move the person",
        arguments: isolations)
    func lurkerDoesNotMoveThePerson(isolation: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Lurker"])
        let app = try Self.run(isolation, plugins: plugins)
        try app.signInAsRick()
        try await app.waitForFrame(route: "characters://list")
        let mark = app.mark
        // A Lurker refused at the start (a probe or handshake cut off) would never navigate: that ends the wait too,
        // and fails below with its reason instead of a timeout.
        let refusedAtStart = {
            app.objects.filter {
                ($0["code"] as? String)?.hasPrefix("probe-") == true
                    || ($0["code"] as? String)?.hasPrefix("register-") == true
            }
        }
        try await app.waitUntil {
            !refusedAtStart().isEmpty
                || app.objects(since: mark).filter {
                    $0["code"] as? String == "navigation-refused" && $0["feature"] as? String == "lurker"
                }.count >= 2
        }
        #expect(refusedAtStart().isEmpty, "\(refusedAtStart())")
        let frames = app.objects.filter { $0["type"] as? String == "frame" }
        #expect(!frames.contains { ($0["route"] as? String)?.hasPrefix("lurker://") == true })
        #expect((app.lastFrame?["route"] as? String) == "characters://list")
        let notice = try #require(app.objects.first { $0["code"] as? String == "navigation-refused" })
        #expect((notice["message"] as? String)?.contains("lurker") == true)
        #expect(try await app.finish() == 0)
    }

    @Test(
        "a feature pushing in a loop is cut off with feature-protocol, and the back stack stays within 64",
        arguments: isolations)
    func looperIsCutOff(isolation: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Looper"])
        let app = try Self.run(isolation, plugins: plugins, ["--open", "looper://home"])
        try await app.waitForFrame(route: "looper://home") { screenText($0).contains("Go") }
        try app.send([["type": "tap", "id": "go"]])
        let cut = try await app.waitFor("error") { $0["code"] as? String == "feature-protocol" }
        #expect((cut["message"] as? String)?.contains("navigation") == true)
        let depths = app.objects.compactMap { $0["type"] as? String == "frame" ? $0["depth"] as? Int : nil }
        #expect(depths.allSatisfy { $0 < 64 })
        try app.send([["type": "open", "url": "auth://select"]])
        try await app.waitForFrame(route: "auth://select")
        #expect(try await app.finish() == 0)
    }

    @Test("an untrusted feature's JSON frames carry the origin mark", arguments: isolations)
    func jsonOrigin(isolation: String) async throws {
        let plugins = try await OriginFixtures.plugins(["Lurker"])
        let app = try Self.run(isolation, plugins: plugins, ["--open", "lurker://home"])
        let frame = try await app.waitForFrame(route: "lurker://home") { screenText($0).contains("Password") }
        let origin = try #require(frame["origin"] as? [String: String])
        #expect(origin["trust"] == "untrusted")
        #expect(origin["feature"] == "lurker")
        #expect(origin["library"] == plugins.appendingPathComponent("libLurker.so").path)
        try app.send([["type": "open", "url": "auth://select"]])
        let auth = try await app.waitForFrame(route: "auth://select")
        #expect((auth["origin"] as? [String: String])?["trust"] == "own")
        #expect(try await app.finish() == 0)
    }

    @Test("the terminal header shows the host's untrusted mark on such a feature's screen, and beside its password")
    func terminalHeader() async throws {
        let plugins = try await OriginFixtures.plugins(["Lurker"])
        let pane = try TmuxPane(
            "\(AppProcess.executable) run --no-build --plugins \(plugins.path) --open lurker://home"
                + " --data \(AppProcess.freshDataDirectory())",
            environment: ["NO_COLOR": "1"])
        let screen = try await pane.waitFor("Microapps · untrusted · lurker from", "Verify your account")
        #expect(screen.contains("⚠ untrusted · lurker from"))
        #expect(!screen.contains("Microapps · Lurker"))
        try pane.send("C-c")
    }

    @Test(
        "the demo journey still navigates: sign up, list → detail, search → detail, tabs, settings → sign out",
        arguments: ["process", "none"])
    func demoJourney(isolation: String) async throws {
        let app = try AppProcess(
            [
                "run", "--no-supervise", "--ui", "json", "--isolation", isolation, "--data",
                AppProcess.freshDataDirectory(),
            ])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        try app.signUpAsSummer("summer-origin@example.com")
        try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 1 of") }
        try app.send([["type": "select", "id": "characters", "index": 1]])
        try await app.waitForFrame(route: "characters://detail/2")
        try app.send([["type": "tap", "id": "tab.search"], ["type": "input", "id": "query", "text": "Rick"]])
        try await app.waitForFrame(route: "search://home") { screenText($0).contains("Rick Sanchez") }
        try app.send([["type": "select", "id": "results", "index": 0]])
        try await app.waitForFrame { ($0["route"] as? String)?.hasPrefix("characters://detail/") == true }
        try app.send([["type": "tap", "id": "tab.settings"]])
        try await app.waitForFrame(route: "settings://home")
        try app.send([["type": "tap", "id": "sign-out"]])
        try await app.waitForFrame(route: "auth://select") { $0["account"] is NSNull }
        #expect(!app.objects.contains { $0["code"] as? String == "navigation-refused" })
        #expect(try await app.finish() == 0)
    }
}

extension AppProcess {
    /// Waits for a frame that satisfies `predicate`.
    @discardableResult
    fileprivate func waitForFrame(where predicate: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
        try await waitFor("frame", where: predicate)
    }
}
