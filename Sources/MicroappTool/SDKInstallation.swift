import Foundation
import MicroappDigest
import MicroappPlatform

/// The SDK of this host as packages a feature outside the repository depends on: `<home>/<major>.<minor>/MicroappSDK`
/// (the SDK's own package, byte for byte) and `…/MicroappTesting` (the testing library over it). `<home>/<version>` is
/// a symbolic link to a folder named by the digest of its contents, so writing another version of the bytes is one
/// `rename` over the link: a build that reads it sees the old files or the new, never a mix.
struct SDKInstallation {
    /// The repository whose `Sources/MicroappSDK` and `Sources/MicroappTesting` are installed.
    let repository: URL
    /// `$MICROAPP_SDK` when set, else `<data>/microapp/sdk/<version>`: what packages made by `new --package` read.
    let folder: URL
    /// `1.0`: the SDK's major and minor version, from its C header.
    let version: String

    /// The environment variable a feature package reads the SDK's folder from (its default is `folder`).
    static let variable = "MICROAPP_SDK"

    /// The installation of the SDK in `repository`, at the place `environment` names.
    init(repository: URL, environment: HostEnvironment) throws(Problem) {
        self.repository = repository
        let header = repository.appendingPathComponent("Sources/MicroappSDK/ABI/include/microapp.h")
        guard let text = Files.text(header.path), let version = Self.version(inHeader: text)
        else {
            throw Problem.usage(
                "cannot read the SDK's version from \(header.path)",
                fix: "run microapp from the repository it was built in, with its Sources/MicroappSDK intact")
        }
        self.version = version
        if let chosen = environment[Self.variable], !chosen.isEmpty {
            folder = URL(fileURLWithPath: chosen).standardizedFileURL
        } else if let data = environment.folder(.data) {
            folder = URL(fileURLWithPath: "\(data)/microapp/sdk/\(version)")
        } else {
            throw Problem.usage(
                "no folder for the SDK: neither XDG_DATA_HOME nor HOME is set",
                fix: "set \(Self.variable) to the folder to install the SDK in")
        }
    }

