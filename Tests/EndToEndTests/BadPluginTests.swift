import Foundation
import TestScratch
import Testing

@Suite("End to end: bad plugins never stop the others", .serialized, .promptResumes)
struct BadPluginTests {
    /// A folder with one library that is not a shared object.
    static func brokenFolder() throws -> URL {
        let folder = Scratch.folder("microapp-bad")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: folder.appendingPathComponent("libBroken.so"))
        return folder
    }

    @Test("a broken library is an error line naming the file and the app runs the rest")
    func runsTheRest() async throws {
        let folder = try Self.brokenFolder()
        let app = try AppProcess(["run", "--ui", "json", "--plugins", folder.path, "--open", "auth://select"])
        let error = try await app.waitFor("error") { $0["code"] as? String == "not-shared-object" }
        #expect((error["message"] as? String)?.contains("libBroken.so") == true)
        #expect((error["fix"] as? String)?.isEmpty == false)
        try await app.waitForFrame(route: "auth://select")
        #expect(try await app.finish() == 0)
    }

    @Test("--strict makes any plugin problem fatal with exit code 2, listing the problem")
    func strict() async throws {
        let folder = try Self.brokenFolder()
        let result = try await runToEnd(["run", "--ui", "text", "--strict", "--no-build", "--plugins", folder.path])
        #expect(result.status == 2)
        #expect(result.err.contains("libBroken.so: it is not an ELF shared object"))
        #expect(result.err.contains("to fix:"))
    }

    @Test("a library file named with an escape sequence reaches stderr and doctor's output without its control bytes")
    func escapeInFileName() async throws {
        let folder = Scratch.folder("microapp-escape")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // An ESC byte in the name: printed as it is, `[31m` would turn the rest of the terminal red.
        try Data("not a library".utf8).write(to: folder.appendingPathComponent("lib\u{1B}[31mRed.so"))
        let run = try await runToEnd(["run", "--ui", "text", "--strict", "--no-build", "--plugins", folder.path])
        #expect(run.status == 2)
        #expect(run.err.contains("lib[31mRed.so: it is not an ELF shared object"), "\(run.err)")
        #expect(!run.err.unicodeScalars.contains("\u{1B}"))
        let doctor = try await runToEnd(["doctor", folder.path, "--no-build"])
        #expect(doctor.status == 2)
        #expect(doctor.out.contains("lib[31mRed.so"), "\(doctor.out)")
        #expect(!doctor.out.unicodeScalars.contains("\u{1B}") && !doctor.err.unicodeScalars.contains("\u{1B}"))
    }

    @Test("an unknown --only id is a usage error listing the ids there are")
    func unknownOnly() async throws {
        let result = try await runToEnd(["run", "--ui", "text", "--no-build", "--only", "auth", "--only", "nope"])
        #expect(result.status == 1)
        #expect(result.err.contains("--only nope") && result.err.contains("auth"))
    }

    @Test("a host with no usable plugin exits 2 and lists every problem")
    func nothingLeft() async throws {
        // An installed host: the executable and the SDK, with no plugins beside them.
        let host = Scratch.folder("microapp-host")
        try FileManager.default.createDirectory(at: host, withIntermediateDirectories: true)
        try await copyHost(to: host)
        let folder = try Self.brokenFolder()
        try Data("also not a library".utf8).write(to: folder.appendingPathComponent("libAlsoBroken.so"))
        let result = try await runToEnd(
            ["run", "--ui", "text", "--no-build", "--plugins", folder.path],
            executable: host.appendingPathComponent("microapp").path)
        #expect(result.status == 2)
        #expect(result.err.contains("libBroken.so") && result.err.contains("libAlsoBroken.so"))
        #expect(result.err.contains("no feature is left to run"))
        let doctor = try await runToEnd(
            ["doctor", host.path, "--no-build"], executable: host.appendingPathComponent("microapp").path)
        #expect(doctor.status == 0)
        #expect(doctor.out.contains("no plugin libraries found"))
    }

    @Test("doctor lists each library with its verdict and exits 2 when one is bad")
    func doctor() async throws {
        let folder = try Self.brokenFolder()
        let result = try await runToEnd(["doctor", folder.path, "--json", "--no-build"])
        #expect(result.status == 2)
        let rows = result.out.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(rows.count == 1)
        #expect(rows.first?["verdict"] as? String == "refused")
        #expect(rows.first?["code"] as? String == "not-shared-object")
    }
}
