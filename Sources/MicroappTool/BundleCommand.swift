import CommandLineSpec
import Foundation
import MicroappCore
import MicroappHost
import MicroappPlatform
import MicroappShipping

/// `microapp bundle NAME -o FILE|DIR`: one feature, its mocks and previews (they live in its library) and the host,
/// laid out as an install of that one feature (`AppInstallation`) with a launcher `./NAME` that runs it alone:
/// what a tester without a toolchain or a checkout runs, like a TestFlight build of one feature.
enum BundleCommand: Command {
    static let output = OptionSpec.value(
        "--output", "FILE|DIR", .text,
        help: "write FILE.tar.gz (or .tgz), else the folder DIR: new, empty, or an earlier bundle (replaced)"
    ).abbreviated("-o")

    static let declaration = CommandSpec(
        "microapp bundle",
        summary: "pack one feature with its mocks, previews and the host, for a tester (./NAME runs it)",
        operands: [.required("NAME")],
        options: [output, InstallSource.configuration, CommonOptions.probeUnsandboxed],
        discussion: """
            Lays out the feature's library (its mocks and previews are in it), the host and the Swift runtime they
            need as `microapp install` does, with a launcher NAME and bundle.json (which feature and version, which
            host, SDK and architecture) at the top; as a folder, or as a .tar.gz whose top folder is FILE's name.
            Unpacked on another Linux machine of the same architecture, with no toolchain and no checkout, `./NAME`
            runs the feature alone on its mocks as `microapp solo NAME` does (its options pass through, e.g.
            `microapp solo NAME --mock KEY=VARIANT` picks a variant); the launcher also draws the feature's previews
            and says which feature and host the bundle holds (`./NAME -h` says how; docs/installing.md).
            NAME is the feature's folder in Plugins/ (its library lib<NAME>.so), in any case. It builds what it
            packs as `install` does (--configuration, release by default): the host, and that feature alone.
            Exit 1 for an unknown feature, a missing build or a refused output, 2 when the library does not load.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        guard arguments.operands.count == 1, let name = arguments.operands.first else {
            throw Problem.usage(
                "bundle takes one feature", fix: "write e.g. `microapp bundle Characters -o characters.tar.gz`")
        }
        guard let given = arguments[output], !given.isEmpty else {
            throw Problem.usage(
                "bundle needs -o FILE.tar.gz or -o DIR", fix: "write e.g. `microapp bundle \(name) -o \(name).tar.gz`")
        }
        let source = try InstallSource.find(arguments, building: [name])
        guard
            let library = source.plugins.first(where: { FeatureLibrary.stem(of: $0).lowercased() == name.lowercased() })
        else {
            let known = source.plugins.map { FeatureLibrary.stem(of: $0) }.sorted().joined(separator: ", ")
            throw Problem(
                code: .bundleUnknownFeature, subject: name,
                reason: "the \(source.configuration) build has no lib\(name).so",
                fix: known.isEmpty ? "build the features first" : "name one of: \(known)")
        }
        let stem = FeatureLibrary.stem(of: library)
        let path = URL(fileURLWithPath: arguments.environment.absolutePath(given)).standardizedFileURL.path
        let archive = [".tar.gz", ".tgz"].first { path.hasSuffix($0) }.map { (file: path, suffix: $0) }
        // An archive is laid out in a folder of its own under the temporary folder, named as the archive is.
        let work = archive.map { _ in arguments.environment.temporaryFolder + "/microapp-bundle-\(UUID().uuidString)" }
        defer { if let work { try? Files.remove(work) } }
        let folder = archive.map { work! + "/" + ($0.file as NSString).lastPathComponent.dropLast($0.suffix.count) }
        let host = (source.executable as NSString).lastPathComponent
        var description: BundleDescription?
        guard
            let installed = try await AppInstallation.install(
                source, plugins: [library], at: folder ?? path, arguments: arguments, doing: "bundling",
                extras: { manifests in
                    guard let manifest = manifests[(library as NSString).lastPathComponent] else { return [] }
                    let bundle = BundleDescription(
                        feature: .init(id: manifest.id, name: manifest.displayName, version: manifest.version),
                        host: .init(name: host, version: HelpText.version, configuration: source.configuration),
                        launcher: stem, created: ISO8601DateFormatter().string(from: arguments.environment.date()))
                    description = bundle
                    return [
                        .init(path: stem, data: Data(bundle.script.utf8), permissions: 0o755),
                        .init(path: BundleDescription.fileName, data: bundle.encoded()),
                    ]
                })
        else { return .invalidPluginSet }
        guard let description else { return .invalidPluginSet }
        var sizes = "\(installed.record.files.count) files, \(AppInstallation.megabytes(installed.record.size))"
        if let archive, let folder {
            Console.err("microapp: packing \(archive.file)")
            do {
                try await BlockingWork.run { () throws(Problem) in try FolderArchive.write(folder, to: archive.file) }
            } catch {
                throw error.problem
            }
            let packed = FileFacts.size(of: archive.file) ?? 0
            sizes += " unpacked, \(AppInstallation.megabytes(packed)) packed"
        }
        Console.out("bundled \(description.summary) in \(path): \(sizes)")
        // From the folder the person is in: the archive or folder as a path from here (tar unpacks here).
        let here = arguments.environment.currentDirectory
        let inside = here.hasSuffix("/") ? here : here + "/"
        let fromHere = path.hasPrefix(inside) ? String(path.dropFirst(inside.count)) : path
        let open =
            archive == nil
            ? "cd \(fromHere)" : "tar -xzf \(fromHere) && cd \(folder.map { ($0 as NSString).lastPathComponent } ?? "")"
        Console.out("run it: \(open) && ./\(stem)  (./\(stem) --previews, ./\(stem) --version)")
        return .ok
    }
}

/// `bundle.json`: which feature and which host a bundle holds, and the launcher that runs it.
struct BundleDescription: Codable, Sendable {
    /// The feature.
    struct Feature: Codable, Sendable {
        var id: String
        var name: String
        var version: Int
    }

    /// The host.
    struct Host: Codable, Sendable {
        var name: String
        var version: String
        var configuration: String
    }

    /// The file name at the bundle's top.
    static let fileName = "bundle.json"

    var format = "microapp-bundle"
    var formatVersion = 1
    var feature: Feature
    var host: Host
    var sdk = SDKVersion.current.description
    var architecture = BundleDescription.architecture
    var launcher: String
    var created: String

    /// `Characters v3 (characters) on microapp 0.1.0 (…), debug, x86_64`.
    var summary: String {
        "\(feature.name) v\(feature.version) (\(feature.id)) on \(host.version), \(host.configuration), \(architecture)"
    }

    /// The machine the bundle runs on, as `uname -m` says it.
    static var architecture: String {
        #if arch(x86_64)
            "x86_64"
        #elseif arch(arm64)
            "aarch64"
        #else
            "unknown"
        #endif
    }

    /// The record as written: sorted keys, indented, a final newline.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)) ?? Data()) + Data("\n".utf8)
    }

    /// The launcher: a POSIX shell script (no other program needed, no PATH) that runs the bundled host on the
    /// feature alone, its previews, or says what the bundle holds.
    var script: String {
        let quoted = summary.replacingOccurrences(of: "'", with: "")
        let binary = "\"$here/\(InstalledLayout.binFolder)/\(host.name)\""
        return """
            #!/bin/sh
            # A QA bundle of one feature: \(quoted).
            #   ./\(launcher)                      runs it alone on its mocks (microapp solo; its options pass through)
            #   ./\(launcher) --previews [ROUTE]   draws each of its previews in each state (microapp preview)
            #   ./\(launcher) --version            says which feature and host this bundle holds (bundle.json, as data)
            case "$0" in */*) here="${0%/*}" ;; *) here=. ;; esac
            case "$1" in
            --version) echo '\(quoted)'; exit 0 ;;
            --previews) shift; exec \(binary) preview \(launcher) "$@" ;;
            --help | -h)
                echo './\(launcher) [solo options] | ./\(launcher) --previews [ROUTE] [--state S] | ./\(launcher) --version'
                exec \(binary) solo --help ;;
            esac
            exec \(binary) solo \(launcher) "$@"

            """
    }
}
