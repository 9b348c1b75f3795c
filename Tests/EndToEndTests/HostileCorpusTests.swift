import Foundation
import MicroappPlatform
import TestScratch
import TestServers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One row of `Tests/HostileFixtures/expected.json`: a hostile library and what must happen when it acts.
struct HostileRow: Decodable, Sendable, CustomStringConvertible {
    /// The module; the library is `lib<module>.so`.
    var module: String
    /// `swift` (from Hostile.swift.template) or `c` (from Constructor.c.template).
    var language: String
    /// What it does (the template's switch, or the C define).
    var behaviour: String
    /// What sets it off: `start`, `go`, `load` or `replace`.
    var when: String
    /// Error codes of which one must come naming the library (`*`: any); empty when none is expected.
    var errors: [String]
    /// Text its screen must show after Go, if that is what is expected (an error of `errors` also does).
    var screen: String?
    /// True when its output must come as `log` lines.
    var log: Bool?
    /// Why, in words.
    var why: String

    var library: String { "lib\(module).so" }
    /// The feature id and route scheme: the module in lower case.
    var id: String { module.lowercased() }
    var route: String { "\(id)://home" }
    var description: String { "\(module) (\(behaviour))" }
}

/// The hostile corpus: the table, and the libraries built from the templates beside it.
enum HostileCorpus {
    static let folder = Repository.root.appendingPathComponent("Tests/HostileFixtures")

    static func rows() throws -> [HostileRow] {
        struct Table: Decodable { var rows: [HostileRow] }
        let data = try Data(contentsOf: folder.appendingPathComponent("expected.json"))
        return try JSONDecoder().decode(Table.self, from: data).rows
    }

    /// Builds every row into `plugins`: the Swift template once (each Swift row is a copy of it under the row's
    /// library name, and tells its behaviour from that name), each C row with `cc`. `port` is where the connecting
    /// row connects; `variant` makes a build that differs from the first (a "new build" of the same rows).
    static func build(_ rows: [HostileRow], port: UInt16, into plugins: URL, variant: String = "") async throws {
        let swiftRows = rows.filter { $0.language == "swift" }
        if !swiftRows.isEmpty {
            let behaviours = swiftRows.map { "\"\($0.module)\": \"\($0.behaviour)\"" }.joined(separator: ", ")
            let source = try String(
                contentsOf: folder.appendingPathComponent("Hostile.swift.template"), encoding: .utf8
            )
            .replacingOccurrences(of: "__BEHAVIOURS__", with: behaviours + variant)
            .replacingOccurrences(of: "__PORT__", with: "\(port)")
            .replacingOccurrences(of: "__PLUGINS__", with: plugins.path)
            let built = try await compilePlugin(module: "HostileBuild", source: source)
            try await offThePool {
                for row in swiftRows {
                    try install(built.appendingPathComponent("libHostileBuild.so"), as: row.library, in: plugins)
                }
            }
        }
        for row in rows where row.language == "c" {
            let source = try String(
                contentsOf: folder.appendingPathComponent("Constructor.c.template"), encoding: .utf8
            ).replacingOccurrences(of: "__ID__", with: row.id)
            try await offThePool {
                let scratch = try temporaryFolder("hostile-\(row.module)")
                let file = scratch.appendingPathComponent("\(row.module).c")
                try source.write(to: file, atomically: true, encoding: .utf8)
                try compileC(
                    file, defining: "HOSTILE_\(row.behaviour)", into: scratch.appendingPathComponent(row.library))
                try install(scratch.appendingPathComponent(row.library), as: row.library, in: plugins)
            }
        }
    }

