import Foundation
import TestScratch
import Testing

/// The promise of library evolution, tried for real: the plugins `swift test` built against this SDK (1.N) run
/// in the `microapp` binary next to an SDK 1.N+1 that gained a stored property at the front of `Screen` (every
/// other field moves), a new public type and a new method, compiled here with swiftc from a copy of the SDK's
/// sources. Without library evolution the same change makes an already-built plugin crash on its first screen.
@Suite("Plugins built against this SDK keep working with an SDK that grew additively")
struct SDKEvolutionTests {
    static let repository = Repository.root

    /// `microapp` and the plugins `swift test` built, and the SDK they were built against.
    static let built = AppProcess.buildDirectory

    /// The SDK's minor version as its header says (`MICROAPP_SDK_MINOR`).
    static let minor: Int = {
        let header = try? String(
            contentsOf: repository.appendingPathComponent("Sources/MicroappSDK/ABI/include/microapp.h"), encoding: .utf8
        )
        let line = header?.split(separator: "\n").first { $0.hasPrefix("#define MICROAPP_SDK_MINOR ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }()

    /// Copies the SDK's sources into `folder`, makes the additive changes of the next minor, and builds
    /// `libMicroappSDK.so` there.
    static func buildGrownSDK(in folder: URL) async throws -> URL {
        let grown = minor + 1
        let files = FileManager.default
        let sources = folder.appendingPathComponent("Swift")
        try files.copyItem(at: repository.appendingPathComponent("Sources/MicroappSDK/Swift"), to: sources)
        let include = folder.appendingPathComponent("c")
        try files.createDirectory(at: include, withIntermediateDirectories: true)
        var header = try String(
            contentsOf: repository.appendingPathComponent("Sources/MicroappSDK/ABI/include/microapp.h"), encoding: .utf8
        )
        header = header.replacingOccurrences(
            of: "#define MICROAPP_SDK_MINOR \(minor)", with: "#define MICROAPP_SDK_MINOR \(grown)")
        try header.write(to: include.appendingPathComponent("microapp.h"), atomically: true, encoding: .utf8)
        try "module CMicroappABI {\n    header \"microapp.h\"\n    export *\n}\n".write(
            to: include.appendingPathComponent("module.modulemap"), atomically: true, encoding: .utf8)
        let symbols = (0...grown).map {
            "__attribute__((visibility(\"default\"))) const char microapp_sdk_1_\($0)[] = \"1.\($0)\";"
        }
        try (["#include \"microapp.h\""] + symbols).joined(separator: "\n").write(
            to: folder.appendingPathComponent("abi.c"), atomically: true, encoding: .utf8)

        let screen = sources.appendingPathComponent("Screen.swift")
        var text = try String(contentsOf: screen, encoding: .utf8)
        let declaration = "public struct Screen: Codable, Sendable, Equatable {\n"
        #expect(text.contains(declaration), "Screen.swift changed: update this test's edit")
        text = text.replacingOccurrences(
            of: declaration,
            with: declaration
                + "    /// Added in the next minor, first: every older field moves.\n    public var footnote: String? = nil\n"
        )
        text += """

            /// Added in the next minor.
            public struct Badge: Sendable { public var label = "new"; public init() {} }

            extension Screen {
                /// Added in the next minor.
                public func badged() -> Badge { Badge() }
            }

            """
        try text.write(to: screen, atomically: true, encoding: .utf8)

        let object = folder.appendingPathComponent("abi.o").path
        let compiled = try await runToEnd(
            ["cc", "-c", "-fPIC", "-I", include.path, "-o", object, folder.appendingPathComponent("abi.c").path],
            executable: "/usr/bin/env")
        try #require(compiled.status == 0, "\(compiled.err)")
        let library = folder.appendingPathComponent("lib/libMicroappSDK.so")
        try files.createDirectory(at: library.deletingLastPathComponent(), withIntermediateDirectories: true)
        let swiftFiles = try files.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
            .map { sources.appendingPathComponent($0).path }
        let linked = try await runToEnd(
            [
                "swiftc", "-emit-library", "-module-name", "MicroappSDK", "-swift-version", "6",
                "-enable-library-evolution", "-suppress-warnings", "-I", include.path,
                "-module-cache-path", folder.appendingPathComponent("cache").path,
                "-Xlinker", "-soname=libMicroappSDK.so", "-o", library.path, object,
            ] + swiftFiles, executable: "/usr/bin/env")
        try #require(linked.status == 0, "\(linked.err)")
        return library
    }

    /// `microapp` copied into `folder` beside `sdk` (its RUNPATH has `$ORIGIN`, so that SDK is the one it loads).
    static func host(in folder: URL, sdk: URL) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let executable = folder.appendingPathComponent("microapp")
        try FileManager.default.copyItem(at: built.appendingPathComponent("microapp"), to: executable)
        try FileManager.default.copyItem(at: sdk, to: folder.appendingPathComponent("libMicroappSDK.so"))
        return executable.path
    }

    @Test("each demo feature draws the same previews and probes ok with the next SDK as with the one it was built for")
    func oldPluginsDrawTheSameWithAGrownSDK() async throws {
        let folder = Scratch.folder("sdk-evolution")
        defer { Scratch.remove(folder.path) }
        let (old, next) = ("1.\(Self.minor)", "1.\(Self.minor + 1)")
        let grown = try await Self.buildGrownSDK(in: folder.appendingPathComponent("sdk-\(next)"))
        let before = try Self.host(
            in: folder.appendingPathComponent("host-\(old)"),
            sdk: Self.built.appendingPathComponent("libMicroappSDK.so"))
        let after = try Self.host(in: folder.appendingPathComponent("host-\(next)"), sdk: grown)
        #expect(try await runToEnd(["--version"], executable: before).out.contains("SDK \(old)"))
        #expect(try await runToEnd(["--version"], executable: after).out.contains("SDK \(next)"))

        for feature in ["Auth", "Characters", "Search", "Settings"] {
            let plugin = Self.built.appendingPathComponent("lib\(feature).so").path
            let arguments = ["preview", feature, "--plugins", Self.built.path, "--no-build", "--ui", "json"]
            let drawnBefore = try await runToEnd(arguments, executable: before)
            let drawnAfter = try await runToEnd(arguments, executable: after)
            #expect(drawnBefore.status == 0, "\(feature) with SDK \(old): \(drawnBefore.err)")
            #expect(drawnAfter.status == 0, "\(feature) with SDK \(next): \(drawnAfter.err)")
            #expect(!drawnAfter.out.isEmpty)
            #expect(drawnAfter.out == drawnBefore.out, "\(feature) draws differently with SDK \(next)")
            let probed = try await runToEnd(["probe", plugin, "--json"], executable: after)
            #expect(probed.status == 0, "\(feature): \(probed.out) \(probed.err)")
            #expect(probed.out.contains("first screens"), "\(probed.out)")
        }
    }
}
