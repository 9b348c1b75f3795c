import CMicroappABI
import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import Testing

/// Each bad file is loaded in ONE `PluginSet.load` call together with the real plugins (the bad file first), and
/// the set is resolved: the bad file gets exactly one diagnostic naming it, the real plugins load and resolve.
@Suite("Loading refuses a bad library, names it, says why and how to fix it")
@MainActor
struct LoaderRefusalTests {
    /// Loads `bad` first and the real plugins after it; returns the one problem about `bad`.
    func refusal(of bad: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Problem {
        let (report, resolution) = await Host.loadAndResolve([bad] + Paths.realPlugins)
        Host.expectRealPluginsUnaffected(report, resolution, sourceLocation: sourceLocation)
        #expect(!report.images.contains { $0.path == bad }, sourceLocation: sourceLocation)
        let problems = report.problems.filter { $0.subject == bad }
        #expect(problems.count == 1, "\(report.problems)", sourceLocation: sourceLocation)
        #expect(report.problems.count == 1, "only the bad file has a problem", sourceLocation: sourceLocation)
        return try #require(problems.first, sourceLocation: sourceLocation)
    }

    /// A valid manifest for fixtures that are refused before their manifest matters.
    nonisolated static let manifest = Manifests.json("fixture")

    // MARK: Not a shared object

    @Test("a text file named libText.so is refused as not a shared object")
    func textFile() async throws {
        let path = try await fixture { try FixtureBuilder.file("libText.so", contents: Data("just some text\n".utf8)) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .notSharedObject)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["not an ELF shared object"], fix: [".dynamic", "remove the file"])
    }