    private static func install(_ built: URL, as name: String, in plugins: URL) throws {
        let target = plugins.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: built, to: target)
    }

    /// Runs `cc` (blocking: called off the pool).
    private static func compileC(_ file: URL, defining define: String, into library: URL) throws {
        let build = AppProcess.buildDirectory.path
        let include = Repository.root.appendingPathComponent("Sources/MicroappSDK/ABI/include").path
        let arguments = [
            "cc", "-w", "-shared", "-fPIC", "-D\(define)", "-I", include, "-L", build, "-lMicroappSDK",
            "-Wl,-rpath,\(build)", "-o", library.path, file.path,
        ]
        let outcome = try CompilerSlots.run {
            try ChildProcess(arguments, environment: Scratch.childEnvironment(), error: .output).wait()
        }
        guard outcome.termination == .exited(0) else {
            throw AppProcessError("cc could not build \(library.lastPathComponent):\n\(outcome.text)")
        }
    }

}

// Not serialized: the table's check shares nothing with the corpus's run, and before it in a serialized suite it put
// seconds of queueing (a synchronous test waits for a thread off the pool) in front of the run's longest test.
@Suite("End to end: hostile plugins beside the demo, each isolated", .promptResumes)
struct HostileCorpusTests {
    @Test("the table names each library once, each with a behaviour, a trigger and an expected outcome")
    func tableIsComplete() throws {
        let rows = try HostileCorpus.rows()
        #expect(Set(rows.map(\.module)).count == rows.count)
        #expect(rows.count >= 18)
        for row in rows {
            #expect(["start", "go", "load", "replace"].contains(row.when), "\(row)")
            #expect(["swift", "c"].contains(row.language), "\(row)")
            #expect(!row.why.isEmpty, "\(row)")
        }
        let swiftTemplate = try String(
            contentsOf: HostileCorpus.folder.appendingPathComponent("Hostile.swift.template"), encoding: .utf8)
        for row in rows where row.language == "swift" && row.behaviour != "harmless" {
            #expect(swiftTemplate.contains("\"\(row.behaviour)\""), "the template does nothing for \(row)")
        }
    }

