import Foundation
import TestScratch

/// The repository these tests belong to and the demo app's features in its Plugins/.
enum Repository {
    /// Three levels above this file.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The demo app's features, the only ones the processes tests start see (`MICROAPP_TEST_FEATURES`): never the
    /// folders a person added to Plugins/.
    static let featureFolders: [String] = Scratch.demoFeatures
}

/// A new, empty folder under the temporary directory.
func temporaryFolder(_ prefix: String) throws -> URL {
    Scratch.folder(prefix)
}

/// The whole text of a `/proc` file (`maps`, `environ`): its size says 0, and Foundation's `String(contentsOfFile:)`
/// and `Data(contentsOf:)` then read only the first 4 KiB — of a process's maps, a tenth, so which libraries a check
/// saw depended on where ASLR put them. Empty when the file cannot be opened or read: the process is gone, also
/// between the open and the read (then the read fails with ESRCH, which `readDataToEndOfFile()` turns into a trap
/// of the whole test process — seen with two suites running side by side).
func procText(_ path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? handle.close() }
    return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
}

/// Runs `microapp` in `directory` to completion with no input; returns exit code, stdout and stderr.
func runMicroapp(_ arguments: [String], in directory: URL) async throws -> (status: Int32, out: String, err: String) {
    try await runToEnd(arguments, in: directory)
}

/// Compiles Swift sources into `lib<module>.so` in a new folder, against the SDK `swift test` built beside the
/// runner, with swiftc directly (never `swift build`: the test run holds the package's build lock).
func compilePlugin(module: String, sources: [URL]) async throws -> URL {
    try await offThePool { try compilePluginBlocking(module: module, sources: sources) }
}

/// Compiles one Swift source text into `lib<module>.so` in a new folder (see `compilePlugin(module:sources:)`).
func compilePlugin(module: String, source: String) async throws -> URL {
    // The write too: an atomic write ends in fsync, seen holding both of the pool's threads in a full run.
    try await offThePool {
        let file = try temporaryFolder("microapp-\(module)").appendingPathComponent("\(module).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        return try compilePluginBlocking(module: module, sources: [file])
    }
}

/// Compiles (or takes from this process's earlier compile of the same module and source text) `lib<module>.so` into a
/// new folder of its own: each caller gets a fresh file, never one another test holds.
func compilePluginBlocking(module: String, sources: [URL]) throws -> URL {
    let texts = try sources.map { try Data(contentsOf: $0) }
    let key = ([module] + zip(sources, texts).map { "\($0.lastPathComponent)\u{0}\($1.base64EncodedString())" })
        .joined(separator: "\u{1}")
    let compiled = try compiledFixtures.value(for: key) { try runSwiftc(module: module, sources: sources) }
    let folder = try temporaryFolder("microapp-fixture")
    let library = folder.appendingPathComponent("lib\(module).so")
    try Data(contentsOf: compiled).write(to: library)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: library.path)
    return folder
}

/// The fixture libraries this test process compiled, by module and source text. Suites compile the same fixture
/// (Weather, Tick v1, Crashy, …) again and again; swiftc is most of the test phase's CPU, so each distinct one is
/// compiled once (a concurrent caller of the same key waits for that compile) and every caller copies it.
let compiledFixtures = MadeOnce<URL>()

/// How fixtures are linked: with the toolchain's lld, not gold (swiftc's default on Linux): a fixture compile took
/// 0.22 s of CPU instead of 0.30, and the test phase compiles dozens of fixtures.
let fixtureLinker = "-use-ld=lld"

/// One swiftc run: `lib<module>.so` in a new folder, returned as the library's URL.
private func runSwiftc(module: String, sources: [URL]) throws -> URL {
    ModuleCache.warm()
    let build = AppProcess.buildDirectory.path
    let folder = try temporaryFolder("microapp-fixture")
    let library = folder.appendingPathComponent("lib\(module).so").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
        [
            "swiftc", "-emit-library", "-swift-version", "6", "-module-name", module, "-I", build + "/Modules",
            "-Xcc", "-fmodule-map-file=\(build)/CMicroappABI.build/module.modulemap", "-L", build, "-lMicroappSDK",
            "-Xlinker", "-rpath", "-Xlinker", build, fixtureLinker, "-o", library,
        ] + sources.map(\.path)
    process.environment = Scratch.childEnvironment()
    let output = privatePipe()
    let text = try CompilerSlots.run {
        try process.run(stdin: nil, stdout: output, stderr: output)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
    guard process.terminationStatus == 0 else {
        throw AppProcessError("swiftc could not build lib\(module).so (status \(process.terminationStatus)):\n\(text)")
    }
    return URL(fileURLWithPath: library)
}
