import BenchmarkSupport
import CommandLineSpec
import Foundation
import MicroappDigest
import MicroappPlatform
import MicroappSDK
import MicroappShipping

// Update to live: how long a running app takes from a `check-updates` event to the frame of the new version, with the
// channel served by Python's http.server on loopback. Each round publishes one release (outside the timed section),
// then times: the event, the index fetched and verified, the release downloaded, checked, kept and renamed in, the
// swap (copy, probe or a new child, state handed over) and the new frame. In process and isolated, side by side.
// Build in release:
//   swift build -c release && swift run -c release update-benchmark [runs]
let command = CommandSpec(
    "update-benchmark", summary: "check event → new frame of an updated feature, channel on loopback",
    operands: [.optional("RUNS")],
    discussion: "Publishes and takes RUNS releases (default 20) in each mode; build in release first.")
let runs = runsOperand(of: command, fallback: 20)

/// The feature's version lives in this string literal (16 bytes or more: kept as bytes in the image), so one
/// compile gives every release: a copy with other digits is another version, as the probe reads it.
let marker = "live-update-version-00000001"

let source = """
    import Foundation
    import MicroappSDK

    let versionText = "\(marker)"

    public enum LiveFeature: Feature {
        public static var manifest: FeatureManifest {
            FeatureManifest(
                id: "live", version: Int(String(versionText.suffix(8)))!, displayName: "Live",
                routes: [RouteDeclaration("live://home")])
        }
        @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { LiveRoot() }
    }

    @MainActor final class LiveRoot: Root {
        var count = 0
        func screen(at location: Location) -> Screen {
            Screen(title: "Live", content: [.text(Text("\\(versionText) \\(count)"))])
        }
        func handle(_ action: Action, at location: Location) {}
        func snapshot() -> Data? { Data("\\(count)".utf8) }
        func restore(from snapshot: Data) throws { count = Int(String(decoding: snapshot, as: UTF8.self)) ?? 0 }
    }

    @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? {
        MicroappEntry.export(LiveFeature.self)
    }
    """

/// The compiled library's bytes with version `version` written into the marker.
struct Releases {
    let template: [UInt8]
    let offsets: [Int]

    init(build: BuildFolder, folder: String) throws {
        let file = folder + "/Live.swift"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let library = folder + "/libLive.so"
        let (status, output) = try run(
            "/usr/bin/env",
            [
                "swiftc", "-emit-library", "-O", "-swift-version", "6", "-module-name", "Live", "-I", build.modules,
                "-Xcc", "-fmodule-map-file=\(build.abiModuleMap)", "-L", build.path, "-lMicroappSDK", "-Xlinker",
                "-rpath", "-Xlinker", build.path, file, "-o", library,
            ])
        guard status == 0, let bytes = FileManager.default.contents(atPath: library) else {
            throw BenchmarkError("swiftc could not build the benchmark feature (status \(status)):\n\(output)")
        }
        let image = [UInt8](bytes)
        let needle = Array(marker.utf8)
        template = image
        offsets = image.indices.filter { index in
            index + needle.count <= image.count && image[index..<index + needle.count].elementsEqual(needle)
        }
        guard !offsets.isEmpty else { throw BenchmarkError("the version marker is not in \(library) as bytes") }
    }

    func library(_ version: Int) -> Data {
        var bytes = template
        let digits = Array(String(format: "%08d", version).utf8)
        for offset in offsets {
            let start = offset + marker.utf8.count - 8
            bytes.replaceSubrange(start..<start + 8, with: digits)
        }
        return Data(bytes)
    }
}

/// Python's http.server on 127.0.0.1 serving `folder`, on the port the kernel picks.
func serve(_ folder: String) throws -> (process: Process, url: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", folder, "0"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    guard let range = line.range(of: #"port (\d+)"#, options: .regularExpression) else {
        process.terminate()
        throw BenchmarkError("python3 -m http.server did not say its port: \(line)")
    }
    return (process, "http://127.0.0.1:\(line[range].dropFirst(5))")
}