    @Test("an empty file named like a plugin is refused as not a shared object")
    func emptyFile() async throws {
        let path = try await fixture { try FixtureBuilder.file("libEmpty.so", contents: Data()) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .notSharedObject)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["not an ELF shared object"], fix: [".dynamic"])
    }

    @Test("a folder named like a plugin is refused as not a regular file")
    func folder() async throws {
        let path = try await fixture { try FixtureBuilder.directory("libFolder.so") }
        let problem = try await refusal(of: path)
        #expect(problem.code == .notSharedObject)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["not a regular file"], fix: ["lib<Feature>.so"])
    }

    @Test("a missing file is reported as not found")
    func missingFile() async throws {
        let path = (Paths.fixtures as NSString).appendingPathComponent("libNowhere.so")
        let problem = try await refusal(of: path)
        #expect(problem.code == .notFound)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["no such file"], fix: ["swift build"])
    }

    @Test("a non-PIE executable (ET_EXEC) is refused as an ELF file that is not a shared object")
    func nonPIEExecutable() async throws {
        let path = try await fixture {
            try FixtureBuilder.executable(
                "libExecutable.so", source: "int main(void) { return 0; }\n", flags: ["-no-pie"])
        }
        let problem = try await refusal(of: path)
        #expect(problem.code == .notSharedObject)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["ELF file but not a shared object"], fix: [".dynamic"])
    }

    /// `cc` makes position-independent executables by default; their ELF type is ET_DYN like a library's, so the
    /// header check lets them through and `dlopen` refuses them ("cannot dynamically load position-independent
    /// executable"). The loader then reports `load-failed` with a fix about rebuilding with the same toolchain,
    /// which is wrong advice: the file is not a library at all.
    @Test("a PIE executable (the default of cc) is refused as not a shared object")
    func pieExecutable() async throws {
        let path = try await fixture {
            try FixtureBuilder.executable(
                "libPIEExecutable.so", source: "int main(void) { return 0; }\n", flags: ["-pie", "-fPIE"])
        }
        let problem = try await refusal(of: path)
        #expect(problem.code == .notSharedObject, "got \(problem.code): \(problem.reason); fix: \(problem.fix)")
        #expect(problem.subject == path)
        #expect(problem.reason.contains("executable"), "reason: \(problem.reason)")
        expectMentions(problem, fix: [".dynamic"])
    }

    // MARK: Entry and descriptor

    @Test("a library without microapp_entry is refused with the fix")
    func noEntrySymbol() async throws {
        let path = try await fixture {
            try FixtureBuilder.library(
                "NoEntry", source: "int microapp_entry_typo(void) { return 0; }\nint helper(void) { return 1; }\n")
        }
        let problem = try await refusal(of: path)
        #expect(problem.code == .noEntrySymbol)
        #expect(problem.subject == path)
        expectMentions(
            problem, reason: ["microapp_entry"],
            fix: ["@_cdecl(\"microapp_entry\")", "MicroappEntry.export"])
    }

    @Test("an entry that returns NULL is refused as a null descriptor")
    func nullDescriptor() async throws {
        var descriptor = DescriptorFixture(manifest: Self.manifest)
        descriptor.entryReturnsNull = true
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("NullDescriptor", descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .nullDescriptor)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["microapp_entry", "null"], fix: ["manifest"])
    }

    /// The other fields hold pointers that crash if read: the loader must stop at the version.
    @Test("a descriptor of ABI major 2 is refused before any other field is read")
    func abiMismatch() async throws {
        var descriptor = DescriptorFixture(manifest: nil)
        descriptor.abiVersion = "(2u << 16) | 3u"
        descriptor.structSize = "8"
        descriptor.sdkVersion = "(const char *)1"
        descriptor.rawManifest = "(const char *)1"
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("AbiTwo", descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .abiMismatch)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["ABI 2.3", "ABI 1.x"], fix: ["rebuild", "MicroappSDK"])
    }

    /// Fields past `struct_size` hold pointers that crash if read: the loader must stop at the size.
    @Test("a short descriptor (struct_size 8) is refused before the fields it does not have are read")
    func shortDescriptor() async throws {
        var descriptor = DescriptorFixture(manifest: nil)
        descriptor.structSize = "8"
        descriptor.sdkVersion = "(const char *)1"
        descriptor.rawManifest = "(const char *)1"
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("ShortDescriptor", descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .shortDescriptor)
        #expect(problem.subject == path)
        let minimum = MemoryLayout<UInt32>.size * 2 + MemoryLayout<UnsafeRawPointer>.size * 3
        expectMentions(
            problem, reason: ["8 bytes", "at least \(minimum)"], fix: ["do not write the descriptor by hand"])
    }

    @Test("a newer minor ABI with a longer descriptor loads (fields are only appended)")
    func newerMinorLoads() async throws {
        var descriptor = DescriptorFixture(manifest: Manifests.json("newer-minor"))
        descriptor.abiVersion = "(1u << 16) | 7u"
        descriptor.appendedBytes = 16
        descriptor.structSize = "(uint32_t)sizeof descriptor"
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("NewerMinor", descriptor) }
        let (report, resolution) = await Host.loadAndResolve([path] + Paths.realPlugins)
        Host.expectRealPluginsUnaffected(report, resolution)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.images.first?.path == path)
        #expect(report.images.first?.manifest.id == "newer-minor")
        #expect(resolution.startOrder.contains("newer-minor"))
    }

    // MARK: SDK version

    /// A fixture that needs `symbol` (an SDK version symbol) and aborts in a constructor, so that the test process
    /// dies if the loader lets `dlopen` run any of its code.
    nonisolated static func needing(_ symbol: String) -> DescriptorFixture {
        var descriptor = DescriptorFixture(manifest: manifest)
        descriptor.prelude = """
            #include <stdlib.h>
            extern const char \(symbol)[];
            __attribute__((constructor)) static void refuse_to_be_loaded(void) { abort(); }
            """
        descriptor.sdkVersion = symbol
        descriptor.versionSymbol = symbol
        return descriptor
    }

    @Test("a plugin built against SDK 2.0 is refused from its file, before any of its code runs, naming both versions")
    func sdkMajorNewer() async throws {
        let path = try await fixture { try FixtureBuilder.plugin("SDKTwo", Self.needing("microapp_sdk_2_0")) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .sdkMismatch)
        #expect(problem.subject == path)
        expectMentions(
            problem, reason: ["SDK 2.0", "SDK \(SDKVersion.current)"], fix: ["update the host to SDK 2.x", "1.x"])
    }

    @Test("a plugin built against a newer minor of the SDK is refused before its code runs, with 'update the host'")
    func sdkMinorNewer() async throws {
        let path = try await fixture { try FixtureBuilder.plugin("SDKNewMinor", Self.needing("microapp_sdk_1_99")) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .sdkMismatch)
        expectMentions(
            problem, reason: ["SDK 1.99", "SDK \(SDKVersion.current)"], fix: ["update the host to SDK 1.99 or later"])
    }

    @Test("a plugin built against an older major of the SDK is refused with 'rebuild the plugin against SDK 1.x'")
    func sdkMajorOlder() async throws {
        let path = try await fixture { try FixtureBuilder.plugin("SDKZero", Self.needing("microapp_sdk_0_4")) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .sdkMismatch)
        expectMentions(problem, reason: ["SDK 0.4"], fix: ["rebuild the plugin against SDK 1.x"])
        #expect(!problem.fix.contains("update the host"))
    }

    @Test("a plugin that names no SDK version symbol is refused before its code runs")
    func noVersionSymbol() async throws {
        var descriptor = Self.needing("microapp_sdk_1_0")
        descriptor.prelude =
            "#include <stdlib.h>\n__attribute__((constructor)) static void refuse_to_be_loaded(void) { abort(); }"
        descriptor.sdkVersion = "\"1.0\""
        descriptor.versionSymbol = nil
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("NoVersionSymbol", descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .sdkMismatch)
        expectMentions(problem, reason: ["no SDK version", "microapp_sdk_"], fix: ["MicroappEntry.export"])
    }

    /// The file needs this SDK's version symbol; only the descriptor's string is wrong: C expression, fixture
    /// name, what the reason must quote.
    nonisolated static let wrongVersionStrings: [(String, String, String)] = [
        ("\"1.0-beta\"", "VersionDiffers", "SDK version \"1.0-beta\""), ("NULL", "NullVersion", "no SDK version"),
    ]

    @Test(
        "a descriptor whose SDK version string is not the one its file needs, or null, is refused naming what it says",
        arguments: wrongVersionStrings)
    func descriptorVersionDiffers(expression: String, name: String, quoted: String) async throws {
        var descriptor = DescriptorFixture(manifest: Self.manifest)
        descriptor.sdkVersion = expression
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin(name, descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .sdkMismatch)
        expectMentions(problem, reason: [quoted, "SDK \(SDKVersion.current)"], fix: ["MicroappEntry.export"])
    }

    /// The version string is followed by bytes that are never NUL within the limit: reading it unbounded would run
    /// past the limit (and, without a terminator anywhere, off the mapping).
    @Test("an SDK version string without a terminator within 31 bytes is refused unread")
    func unterminatedVersion() async throws {
        var descriptor = DescriptorFixture(manifest: Self.manifest)
        descriptor.prelude = """
            static const char unterminated[64] = "1.0 followed by far more than thirty-one bytes, no NUL in";
            """
        descriptor.sdkVersion = "unterminated"
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("LongVersion", descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .sdkMismatch)
        expectMentions(problem, reason: ["longer than \(MICROAPP_SDK_VERSION_MAX_LENGTH) bytes"], fix: ["by hand"])
    }

    // MARK: Manifest

    @Test("a manifest that is not JSON is refused as a bad manifest")
    func manifestNotJSON() async throws {
        let path = try await fixture {
            try FixtureBuilder.plugin("NotJSON", DescriptorFixture(manifest: "{id: auth, this is not json"))
        }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["not valid JSON"], fix: ["static var manifest"])
    }

    /// The bytes of a valid manifest with one byte that starts no UTF-8 character: the loader used to repair it
    /// into U+FFFD and load the plugin under a display name it never declared.
    @Test("a manifest that is not UTF-8 is refused, naming the library, the byte offset and the fix")
    func manifestNotUTF8() async throws {
        let json = Manifests.json("latin")
        let cut = try #require(json.range(of: "Latin"))
        let offset = json.utf8.distance(from: json.startIndex, to: cut.lowerBound)
        var descriptor = DescriptorFixture(manifest: nil)
        // "\xe9" on its own in C: a Latin-1 é, which is no UTF-8 sequence.
        descriptor.rawManifest =
            DescriptorFixture.literal(String(json[..<cut.lowerBound])) + " \"\\xe9\" "
            + DescriptorFixture.literal(String(json[cut.lowerBound...]))
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("NotUTF8", descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(
            problem, reason: ["not valid UTF-8", "byte \(offset) (0xE9)"], fix: ["MicroappEntry.export", "rebuild"])
    }

    @Test("a manifest nested 100 000 deep is refused as too deep, naming the limit")
    func manifestTooDeep() async throws {
        let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let path = try await fixture { try FixtureBuilder.plugin("DeepManifest", DescriptorFixture(manifest: nested)) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(
            problem, reason: ["100000 deep", "limit of \(ManifestCoding.maximumDepth)"], fix: ["routes and keys"])
        #expect(!problem.reason.contains("not valid JSON"))
    }

    @Test("a manifest with a missing field is refused, naming the field")
    func manifestMissingField() async throws {
        let json =
            #"{"id":"nameless","version":1,"routes":[{"pattern":"nameless://home","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false}"#
        let path = try await fixture { try FixtureBuilder.plugin("MissingField", DescriptorFixture(manifest: json)) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["field 'displayName' is missing"], fix: ["manifest"])
    }

    @Test("a manifest missing a field inside a route names the route and the field")
    func manifestMissingNestedField() async throws {
        let json =
            #"{"id":"nested","version":1,"displayName":"Nested","routes":[{"pattern":"nested://home","requiresSession":false}],"requirements":[],"provides":[],"hasMocks":false}"#
        let path = try await fixture {
            try FixtureBuilder.plugin("MissingNestedField", DescriptorFixture(manifest: json))
        }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["routes", "[0]", "isSignIn", "is missing"])
    }

    @Test("a manifest with a field of the wrong type is refused, naming the field")
    func manifestWrongFieldType() async throws {
        let json =
            #"{"id":"typed","version":"one","displayName":"Typed","routes":[{"pattern":"typed://home","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false}"#
        let path = try await fixture { try FixtureBuilder.plugin("WrongFieldType", DescriptorFixture(manifest: json)) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["field 'version' has the wrong type"])
    }

    /// Valid JSON padded with spaces past the limit: refused for its size, not for its content.
    @Test("a manifest over 256 KiB is refused before it is parsed")
    func manifestTooLarge() async throws {
        var descriptor = DescriptorFixture(manifest: Manifests.json("huge"))
        descriptor.padManifestTo = ManifestCoding.maximumSize + 1
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("HugeManifest", descriptor) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["longer than \(ManifestCoding.maximumSize) bytes"], fix: ["identity, routes"])
    }

    @Test("a manifest of exactly 256 KiB is still read")
    func manifestAtLimit() async throws {
        var descriptor = DescriptorFixture(manifest: Manifests.json("at-limit"))
        descriptor.padManifestTo = ManifestCoding.maximumSize
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("ManifestAtLimit", descriptor) }
        let report = await PluginSet.loadOffActor([path], screening: nil).report
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.images.first?.manifest.id == "at-limit")
    }

    @Test("a NULL manifest is refused as a bad manifest")
    func nullManifest() async throws {
        let path = try await fixture { try FixtureBuilder.plugin("NullManifest", DescriptorFixture(manifest: nil)) }
        let problem = try await refusal(of: path)
        #expect(problem.code == .badManifest)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["manifest is null"], fix: ["MicroappEntry.export"])
    }

    /// A route outside the feature's own scheme is not a manifest error (the check was dropped in d061754); the
    /// resolver decides, and a foreign claim loses to the scheme's owner (see `ResolverRefusalTests.routeHijack`).
    /// With no owner of `other://` loaded, the claim stands.
    @Test("a manifest with a route in another feature's scheme loads, and stands while nobody owns that scheme")
    func manifestForeignRoute() async throws {
        let json = Manifests.json("owner", routes: ["owner://home", "other://home"])
        let path = try await fixture { try FixtureBuilder.plugin("ForeignRoute", DescriptorFixture(manifest: json)) }
        let (report, resolution) = await Host.loadAndResolve([path] + Paths.realPlugins)
        Host.expectRealPluginsUnaffected(report, resolution)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(resolution.problems.isEmpty, "\(resolution.problems.map(\.description))")
        #expect(resolution.startOrder.contains("owner"))
    }

    // MARK: Registration

    @Test("a library whose register_feature refuses loads, but registering it fails")
    func registerRefused() async throws {
        var descriptor = DescriptorFixture(manifest: Manifests.json("refuser"))
        descriptor.registerStatus = "MICROAPP_STATUS_REFUSED"
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("Refuser", descriptor) }
        let (report, resolution) = await Host.loadAndResolve([path] + Paths.realPlugins)
        Host.expectRealPluginsUnaffected(report, resolution)
        #expect(report.problems.isEmpty, "the manifest is fine, so loading succeeds: \(report.problems)")
        let image = try #require(report.images.first { $0.path == path })
        #expect(image.manifest.id == "refuser")
        guard case .failure(let problem) = PluginLoader.register(image) else {
            Issue.record("a refusing plugin registered")
            return
        }
        #expect(problem.code == .registerFailed)
        #expect(problem.subject == path)
        expectMentions(
            problem, reason: ["status \(MICROAPP_STATUS_REFUSED)", "registered no feature"],
            fix: ["MicroappEntry.export"])
        for real in report.images where real.path != path {
            #expect(throws: Never.self, "real plugin \(real.path) registers") { try PluginLoader.register(real).get() }
        }
    }

    @Test("a register_feature that says OK but hands over nothing fails to register")
    func registerNothing() async throws {
        let path = try await fixture {
            try FixtureBuilder.plugin("SilentRegister", DescriptorFixture(manifest: Manifests.json("silent")))
        }
        let image = try PluginLoader.load(path).get()
        guard case .failure(let problem) = PluginLoader.register(image) else {
            Issue.record("a plugin that registered nothing was accepted")
            return
        }
        #expect(problem.code == .registerFailed)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["status 0", "registered no feature"])
    }

    @Test("a descriptor with a NULL register_feature loads, but registering it fails")
    func registerMissing() async throws {
        var descriptor = DescriptorFixture(manifest: Manifests.json("no-register"))
        descriptor.registerStatus = nil
        let path = try await fixture { [descriptor] in try FixtureBuilder.plugin("NoRegister", descriptor) }
        let image = try PluginLoader.load(path).get()
        guard case .failure(let problem) = PluginLoader.register(image) else {
            Issue.record("a plugin without register_feature registered")
            return
        }
        #expect(problem.code == .registerFailed)
        #expect(problem.subject == path)
        expectMentions(problem, reason: ["no register_feature"], fix: ["MicroappEntry.export"])
    }
}
