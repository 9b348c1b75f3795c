import Foundation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import Synchronization
import TestScratch

/// Where the tests find things: the repository (from this file), the C header, the folder of the test runner
/// (where `swift test` put the real plugins), and a scratch folder for fixtures of this test process.
package enum Paths {
    /// The repository root: three levels above this file.
    package static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `lines(source)` for each Swift file under the repository folders `roots` but `skipped` (a check's own file,
    /// whose examples would match), as `root/file:line`.
    package static func sourceLines(under roots: [String], skipping skipped: String, _ lines: (String) -> [Int]) throws
        -> [String]
    {
        var found: [String] = []
        for root in roots {
            let folder = repository.appendingPathComponent(root)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let path = folder.appendingPathComponent(file).path
                guard path != skipped else { continue }
                found += lines(try String(contentsOfFile: path, encoding: .utf8)).map { "\(root)/\(file):\($0)" }
            }
        }
        return found
    }

    /// The folder holding `microapp.h`.
    package static let include = repository.appendingPathComponent("Sources/MicroappSDK/ABI/include").path

    /// The test runner binary, symlinks resolved.
    package static let runner: String = {
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        return URL(fileURLWithPath: link ?? CommandLine.arguments[0]).resolvingSymlinksInPath().path
    }()

    /// The folder of the test runner: `libAuth.so`, `libMicroappSDK.so`… live here.
    package static let runnerDirectory = URL(fileURLWithPath: runner).deletingLastPathComponent().path

    /// A folder for this process's fixtures (a new process compiles its own: paths are never reused across runs
    /// while an old image might be loaded, and parallel test processes never share files); removed at exit.
    package static let fixtures: String = Scratch.folder("plugin-loading").path

    /// The real plugin libraries beside the runner (the SDK itself left out).
    package static var realPlugins: [String] { PluginSet.discover(in: [runnerDirectory]) }

    /// A folder of its own holding a copy of the real `name` library.
    package static func folder(with name: String) throws -> String {
        let folder = "\(fixtures)/checked-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(runnerDirectory)/\(name)", toPath: "\(folder)/\(name)")
        return folder
    }
}

/// Why a fixture could not be made.
package struct FixtureError: Error, CustomStringConvertible {
    /// What went wrong, with the compiler's output.
    package var description: String

    /// A failure saying `description`.
    package init(description: String) { self.description = description }
}