/// A running `microapp run --channel … --ui json`, read line by line.
final class RunningApp {
    private let piped: PipedProcess
    /// The `milliseconds` of the last `updated` notice: the swap alone, library ready to new Root.
    private(set) var swapMilliseconds: Double = .nan

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        piped = try PipedProcess(executable, arguments, environment: environment)
    }

    func send(_ line: String) { piped.send(line) }

    /// How long the app may take to show a version: a guard against a hang, not a measure (a swap takes milliseconds,
    /// a check-updates event's fetch from loopback a few more).
    static let patience: Duration = .seconds(60)

    /// Reads lines until a frame of `live` at `version`; throws when the app ended first, or when `patience` passed
    /// first (a refused update, say, shows no new frame: its error line is in the message).
    func waitForFrame(version: Int) throws {
        var said: [String] = []
        let reading = piped.nextLine(within: Self.patience) { line in
            if line.hasPrefix(#"{"type":"error""#) || line.hasPrefix(#"{"type":"notice""#) { said.append(line) }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return false
            }
            if object["code"] as? String == "updated", let milliseconds = object["milliseconds"] as? Int {
                swapMilliseconds = Double(milliseconds)
            }
            return object["type"] as? String == "frame" && object["feature"] as? String == "live"
                && object["version"] as? Int == version
        }
        let lines = said.isEmpty ? "" : "; what it said meanwhile:\n" + said.suffix(5).joined(separator: "\n")
        switch reading {
        case .line: return
        case .ended: throw BenchmarkError("the app ended before it showed v\(version)\(lines)")
        case .timedOut:
            throw BenchmarkError(
                "the app showed no frame of v\(version) within \(Self.patience)\(lines); to fix: run it by hand with the"
                    + " same arguments and read its error lines (a refused update, a key not trusted for the feature)")
        }
    }

    func finish() { piped.finish() }
}

/// One mode's timings: `runs` releases published to `channel` and taken by an app run with `isolation`.
func measure(isolation: String, releases: Releases, home: String, executable: String) throws -> (
    total: [Double], swap: [Double]
) {
    let environment = [
        "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "XDG_CACHE_HOME": home + "/cache",
    ]
    let folders = ReleaseFolders(environment: environment, home: home)
    guard let key = Ed25519.PrivateKey.generate() else { throw BenchmarkError("no Ed25519 key could be made") }
    // Scoped to the feature it publishes: a key signs only the ids its trust entry names.
    let trust = TrustList(keys: ["bench": KeyText.text(of: key.publicKey)], features: ["bench": ["live"]])
    if let problem = ReleaseStore(folders: folders).save(trust) { throw BenchmarkError(problem.reason) }
    let plugins = home + "/plugins"
    let channel = home + "/channel"
    try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: channel, withIntermediateDirectories: true)
    try releases.library(1).write(to: URL(fileURLWithPath: plugins + "/libLive.so"))
    func publish(_ version: Int) throws {
        let library = releases.library(version)
        let manifest = try JSONEncoder().encode(
            FeatureManifest(
                id: "live", version: version, displayName: "Live", routes: [RouteDeclaration("live://home")]))
        let release = SignedRelease.make(
            library: library, libraryName: "libLive.so", manifest: manifest, feature: "live", version: version,
            sdk: .current, key: key, now: Date())
        let folder = home + "/release-\(version)"
        if let problem = ChannelFolder.writeRelease(release, library: library, manifest: manifest, to: folder) {
            throw BenchmarkError(problem.reason)
        }
        if case .failure(let problem) = ChannelFolder.publish(folder, to: channel, key: key, trust: trust, now: Date())
        {
            throw BenchmarkError(problem.reason)
        }
    }
    try publish(1)
    let server = try serve(channel)
    defer { server.process.terminate() }
    let app = try RunningApp(
        executable,
        [
            "run", "--no-supervise", "--no-build", "--isolation", isolation, "--plugins", plugins, "--only", "live",
            "--ui", "json", "--channel", server.url, "--check-every", "600",
        ], environment: environment)
    defer { app.finish() }
    try app.waitForFrame(version: 1)
    var timings: [Double] = []
    var swaps: [Double] = []
    for version in 2...(runs + 1) {
        try publish(version)
        let start = ContinuousClock.now
        app.send(#"{"type":"check-updates"}"#)
        try app.waitForFrame(version: version)
        timings.append(seconds(ContinuousClock.now - start) * 1000)
        swaps.append(app.swapMilliseconds)
    }
    return (timings, swaps)
}

do {
    let build = try BuildFolder.current()
    let executable = build.executable("microapp")
    let root = NSTemporaryDirectory() + "update-benchmark-\(ProcessInfo.processInfo.processIdentifier)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let releases = try Releases(build: build, folder: root)
    print("update to live, check-updates event → frame of the new version, channel on http://127.0.0.1 (\(runs) each)")
    print("mode         p50 ms   p90 ms   swap p50 ms (library ready → new Root, of the total)")
    var medians: [String: Double] = [:]
    for isolation in ["none", "process"] {
        let (timings, swaps) = try measure(
            isolation: isolation, releases: releases, home: root + "/" + isolation, executable: executable)
        medians[isolation] = median(timings)
        let name = isolation.padding(toLength: 10, withPad: " ", startingAt: 0)
        let figures = fixed(median(timings), 1, width: 9) + fixed(percentile(timings, 0.9), 1, width: 9)
        print("\(name)\(figures)\(fixed(median(swaps), 1, width: 14))   (n=\(timings.count))")
    }
    if let inProcess = medians["none"], let isolated = medians["process"] {
        print("isolated / in process: \(fixed(isolated / inProcess, 2))×")
    }
} catch {
    FileHandle.standardError.write(Data("update-benchmark: \(error)\n".utf8))
    exit(1)
}