    /// `major.minor` from the header's `MICROAPP_SDK_MAJOR`/`_MINOR` (the SDK's version, not the entry ABI's); nil when
    /// the header has none.
    static func version(inHeader text: String) -> String? {
        func number(_ name: String) -> String? {
            let line = text.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }
            // `1u`, `(1u)` or `1`: the first run of digits after the name.
            let value = line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).joined()
            let digits = value.map { String($0.drop { !$0.isNumber }.prefix { $0.isNumber }) }
            return digits.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let major = number("MICROAPP_SDK_MAJOR"), let minor = number("MICROAPP_SDK_MINOR") else { return nil }
        return "\(major).\(minor)"
    }

    /// Every file to install, by path inside `folder`, with its bytes.
    func files() throws(Problem) -> [(path: String, contents: Data)] {
        let sdk = try Self.tree(repository.appendingPathComponent("Sources/MicroappSDK"))
        let testing = try Self.tree(repository.appendingPathComponent("Sources/MicroappTesting"))
        return sdk.map { ("MicroappSDK/\($0.path)", $0.contents) }
            + [("MicroappTesting/Package.swift", Data(Self.testingManifest.utf8))]
            + testing.map { ("MicroappTesting/Sources/MicroappTesting/\($0.path)", $0.contents) }
    }

    /// MicroappTesting as a package of its own: it needs the SDK as the shared library product, as in the repository
    /// (a target beside the SDK's would link a second, static copy of it into the tests).
    static let testingManifest = """
        // swift-tools-version: 6.0
        import PackageDescription

        // Written by `microapp sdk --install`: MicroappTesting over the SDK beside it.
        let package = Package(
            name: "MicroappTesting",
            products: [.library(name: "MicroappTesting", targets: ["MicroappTesting"])],
            dependencies: [.package(path: "../MicroappSDK")],
            targets: [
                .target(
                    name: "MicroappTesting", dependencies: [.product(name: "MicroappSDK", package: "MicroappSDK")],
                    swiftSettings: [.swiftLanguageMode(.v6)])
            ]
        )

        """

    /// The files under `folder` (not `.build` or other hidden ones), sorted by path.
    private static func tree(_ folder: URL) throws(Problem) -> [(path: String, contents: Data)] {
        guard let paths = Files.subpaths(of: folder.path) else {
            throw Problem.usage(
                "cannot read \(folder.path)", fix: "run microapp from the repository it was built in")
        }
        var files: [(path: String, contents: Data)] = []
        for path in paths.sorted() where !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
            let file = folder.appendingPathComponent(path)
            guard Files.exists(file.path), !Files.isDirectory(file.path)
            else { continue }
            guard let contents = Files.contents(file.path) else {
                throw Problem.usage("cannot read \(file.path)", fix: "check its permissions")
            }
            files.append((path, contents))
        }
        return files
    }

    /// The digest of `files` (paths and bytes): the name of the folder that holds them.
    static func digest(of files: [(path: String, contents: Data)]) -> String {
        var hash = SHA256()
        for file in files {
            hash.update(Array("\(file.path)\n\(file.contents.count)\n".utf8))
            hash.update(file.contents)
        }
        return hash.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `folder` holds exactly these bytes (`current`), other bytes (`different`), or nothing (`missing`).
    enum State: String {
        case current, different, missing
    }

    /// What is at `folder` now, compared with what `install()` would write.
    func state() throws(Problem) -> State { state(of: try files()) }

    private func state(of files: [(path: String, contents: Data)]) -> State {
        let target = Files.linkDestination(folder.path).map {
            ($0 as NSString).lastPathComponent
        }
        if target == "\(version)-\(Self.digest(of: files))" { return .current }
        return Files.exists(folder.path) ? .different : .missing
    }

    /// Writes the SDK to `folder` unless it is there already; true when something was written. Refuses when the
    /// sources changed after this executable's SDK was built (the installed bytes would not be what the host runs),
    /// and when `folder` is something other than an installation (a folder a person made).
    @discardableResult
    func install(builtSDK: URL) throws(Problem) -> Bool {
        let files = try files()
        try checkBuilt(builtSDK)
        let name = "\(version)-\(Self.digest(of: files))"
        if state(of: files) == .current { return false }
        if Files.exists(folder.path) || Files.isSymbolicLink(folder.path) {
            guard Files.isSymbolicLink(folder.path) else {
                throw Problem.usage(
                    "\(folder.path) exists and was not written by `microapp sdk --install`",
                    fix: "move it away, or set \(Self.variable) to another folder")
            }
        }
        let parent = folder.deletingLastPathComponent()
        let contents = parent.appendingPathComponent(name)
        do {
            if !Files.exists(contents.path) {
                let temporary = parent.appendingPathComponent(".\(name).tmp-\(ProcessStatus.current)")
                try? Files.remove(temporary.path)
                for file in files {
                    let url = temporary.appendingPathComponent(file.path)
                    try Files.makeDirectory(url.deletingLastPathComponent().path)
                    try Files.create(url.path, with: file.contents)
                }
                try Self.rename(temporary, to: contents)
            }
            let link = parent.appendingPathComponent(".\(version).link-\(ProcessStatus.current)")
            try? Files.remove(link.path)
            try Files.makeLink(link.path, to: name)
            try Self.rename(link, to: folder)
        } catch {
            throw Problem.usage("could not write the SDK to \(folder.path): \(error)", fix: "check that it is writable")
        }
        return true
    }

    /// `rename(2)` through the platform: atomic, and over an existing link; a failure names the call, the path and
    /// errno.
    private static func rename(_ from: URL, to: URL) throws(SystemCallError) {
        try FileReplacement.replace(to.path, with: from.path)
    }

    /// Refuses when an SDK source is newer than `builtSDK` (the host's `libMicroappSDK.so`): the sources are not
    /// what this host was built with.
    private func checkBuilt(_ builtSDK: URL) throws(Problem) {
        let built = Files.modificationDate(builtSDK.path)
        guard let built else {
            throw Problem.usage(
                "\(builtSDK.path) does not exist: this microapp has no SDK built beside it",
                fix: "build the host first (`swift build` in \(repository.path))")
        }
        let sources = repository.appendingPathComponent("Sources/MicroappSDK")
        let paths = (Files.subpaths(of: sources.path) ?? [])
        // What the library is built from: the ABI baseline and other notes beside the sources do not make it stale.
        let builtFrom = [".swift", ".c", ".h", ".modulemap"]
        let newer = paths.filter { path in
            guard !path.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                builtFrom.contains(where: path.hasSuffix)
            else { return false }
            let date = Files.modificationDate(sources.appendingPathComponent(path).path)
            return (date ?? .distantPast) > built
        }
        if let first = newer.sorted().first {
            throw Problem.usage(
                "Sources/MicroappSDK/\(first) changed after this microapp's SDK was built: the SDK installed would not be the one the host runs",
                fix: "rebuild the host (`swift build` in \(repository.path)), then run this again")
        }
    }
}