/// A C descriptor as a fixture writes it: each field is a C expression, so a test can put anything there.
package struct DescriptorFixture {
    /// `abi_version`.
    package var abiVersion = "MICROAPP_ABI_VERSION"
    /// `struct_size`.
    package var structSize = "(uint32_t)sizeof(microapp_descriptor)"
    /// `sdk_version`.
    package var sdkVersion = "microapp_sdk_version()"
    /// C declarations put before `microapp_entry` (an SDK version symbol of another version, a constructor).
    package var prelude = ""
    /// The SDK version symbol the library needs (as `MicroappEntry.export` makes a Swift plugin need it), or nil
    /// for none.
    package var versionSymbol: String? = "MICROAPP_SDK_VERSION_SYMBOL"
    /// The manifest text (written as a C string literal), or nil for a NULL `manifest_json`.
    package var manifest: String?
    /// When set, the manifest is padded with spaces to this many bytes (still valid JSON).
    package var padManifestTo: Int?
    /// `manifest_json` as a raw C expression, overriding `manifest` (for pointers that must never be read).
    package var rawManifest: String?
    /// `register_feature`, or nil to leave it NULL.
    package var registerStatus: String? = "MICROAPP_STATUS_OK"
    /// When true, `microapp_entry` returns NULL.
    package var entryReturnsNull = false
    /// Extra bytes after the descriptor (a newer minor version appending fields); `struct_size` should say so.
    package var appendedBytes = 0

    /// A valid descriptor around `manifest`.
    package init(manifest: String?) { self.manifest = manifest }

    /// The C source of a plugin exporting this descriptor.
    package var source: String {
        let manifestText = manifest.map(Self.literal) ?? "NULL"
        let capacity = (padManifestTo ?? 0) + 1
        let manifestExpression = rawManifest ?? (padManifestTo == nil ? "manifest_text" : "padded")
        let register = registerStatus == nil ? "NULL" : "register_feature"
        return """
            #include <stddef.h>
            #include <stdint.h>
            #include <string.h>
            #include "microapp.h"

            \(prelude)
            \(versionSymbol.map { "const void *const microapp_fixture_version_symbol = \($0);" } ?? "")

            static int32_t register_feature(const microapp_descriptor *self, void *registrar) {
                (void)self;
                (void)registrar;
                return \(registerStatus ?? "MICROAPP_STATUS_OK");
            }

            static const char *const manifest_text = \(manifestText);
            static char padded[\(capacity)];

            static struct {
                microapp_descriptor base;
                unsigned char appended[\(max(appendedBytes, 1))];
            } descriptor;

            const microapp_descriptor *microapp_entry(void) {
                if (\(entryReturnsNull ? 1 : 0)) return NULL;
                if (\(padManifestTo == nil ? 0 : 1) && manifest_text != NULL && padded[0] == 0) {
                    size_t length = strlen(manifest_text);
                    memset(padded, ' ', sizeof padded - 1);
                    memcpy(padded, manifest_text, length < sizeof padded - 1 ? length : sizeof padded - 1);
                    padded[sizeof padded - 1] = 0;
                }
                (void)padded;
                descriptor.base.abi_version = \(abiVersion);
                descriptor.base.struct_size = \(structSize);
                descriptor.base.sdk_version = \(sdkVersion);
                descriptor.base.manifest_json = \(manifestExpression);
                descriptor.base.register_feature = \(register);
                (void)register_feature;
                return &descriptor.base;
            }

            """
    }

    /// `text` as a C string literal.
    package static func literal(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"\(escaped)\""
    }
}

/// The real plugins' manifests, read once per test process (each read parses their ELF files again).
package enum RealPlugins {
    package static let manifests = PluginSet.load(Paths.realPlugins).images.map(\.manifest)
}

/// Builds fixture files with the system C compiler, each once per test process (a cache keyed by name).
///
/// Two tests asking for the same fixture wait for one compile; fixtures are small (about 30 ms each with `cc`).
package enum FixtureBuilder {
    private static let built = MadeOnce<String>()

    /// `lib<name>.so` exporting `descriptor`.
    package static func plugin(_ name: String, _ descriptor: DescriptorFixture) throws -> String {
        try library(name, source: descriptor.source)
    }

    /// `lib<name>.so` compiled from `source` with the SDK header on the include path.
    package static func library(_ name: String, source: String) throws -> String {
        try once("lib\(name).so") { path in
            try compile(source, name: name, arguments: ["-shared", "-fPIC", "-I", Paths.include, "-o", path])
        }
    }

    /// An executable compiled from `source` with extra compiler `flags`, under a plugin-like name.
    package static func executable(_ fileName: String, source: String, flags: [String]) throws -> String {
        try once(fileName) { path in try compile(source, name: fileName, arguments: flags + ["-o", path]) }
    }

    /// A file with `contents` under `fileName`.
    package static func file(_ fileName: String, contents: Data) throws -> String {
        try once(fileName) { path in
            guard FileManager.default.createFile(atPath: path, contents: contents) else {
                throw FixtureError(description: "could not write \(path)")
            }
        }
    }

    /// A directory under `fileName`.
    package static func directory(_ fileName: String) throws -> String {
        try once(fileName) { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
    }

    /// Builds `fileName` once per process (a concurrent caller waits for that build), into a temporary name renamed
    /// into place, so the file at its path is always whole.
    private static func once(_ fileName: String, make: (String) throws -> Void) throws -> String {
        let path = (Paths.fixtures as NSString).appendingPathComponent(fileName)
        do {
            return try built.value(for: fileName) {
                let temporary = path + ".building-\(UUID().uuidString)"
                try make(temporary)
                guard rename(temporary, path) == 0 else {
                    throw FixtureError(
                        description: "\(fileName): could not move the build into place (errno \(errno))")
                }
                return path
            }
        } catch let error as FixtureError {
            throw error
        } catch {
            throw FixtureError(description: "\(fileName): \(error)")
        }
    }

    private static func compile(_ source: String, name: String, arguments: [String]) throws {
        let sourcePath = (Paths.fixtures as NSString).appendingPathComponent("\(name).c")
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let (status, output) = try CompilerSlots.run {
            try run("/usr/bin/env", ["cc", "-w"] + arguments + [sourcePath])
        }
        guard status == 0 else {
            throw FixtureError(description: "cc failed for \(name) (\(status)):\n\(output)\n\(source)")
        }
    }

    /// Runs a tool, returning its exit status and its combined output.
    package static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let outcome = try ChildProcess(
            [tool] + arguments, environment: Scratch.childEnvironment(), output: .capture, error: .output
        ).wait()
        return (outcome.termination.status, outcome.text)
    }
}