    @Test(
        "with --isolation process the demo journey completes beside every hostile library, and each is contained",
        .timeLimit(.minutes(10)))
    func corpusIsContained() async throws {
        let rows = try HostileCorpus.rows()
        let listener = try LoopbackHTTPServer(lifetime: .seconds(600)) { _ in .respond(status: 200, body: "owned") }
        defer { listener.stop() }
        let plugins = try temporaryFolder("hostile-plugins")
        // The new build of the replaced row is compiled beside the first build (two compilers at once), not in the
        // middle of the run, where it waited for a compiler behind every other test's fixtures.
        let newer = try temporaryFolder("hostile-newer")
        async let newBuild: Void = HostileCorpus.build(
            rows.filter { $0.when == "replace" }, port: listener.port, into: newer, variant: ", \"new\": \"build\"")
        try await HostileCorpus.build(rows, port: listener.port, into: plugins)
        try await newBuild
        let home = try temporaryFolder("hostile-home")
        let secret = "PLANTED-SECRET-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent(".ssh"), withIntermediateDirectories: true)
        try secret.write(to: home.appendingPathComponent(".ssh/id_hostile"), atomically: true, encoding: .utf8)
        // The library the chmod row finds through the host's command line, and its mode before.
        let chmodTarget = plugins.appendingPathComponent("libHostileChmod.so").path
        let modeBefore = try FileManager.default.attributesOfItem(atPath: chmodTarget)[.posixPermissions] as? Int
        // The key the shared-memory row asks for (its template's: 0x4D410000 | the port).
        let segmentKey = key_t(0x4D41_0000 | Int32(listener.port))
        let data = AppProcess.freshDataDirectory()
        let sessionFile = URL(fileURLWithPath: data).appendingPathComponent("session.json")
        // The product's own deadline, 2 s: the frozen row is stopped after it, well within the 20 s each row's outcome
        // is waited for. The demo journey's features are not: a sign-up's password is hashed by the host's service,
        // which the watchdog does not count against the child, and a child a loaded machine keeps from a CPU gets
        // more deadlines (it was 8 s before the watchdog knew either, and that wait was this suite's longest part).
        let app = try AppProcess(
            ["run", "--ui", "json", "--isolation", "process", "--plugins", plugins.path, "--data", data],
            environment: ["HOME": home.path, "MICROAPP_FEATURE_DEADLINE_MS": "2000"])

        var failures: [String: String] = [:]
        /// Waits for the outcome a row expects; records what was missing instead of stopping the run.
        func expectOutcome(_ row: HostileRow, since mark: Int) async {
            do {
                try await app.waitUntil(timeout: .seconds(20)) { Self.outcomeSeen(row, in: app.objects(since: mark)) }
                print("hostile row \(row.module): as expected")
            } catch {
                failures[row.module] = "\(row.why): not seen — \(error)"
                print("hostile row \(row.module): NOT as expected")
            }
        }

        /// Runs one step of the demo journey; a step that fails is recorded and the run goes on.
        func journey(_ step: String, _ body: () async throws -> Void) async {
            do { try await body() } catch { failures["demo journey: \(step)"] = "\(error)" }
        }

        try await app.waitFor("frame")
        for row in rows where ["start", "load"].contains(row.when) && !row.errors.isEmpty {
            await expectOutcome(row, since: 0)
        }

        for row in rows where row.when == "go" || row.when == "replace" {
            if row.when == "replace" {
                // cp writes over the file in place, as a person copying a new build would.
                let copy = try ChildProcess(
                    [
                        "cp", newer.appendingPathComponent(row.library).path,
                        plugins.appendingPathComponent(row.library).path,
                    ])
                _ = await BlockingWork.run { copy.wait() }
            }
            let mark = app.mark
            try app.send([["type": "open", "url": row.route]])
            do {
                try await app.waitForFrame(route: row.route, timeout: .seconds(30)) {
                    screenText($0).contains("\"go\"")
                }
            } catch {
                failures[row.module] = "its screen with Go never came: \(error)"
                continue
            }
            try app.send([["type": "tap", "id": "go"]])
            await expectOutcome(row, since: mark)
            try app.send([["type": "back"]])
        }

        // The demo journey, after every hostile library has acted.
        await journey("sign in") {
            try app.signInAsRick()
            try await app.waitForFrame(route: "characters://list") { screenText($0).contains("Morty Smith") }
        }
        await journey("detail") {
            try app.send([["type": "select", "id": "characters", "index": 1]])
            try await app.waitForFrame(route: "characters://detail/2") { screenText($0).contains("Origin") }
        }
        await journey("search") {
            try app.send([
                ["type": "open", "url": "search://home"], ["type": "input", "id": "query", "text": "Morty"],
            ])
            try await app.waitForFrame(route: "search://home") { screenText($0).contains("Morty Smith") }
        }
        await journey("settings") {
            try app.send([["type": "open", "url": "settings://home"]])
            try await app.waitForFrame(route: "settings://home") { screenText($0).contains("rick@example.com") }
        }
        let sessionWhileSignedIn = (try? String(contentsOf: sessionFile, encoding: .utf8)) ?? ""
        await journey("sign out") {
            try app.send([["type": "tap", "id": "sign-out"]])
            try await app.waitForFrame(route: "auth://select") { $0["account"] is NSNull }
        }
        try app.send([["type": "quit"]])
        #expect(try await app.finish(timeout: .seconds(30)) == 0, "quit did not end the run while children hung")

        let lines = app.rawLines
        #expect(lines.allSatisfy(Self.isJSONObject), "a line of stdout is not JSON")
        #expect(!lines.joined().contains("\u{1B}"), "an escape sequence reached stdout")
        #expect(!lines.joined().contains(secret), "the planted secret reached the app's output")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("hostile-was-here").path))
        #expect(listener.targets.isEmpty, "a plugin without the network capability reached the loopback server")
        let modeAfter = try FileManager.default.attributesOfItem(atPath: chmodTarget)[.posixPermissions] as? Int
        #expect(modeAfter == modeBefore, "a plugin changed the mode of a library in its --plugins folder")
        let segment = shmget(segmentKey, 0, 0)
        if segment >= 0 { shmctl(segment, IPC_RMID, nil) }
        #expect(segment < 0, "a plugin left a SysV shared memory segment behind")
        #expect(!sessionWhileSignedIn.contains("Mallory"))
        #expect(!((try? String(contentsOf: sessionFile, encoding: .utf8)) ?? "").contains("Mallory"))
        for error in app.objects where error["type"] as? String == "error" {
            #expect((error["fix"] as? String)?.isEmpty == false, "an error without a fix: \(error)")
            #expect((error["message"] as? String)?.isEmpty == false, "an error without a message: \(error)")
        }
        for row in rows where row.log == true {
            let logged = app.objects.contains { $0["type"] as? String == "log" && $0["feature"] as? String == row.id }
            if !logged { failures[row.module, default: ""] += " its output never came as log lines" }
        }
        let passed = rows.filter { failures[$0.module] == nil }.map(\.module)
        print("hostile corpus: \(passed.count) of \(rows.count) rows contained as expected: \(passed.sorted())")
        for (module, failure) in failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(module): \(failure)")
        }
    }

    /// True when `objects` hold what `row` expects: an error of its codes naming its library, or its screen
    /// showing the expected text, or (for rows that expect neither) any frame of its route after Go.
    static func outcomeSeen(_ row: HostileRow, in objects: [[String: Any]]) -> Bool {
        let named = objects.contains { object in
            guard object["type"] as? String == "error", let code = object["code"] as? String else { return false }
            let text = "\(object["message"] ?? "") \(object["detail"] ?? "")"
            // Errors about a feature's process name its library; resolver errors name the feature.
            let names = text.contains(row.library) || (row.errors.contains("*") && text.contains(row.id))
            return (row.errors.contains(code) || row.errors.contains("*")) && names
        }
        if named { return true }
        let frames = objects.filter { $0["type"] as? String == "frame" && $0["route"] as? String == row.route }
        if let screen = row.screen {
            return frames.contains { screenText($0).contains("result: \(screen)") }
        }
        return row.errors.isEmpty && frames.contains { !screenText($0).contains("result: not yet") }
    }

    private static func isJSONObject(_ line: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any]
    }
}

