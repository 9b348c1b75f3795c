import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDevLoop
import MicroappDigest
import MicroappHost
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import MicroappShipping

/// `microapp release NAME [--library FILE] [--key NAME] [-o DIR]`: builds one feature in release and writes its
/// release folder (library, manifest, signed record), its manifest learned from a sandboxed probe.
enum ReleaseCommand: Command {
    static let library = OptionSpec.value(
        "--library", "FILE", .text, help: "release this built library instead of building NAME in release")
    static let key = PublishCommand.key.with(help: "the key that signs the release, in your keys folder (default team)")
    static let output = OptionSpec.value(
        "--output", "DIR", .text, help: "the release folder to write (default ./<feature>-<version>; never overwritten)"
    ).abbreviated("-o")

    static let declaration = CommandSpec(
        "microapp release",
        summary: "build one feature in release and write its release folder, signed by your key",
        operands: [.optional("NAME")],
        options: [library, key, output, CommonOptions.probeUnsandboxed],
        discussion: """
            Builds the product NAME alone in release with `swift build` (in the package of the current folder that
            has Plugins/NAME or Sources/NAME, else in the repository this microapp was built from) and takes
            .build/release/libNAME.so, or takes --library FILE as it is. In a feature's own package (one with
            Sources/NAME and Sources/NAMEPlugin, as `microapp new NAME --package DIR` makes), NAME may be left out. The library is read once
            into a private copy, which a sandboxed probe process examines (as `microapp lock` does: no code of it
            runs in this process); its manifest gives the feature id and version, its SDK symbol the SDK version it
            needs. Writes DIR with the library, manifest.json, release.json (feature, version, SDK, SHA-256 and size
            of each file) and release.json.sig, signed by --key, then prints the `microapp publish` line to run.
            Exit 1 for a missing key or a folder that exists, 2 when the library does not load or its manifest
            cannot be released.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        let environment = arguments.environment
        let name = arguments.operands.first
        if let name, !ReleaseLayout.isFileName(name) {
            throw Problem.usage("'\(name)' is not a feature's name", fix: "write the feature's name, e.g. Characters")
        }
        // The key first: a missing key is told before a release build of minutes, not after.
        let folders = ReleaseFolders(environment: arguments.environment)
        let keyName = arguments[key]
        let signing = try NameSuggestions.signingKey(keyName, in: folders)
        let path: String
        if let given = arguments[library] {
            path = given
        } else {
            guard let feature = name ?? ownPackage(from: environment.currentDirectory)?.feature else {
                throw Problem.usage(
                    "release needs NAME outside a feature's own package",
                    fix:
                        "write `microapp release NAME` (in the repository, NAME is Plugins/NAME), or run it in the package `microapp new NAME --package DIR` made"
                )
            }
            path = try build(feature, in: environment)
        }
        let sandbox = SandboxCheck.here(arguments)
        if let refusal = sandbox.probeRefusal(of: path) {
            Console.report([refusal])
            Console.err("microapp: not releasing \(path): it cannot be examined here")
            return .invalidPluginSet
        }
        let probe = PluginProbe(environment: arguments.environment, allowingUnsandboxed: sandbox.unsandboxed)
        let examined = await BlockingWork.run { examine(path, with: probe) }
        let copy: LibraryCopy
        let manifest: ManifestSummary
        let sdk: SDKVersion
        switch examined {
        case .success(let found): (copy, manifest, sdk) = found
        case .failure(let problem):
            Console.err(problem)
            Console.err("microapp: not releasing \(path)")
            return .invalidPluginSet
        }
        let libraryName = (path as NSString).lastPathComponent
        let folder = arguments[output] ?? "\(manifest.id)-\(manifest.version)"
        let manifestBytes = (try? CanonicalJSON.encode(manifest)) ?? Data()
        let release: SignedRelease
        switch ChannelFolder.writeRelease(
            of: copy, as: libraryName, manifest: manifestBytes, feature: manifest.id, version: manifest.version,
            sdk: sdk, key: signing, now: environment.date(), to: folder)
        {
        case .success(let written): release = written
        case .failure(let problem): throw problem
        }
        let record = release.record
        Console.out(
            "released \(record.feature) v\(record.version) (SDK \(record.sdk)) in \(folder), signed by key \(keyName) (\(release.signature.keyid))"
                .sanitized)
        Console.out("  \(record.library.path)  sha256 \(record.library.sha256)  \(record.library.size) bytes".sanitized)
        Console.out("  \(record.manifest.path)  sha256 \(record.manifest.sha256)  \(record.manifest.size) bytes")
        Console.out("  \(ReleaseLayout.record), \(ReleaseLayout.signature)")
        if case .success(let trust) = ReleaseStore(folders: folders).trustList(),
            trust.trusted(release.signature.key) == nil
        {
            Console.err(
                "note: your key \(keyName) is not in your trust list, and publish takes only releases you trust: run `microapp trust \(release.signature.key) --name \(keyName) --feature \(record.feature)` first"
            )
        }
        Console.out("next: microapp publish \(folder) --channel DIR --key \(keyName)".sanitized)
        return .ok
    }

    /// Builds `name` in release in its package (found from `environment`'s current directory up) and answers the
    /// library's path, or why not.
    @MainActor
    private static func build(_ name: String, in environment: HostEnvironment) throws(Problem) -> String {
        guard let package = package(building: name, from: environment.currentDirectory) else {
            let meant = NearMiss.closest(to: name, among: featureNames(from: environment.currentDirectory)).map {
                "did you mean `microapp release \($0)`? Otherwise "
            }
            throw Problem(
                code: .releaseNoPackage, subject: name,
                reason:
                    "no package here or above has Plugins/\(name) or Sources/\(name), and this microapp was not built from one that does",
                fix:
                    "\(meant ?? "")run it in the feature's package (`microapp new \(name) --package DIR` makes one) or in the repository, or give a built library with --library FILE"
            )
        }
        Console.err("microapp: building \(name) in release in \(package): swift build -c release --product \(name) …")
        let command = try ProductBuild.run(
            name, in: package, buildDirectory: package + "/.build/release", configuration: "release",
            environment: environment, fix: "fix the compiler errors above, then make the release again",
            notStarted: "put the Swift toolchain on PATH, or give a built library with --library FILE")
        let library = package + "/.build/release/" + PluginFileName.make(name)
        guard FileFacts.exists(library) else {
            throw Problem(
                code: .releaseNoLibrary, subject: library,
                reason: "`\(command)` succeeded but wrote no such library",
                fix:
                    "declare the product \(name) as `.library(name: \"\(name)\", type: .dynamic, …)` in Package.swift"
            )
        }
        Console.err("microapp: built \(library)")
        return library
    }

    /// The package that builds the feature `name`: the nearest folder from `start` up that has Package.swift and
    /// Plugins/<name> (a repository) or Sources/<name> (the feature's own package), else the repository this
    /// executable was built from when it has Plugins/<name>.
    private static func package(building name: String, from start: String) -> String? {
        func builds(_ folder: String) -> Bool {
            FileFacts.exists(folder + "/Package.swift")
                && (FileFacts.kind(of: folder + "/Plugins/\(name)") == .folder
                    || FileFacts.kind(of: folder + "/Sources/\(name)") == .folder)
        }
        var folder = URL(fileURLWithPath: start).standardizedFileURL.path
        while true {
            if builds(folder) { return folder }
            guard folder != "/" && !folder.isEmpty else { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return PluginLocations.current().repository.map(\.path).flatMap { builds($0) ? $0 : nil }
    }

    /// The features a release here could mean: the folders of Plugins/ and Sources/ of the nearest package from
    /// `start` up, and of the repository this host was built from.
    private static func featureNames(from start: String) -> [String] {
        var folder = URL(fileURLWithPath: start).standardizedFileURL.path
        while !Files.exists(folder + "/Package.swift") && folder != "/" && !folder.isEmpty {
            folder = (folder as NSString).deletingLastPathComponent
        }
        let packages = [folder] + (PluginLocations.current().repository.map { [$0.path] } ?? [])
        return packages.flatMap { package in
            ["Plugins", "Sources"].flatMap { Files.names(in: package + "/" + $0) }
        }
    }

    /// The package around `folder` (the nearest folder from it up with Package.swift) when it is one feature's own:
    /// its Sources/ has exactly one module NAME beside its entry module NAMEPlugin. Nil otherwise.
    static func ownPackage(from folder: String) -> (folder: String, feature: String)? {
        var package = URL(fileURLWithPath: folder).standardizedFileURL.path
        while !Files.exists(package + "/Package.swift") {
            guard package != "/" && !package.isEmpty else { return nil }
            package = (package as NSString).deletingLastPathComponent
        }
        let sources = package + "/Sources"
        let features = Files.names(in: sources).filter { name in
            !name.hasSuffix("Plugin") && Files.isDirectory(sources + "/" + name)
                && Files.isDirectory(sources + "/" + name + "Plugin")
        }
        guard features.count == 1, let feature = features.first else { return nil }
        return (package, feature)
    }

    /// Copies the library at `path` once and has a sandboxed probe process of `probe` examine the copy: the copy,
    /// its manifest and the one SDK version it needs, or why it cannot be released. Blocks.
    private static func examine(_ path: String, with probe: PluginProbe) -> Result<
        (LibraryCopy, ManifestSummary, SDKVersion), Problem
    > {
        let copy: LibraryCopy
        switch LibraryCopy.make(path) {
        case .success(let made): copy = made
        case .failure(let problem): return .failure(problem.problem)
        }
        let report = probe.report(for: copy)
        if var problem = report.problem?.problem {
            // No plugin folder is involved: the fix is about the file given.
            if problem.fix == SharedObjectCheck.notALibraryFix {
                problem.fix =
                    "give --library a feature's library, built as a `.dynamic` library product (`swift build -c release --product NAME`)"
            }
            return .failure(problem)
        }
        guard let manifest = report.manifest else {
            return .failure(
                Problem(
                    code: .releaseNoManifest, subject: path, reason: "the probe found no manifest in it",
                    fix: "run `microapp probe \(path)` to see what it registers"))
        }
        guard manifest.version >= 1 else {
            return .failure(
                Problem(
                    code: .releaseNoVersion, subject: path,
                    reason:
                        "its manifest gives feature \(manifest.id) version \(manifest.version), and releases are numbered from 1 up",
                    fix: "set `version:` in the feature's manifest to 1 or more, then make the release again"))
        }
        guard ReleaseLayout.isFileName(manifest.id), ReleaseLayout.isFileName((path as NSString).lastPathComponent)
        else {
            return .failure(
                Problem(
                    code: .releaseBadName, subject: path,
                    reason: "its feature id '\(manifest.id)' or its file name cannot name a file in a release",
                    fix: "give the feature a plain id (letters, digits, '-') and the library a name like libNAME.so"))
        }
        switch SDKVersionSymbol.required(by: copy.path) {
        case .success(let versions) where versions.count == 1:
            return .success((copy, manifest, versions[0]))
        case .success(let versions):
            return .failure(
                Problem(
                    code: .releaseSDK, subject: path,
                    reason: "it needs \(versions.isEmpty ? "no" : "\(versions.count)") SDK versions, not one",
                    fix: "rebuild it against one MicroappSDK, with `MicroappEntry.export(MyFeature.self)` in its entry")
            )
        case .failure(let error):
            return .failure(
                Problem(
                    code: .releaseSDK, subject: path, reason: "its SDK version cannot be read: \(error.reason)",
                    fix: "give a library SwiftPM built against MicroappSDK"))
        }
    }
}
