import Foundation
import TestScratch
import Testing

/// The promise of library evolution, tried for real: the plugins `swift test` built against this SDK (1.1) run
/// in the `microapp` binary next to an SDK 1.2 that gained a stored property at the front of `Screen` (every
/// other field moves), a new public type and a new method, compiled here with swiftc from a copy of the SDK's
/// sources. Without library evolution the same change makes an already-built plugin crash on its first screen.
@Suite("Plugins built against SDK 1.1 keep working with an SDK that grew additively")
struct SDKEvolutionTests {
    static let repository = Repository.root

    /// `microapp` and the plugins `swift test` built, and the SDK they were built against.
    static let built = AppProcess.buildDirectory

    /// Copies the SDK's sources into `folder`, makes the additive 1.2 changes, and builds `libMicroappSDK.so` there.
    static func buildGrownSDK(in folder: URL) async throws -> URL {
        let files = FileManager.default
        let sources = folder.appendingPathComponent("Swift")
        try files.copyItem(at: repository.appendingPathComponent("Sources/MicroappSDK/Swift"), to: sources)
        let include = folder.appendingPathComponent("c")
        try files.createDirectory(at: include, withIntermediateDirectories: true)
        var header = try String(
            contentsOf: repository.appendingPathComponent("Sources/MicroappSDK/ABI/include/microapp.h"), encoding: .utf8
        )
        header = header.replacingOccurrences(of: "#define MICROAPP_SDK_MINOR 1", with: "#define MICROAPP_SDK_MINOR 2")
        try header.write(to: include.appendingPathComponent("microapp.h"), atomically: true, encoding: .utf8)
        try "module CMicroappABI {\n    header \"microapp.h\"\n    export *\n}\n".write(
            to: include.appendingPathComponent("module.modulemap"), atomically: true, encoding: .utf8)
        try """
        #include "microapp.h"
        __attribute__((visibility("default"))) const char microapp_sdk_1_0[] = "1.0";
        __attribute__((visibility("default"))) const char microapp_sdk_1_1[] = "1.1";
        __attribute__((visibility("default"))) const char microapp_sdk_1_2[] = "1.2";
        """.write(to: folder.appendingPathComponent("abi.c"), atomically: true, encoding: .utf8)

        let screen = sources.appendingPathComponent("Screen.swift")
        var text = try String(contentsOf: screen, encoding: .utf8)
        let declaration = "public struct Screen: Codable, Sendable, Equatable {\n"
        #expect(text.contains(declaration), "Screen.swift changed: update this test's edit")
        text = text.replacingOccurrences(
            of: declaration,
            with: declaration
                + "    /// Added in 1.2, first: every older field moves.\n    public var footnote: String? = nil\n")
        text += """

            /// Added in 1.2.
            public struct Badge: Sendable { public var label = "new"; public init() {} }

            extension Screen {
                /// Added in 1.2.
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

    @Test("each demo feature draws the same previews and probes ok with SDK 1.2 as with the SDK it was built against")
    func oldPluginsDrawTheSameWithAGrownSDK() async throws {
        let folder = Scratch.folder("sdk-evolution")
        defer { Scratch.remove(folder.path) }
        let grown = try await Self.buildGrownSDK(in: folder.appendingPathComponent("sdk-1.2"))
        let before = try Self.host(
            in: folder.appendingPathComponent("host-1.1"), sdk: Self.built.appendingPathComponent("libMicroappSDK.so"))
        let after = try Self.host(in: folder.appendingPathComponent("host-1.2"), sdk: grown)
        #expect(try await runToEnd(["--version"], executable: before).out.contains("SDK 1.1"))
        #expect(try await runToEnd(["--version"], executable: after).out.contains("SDK 1.2"))

        for feature in ["Auth", "Characters", "Search", "Settings"] {
            let plugin = Self.built.appendingPathComponent("lib\(feature).so").path
            let arguments = ["preview", feature, "--plugins", Self.built.path, "--no-build", "--ui", "json"]
            let old = try await runToEnd(arguments, executable: before)
            let new = try await runToEnd(arguments, executable: after)
            #expect(old.status == 0, "\(feature) with SDK 1.1: \(old.err)")
            #expect(new.status == 0, "\(feature) with SDK 1.2: \(new.err)")
            #expect(!new.out.isEmpty)
            #expect(new.out == old.out, "\(feature) draws differently with SDK 1.2")
            let probed = try await runToEnd(["probe", plugin, "--json"], executable: after)
            #expect(probed.status == 0, "\(feature): \(probed.out) \(probed.err)")
            #expect(probed.out.contains("first screens"), "\(probed.out)")
        }
    }
}
