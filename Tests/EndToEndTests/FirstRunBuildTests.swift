import Foundation
import TestScratch
import Testing

/// A fresh clone as `swift run microapp` leaves it before the first screen: Package.swift listing the demo's features,
/// their folders, and in `.build/debug` only `microapp` and the SDK — no feature library yet. `swift` on its PATH is
/// a script that writes its arguments, one invocation a line, to `calls` and builds nothing.
private struct FreshClone {
    let root: URL
    let executable: String
    let calls: URL
    let bin: URL

    init() throws {
        root = try temporaryFolder("microapp-fresh-clone")
        let build = root.appendingPathComponent(".build/debug")
        let files = FileManager.default
        try NewCommandTests.manifest(listing: Scratch.demoFeatures).write(
            to: root.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for feature in Scratch.demoFeatures {
            for part in ["Sources", "Entry", "Tests"] {
                let folder = root.appendingPathComponent("Plugins/\(feature)/\(part)")
                try files.createDirectory(at: folder, withIntermediateDirectories: true)
                try "// \(feature)\n".write(
                    to: folder.appendingPathComponent("\(feature)\(part).swift"), atomically: true, encoding: .utf8)
            }
        }
        try files.createDirectory(at: build, withIntermediateDirectories: true)
        executable = build.appendingPathComponent("microapp").path
        // A copy, not a link: the host finds its repository from the path of its own executable.
        try copyExecutable(AppProcess.executable, to: executable)
        try files.copyItem(
            at: AppProcess.buildDirectory.appendingPathComponent("libMicroappSDK.so"),
            to: build.appendingPathComponent("libMicroappSDK.so"))
        bin = root.appendingPathComponent("fake-bin")
        try files.createDirectory(at: bin, withIntermediateDirectories: true)
        calls = root.appendingPathComponent("swift-calls")
        let script = bin.appendingPathComponent("swift")
        try "#!/bin/sh\necho \"$*\" >> '\(calls.path)'\nexit 0\n".write(to: script, atomically: true, encoding: .utf8)
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
    }

    /// Its `microapp` with `arguments`, the fake `swift` first on PATH.
    func run(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try await runToEnd(arguments, executable: executable, in: root, environment: ["PATH": path])
    }

    /// Each `swift` invocation's arguments, in order.
    var recorded: [String] {
        ((try? String(contentsOf: calls, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}

@Suite("End to end: the first run of a fresh clone", .promptResumes)
struct FirstRunBuildTests {
    @Test(
        "the start-up build of a clone with no feature library runs `swift build --product` once for each feature the app loads, and nothing else (no full build linking benchmarks, the monolith, the fuzzer); it says what it builds and how long that usually takes"
    )
    func buildsOnlyThePluginProducts() async throws {
        let clone = try FreshClone()
        defer { try? FileManager.default.removeItem(at: clone.root) }
        let result = try await clone.run(["doctor", "--no-probe"])
        let calls = clone.recorded
        #expect(calls.count == Scratch.demoFeatures.count, "one invocation a feature: \(calls)\n\(result.err)")
        for call in calls {
            let words = call.split(separator: " ").map(String.init)
            #expect(Array(words.prefix(1)) == ["build"], "\(call)")
            let products = words.indices.filter { words[$0] == "--product" }.map { words[$0 + 1] }
            #expect(products.count == 1, "exactly one product: \(call)")
            #expect(products.allSatisfy(Scratch.demoFeatures.contains), "a plugin product: \(call)")
        }
        let built = calls.compactMap { call -> String? in
            let words = call.split(separator: " ").map(String.init)
            return words.firstIndex(of: "--product").map { words[$0 + 1] }
        }
        #expect(built.sorted() == Scratch.demoFeatures.sorted(), "\(calls)")
        #expect(
            result.err.contains(
                "building the plugin libraries the app loads: Auth (missing), Characters (missing), Search (missing), Settings (missing)"
            ), "\(result.err)")
        #expect(result.err.contains("usually takes about"), "\(result.err)")
    }
}
