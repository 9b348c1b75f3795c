import Foundation
import TestScratch
import Testing

@Suite("End to end: features in their own processes (--isolation process)", .serialized, .promptResumes)
struct IsolationTests {
    @Test(
        "the demo journey completes with every feature in a child, whose environment holds none of the host's secrets: sign up, list, next page, detail, search, settings, sign out"
    )
    func journey() async throws {
        let email = "summer@example.com"
        let app = try AppProcess(
            ["run", "--no-supervise", "--ui", "json", "--isolation", "process"],
            environment: ["MICROAPP_TEST_TOKEN": "secret-token-of-the-host"])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        try app.signUpAsSummer(email)
        let firstPage = try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 1 of") }
        #expect(firstPage["account"] as? String == email)

        // The features' code is mapped in the children, never in the host.
        let host = procText("/proc/\(app.processID)/maps")
        let mapped = descendants(of: app.processID).map {
            procText("/proc/\($0)/maps")
        }
        let environments = descendants(of: app.processID).map {
            Data(procText("/proc/\($0)/environ").utf8)
        }
        // The harness can read them (a child's own marker is there), so the secret's absence means something.
        #expect(environments.filter { String(decoding: $0, as: UTF8.self).contains("MICROAPP_INTERNAL=1") }.count >= 4)
        #expect(!environments.contains { String(decoding: $0, as: UTF8.self).contains("secret-token-of-the-host") })
        for feature in ["Auth", "Characters", "Search", "Settings"] {
            #expect(!host.contains("lib\(feature).so"))
            #expect(mapped.filter { $0.contains("lib\(feature).so") }.count == 1, "lib\(feature).so")
        }

        try app.send([["type": "tap", "id": "more"]])
        try await app.waitForFrame(route: "characters://list") { screenText($0).contains("page 2 of") }
        try app.send([["type": "select", "id": "characters", "index": 12]])
        try await app.waitForFrame(route: "characters://detail/13") { screenText($0).contains("Episodes") }
        try app.send([["type": "open", "url": "search://home"], ["type": "input", "id": "query", "text": "Morty"]])
        try await app.waitForFrame(route: "search://home") { screenText($0).contains("Morty Smith") }
        try app.send([["type": "back"], ["type": "open", "url": "settings://home"]])
        try await app.waitForFrame(route: "settings://home") { screenText($0).contains(email) }
        try app.send([["type": "tap", "id": "sign-out"]])
        try await app.waitForFrame(route: "auth://select") {
            $0["account"] is NSNull && screenText($0).contains("Create account")
        }
        #expect(try await app.finish() == 0)
    }

    static let printerSource = """
        import Foundation
        import Glibc
        import MicroappSDK

        public enum PrinterFeature: Feature {
            public static let manifest = FeatureManifest(
                id: "printer", version: 1, displayName: "Printer", routes: [RouteDeclaration("printer://home")],
                requirements: [DependencyKey<Session?>.session(access: .read).requirement])
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root {
                print("{\\"type\\":\\"frame\\",\\"forged\\":true}")
                print("\\u{1B}[31mhello from the plugin\\u{1B}[0m")
                return PrinterRoot()
            }
        }

        @MainActor final class PrinterRoot: Root {
            func screen(at location: Location) -> Screen {
                Screen(title: "Printer", content: [
                    .button(Button(id: "crash", title: "Crash")), .button(Button(id: "garbage", title: "Garbage")),
                    .button(Button(id: "forge", title: "Forge")),
                    .button(Button(id: "flood", title: "Flood")),
                ])
            }
            func handle(_ action: Action, at location: Location) {
                switch action {
                case .tap(id: "crash"):
                    let words = Array("about to crash\\n".utf8)
                    _ = write(2, words, words.count)
                    raise(SIGSEGV)
                case .tap(id: "garbage"):
                    // The protocol socket is this process's standard input.
                    let junk: [UInt8] = [0, 0, 0, 5, 0x7B, 0x7B, 0x7B, 0x7B, 0x7B]
                    _ = write(0, junk, junk.count)
                case .tap(id: "flood"):
                    for index in 0..<20_000 { print("line \\(index)") }
                case .tap(id: "forge"):
                    // A well-formed frame the child's own code never sends: a write of state it may only read.
                    let mallory = #"{"accountID":"m","email":"mallory@example.com","name":"Mallory"}"#
                    let body = Array(#"{"stateWrite":{"key":"session","value":"\\#(Data(mallory.utf8).base64EncodedString())"}}"#.utf8)
                    let length = UInt32(body.count).bigEndian
                    let frame = withUnsafeBytes(of: length) { Array($0) } + body
                    _ = write(0, frame, frame.count)
                default: break
                }
            }
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
            MicroappEntry.export(PrinterFeature.self)
        }
        """