/// Manifest JSON for fixtures, written through the SDK's own encoder so the shape is the one plugins write.
package enum Manifests {
    /// A requirement as a manifest holds it.
    package static func requirement(
        _ key: String, type: String = "Service<Nothing, Nothing>", kind: DependencyKind = .service,
        access: Access = .read, optional: Bool = false, shape: String? = nil
    ) -> Requirement {
        let shapeField = shape.map { ",\"shape\":" + String(decoding: try! JSONEncoder().encode($0), as: UTF8.self) }
        let json = """
            {"key":"\(key)","type":"\(type)","kind":"\(kind.rawValue)","access":"\(access.rawValue)",\
            "isOptional":\(optional)\(shapeField ?? "")}
            """
        // Constant shapes built above; a failure here is a bug in the test itself.
        return try! JSONDecoder().decode(Requirement.self, from: Data(json.utf8))
    }

    /// A provision as a manifest holds it.
    package static func provision(_ key: String, type: String = "Service<Nothing, Nothing>", uses: [String] = [])
        -> Provision
    {
        let uses = uses.map { "\"\($0)\"" }.joined(separator: ",")
        let json = #"{"key":"\#(key)","type":"\#(type)","uses":[\#(uses)]}"#
        return try! JSONDecoder().decode(Provision.self, from: Data(json.utf8))
    }

    /// A manifest for `id` whose routes default to `id://home`.
    package static func manifest(
        _ id: String, routes: [String]? = nil, requirements: [Requirement] = [], provides: [Provision] = []
    ) -> FeatureManifest {
        FeatureManifest(
            id: id, version: 1, displayName: id.capitalized,
            routes: (routes ?? ["\(id)://home"]).map { RouteDeclaration($0) }, requirements: requirements,
            provides: provides)
    }

    /// The JSON a plugin for that manifest would export.
    package static func json(
        _ id: String, routes: [String]? = nil, requirements: [Requirement] = [], provides: [Provision] = []
    ) -> String {
        let manifest = manifest(id, routes: routes, requirements: requirements, provides: provides)
        return try! ManifestCoding.encode(manifest)
    }

    /// A valid plugin fixture for that manifest, compiled once as `lib<name>.so` (name defaults to the id).
    package static func plugin(
        _ id: String, name: String? = nil, routes: [String]? = nil, requirements: [Requirement] = [],
        provides: [Provision] = []
    ) throws -> String {
        try FixtureBuilder.plugin(
            name ?? "Fixture-\(id)",
            DescriptorFixture(manifest: json(id, routes: routes, requirements: requirements, provides: provides)))
    }
}