/// The frozen row alone, apart from the corpus's long run (it shares nothing with it, and after it in one serialized
/// suite it made that suite, the test phase's longest chain, longer still).
@Suite("End to end: a hostile feature whose main thread freezes", .promptResumes)
struct FrozenFeatureTests {
    @Test(
        "a feature whose main thread freezes is stopped as feature-hung by the watchdog, Restart brings it back, quit works"
    )
    func frozenFeatureRestarts() async throws {
        let row = try #require(try HostileCorpus.rows().first { $0.behaviour == "frozen-main" })
        let plugins = try temporaryFolder("hostile-frozen")
        try await HostileCorpus.build([row], port: 9, into: plugins)
        let app = try AppProcess(
            ["run", "--ui", "json", "--isolation", "process", "--plugins", plugins.path, "--open", row.route],
            environment: ["MICROAPP_FEATURE_DEADLINE_MS": "1500"])
        try await app.waitForFrame(route: row.route) { screenText($0).contains("\"go\"") }
        try app.send([["type": "tap", "id": "go"]])
        let hung = try await app.waitFor("error") { $0["code"] as? String == "feature-hung" }
        #expect((hung["message"] as? String)?.contains(row.library) == true)
        #expect((hung["message"] as? String)?.contains("an action on \(row.route)") == true)
        try await app.waitForFrame(route: row.route) { screenText($0).contains("stopped: it did not answer") }
        try app.send([["type": "tap", "id": "restart"]])
        try await app.waitForFrame(route: row.route) { screenText($0).contains("result: not yet") }
        try app.send([["type": "quit"]])
        #expect(try await app.finish() == 0)
    }
}