    @Test("what an isolated feature prints becomes log lines: stdout holds only JSON and no forged frame")
    func printedLinesAreLogs() async throws {
        let plugins = try await Self.printer.value
        let app = try AppProcess([
            "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
            "--only", "printer", "--open", "printer://home",
        ])
        try await app.waitForFrame(route: "printer://home") { screenText($0).contains("Crash") }
        let log = try await app.waitFor("log") { ($0["line"] as? String)?.contains("hello from the plugin") == true }
        #expect(log["feature"] as? String == "printer")
        #expect(log["line"] as? String == "hello from the plugin")
        try await app.waitFor("log") { ($0["line"] as? String)?.contains("forged") == true }
        #expect(try await app.finish() == 0)
        #expect(app.objects.allSatisfy { $0["forged"] == nil })
        #expect(app.objects.count == app.lines.count)
    }

    @Test("a feature that crashes stops alone: an error names the signal and its last stderr line, the app answers on")
    func crashStopsTheFeatureOnly() async throws {
        let plugins = try await Self.printer.value
        let app = try AppProcess([
            "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
            "--open", "printer://home",
        ])
        try await app.waitForFrame(route: "printer://home") { screenText($0).contains("Crash") }
        try app.send([["type": "tap", "id": "crash"]])
        let error = try await app.waitFor("error") { $0["code"] as? String == "feature-crashed" }
        #expect((error["message"] as? String)?.contains("SIGSEGV") == true)
        #expect((error["detail"] as? [String])?.contains("about to crash") == true)
        try app.send([["type": "open", "url": "auth://select"]])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        #expect(try await app.finish() == 0)
    }

    @Test("a feature that writes garbage on the protocol socket is cut off with feature-protocol")
    func garbageIsCutOff() async throws {
        let plugins = try await Self.printer.value
        let app = try AppProcess([
            "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
            "--only", "printer", "--open", "printer://home",
        ])
        try await app.waitForFrame(route: "printer://home") { screenText($0).contains("Garbage") }
        try app.send([["type": "tap", "id": "garbage"]])
        let error = try await app.waitFor("error") { $0["code"] as? String == "feature-protocol" }
        #expect((error["message"] as? String)?.contains("libPrinter.so") == true)
        #expect(try await app.finish() == 0)
    }

    @Test("a feature that writes state it may only read is cut off, and the session stays as it was")
    func forgedStateWriteIsCutOff() async throws {
        let plugins = try await Self.printer.value
        let app = try AppProcess([
            "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
            "--open", "printer://home",
        ])
        try await app.waitForFrame(route: "printer://home") { screenText($0).contains("Forge") }
        try app.send([["type": "tap", "id": "forge"]])
        let error = try await app.waitFor("error") { $0["code"] as? String == "feature-protocol" }
        #expect((error["message"] as? String)?.contains("'session', which it may only read") == true)
        try app.send([["type": "open", "url": "auth://select"]])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        #expect(try await app.finish() == 0)
        #expect(app.objects.allSatisfy { ($0["account"] as? String) == nil })
    }

    @Test("a feature that prints a flood of lines is cut off with feature-protocol; the app answers on")
    func floodIsCutOff() async throws {
        let plugins = try await Self.printer.value
        let app = try AppProcess([
            "run", "--no-supervise", "--ui", "json", "--isolation", "process", "--plugins", plugins.path,
            "--open", "printer://home",
        ])
        try await app.waitForFrame(route: "printer://home") { screenText($0).contains("Flood") }
        try app.send([["type": "tap", "id": "flood"]])
        let error = try await app.waitFor("error") { $0["code"] as? String == "feature-protocol" }
        #expect((error["message"] as? String)?.contains("printed lines at once") == true)
        try app.send([["type": "open", "url": "auth://select"]])
        try await app.waitForFrame(route: "auth://select") { screenText($0).contains("Create account") }
        #expect(try await app.finish() == 0)
        // The budget is 1000 lines and refills at 500 a second, so how many get through before the cut depends on how
        // fast this machine reads them (a loaded CI run once let 1130 through a bound of 1100): that the flood was cut
        // short does not.
        #expect(app.objects.filter { $0["type"] as? String == "log" }.count < 20_000)
    }

    /// The printer fixture, compiled once for the suite (in the test process's scratch folder, removed at its exit).
    static let printer = Task { try await compilePlugin(module: "Printer", source: printerSource) }
}
