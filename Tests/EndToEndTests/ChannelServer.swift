import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform
import MicroappRelease
import MicroappSDK
import Synchronization
import TestScratch
import Testing

/// Python's `http.server` serving a folder on 127.0.0.1, started by the test on a port the kernel picks (port 0,
/// read from the line the server prints once it listens: no sleep stands for "started"), and stopped on every path.
final class ChannelServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    private let process: Mutex<Process>

    private init(process: Process, port: Int) {
        self.process = Mutex(process)
        baseURL = "http://127.0.0.1:\(port)"
    }

    /// Runs `body` with a server of `folder`'s files, stopping it however `body` ends.
    static func serving<T: Sendable>(_ folder: String, _ body: (ChannelServer) async throws -> T) async throws -> T {
        let server = try await offThePool { try start(folder) }
        do {
            let value = try await body(server)
            try await offThePool { server.stop() }
            return value
        } catch {
            try await offThePool { server.stop() }
            throw error
        }
    }

    private static func start(_ folder: String) throws -> ChannelServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", folder, "0"]
        process.environment = Scratch.childEnvironment()
        let output = privatePipe()
        try process.run(stdin: FileHandle.nullDevice, stdout: output, stderr: FileHandle.nullDevice)
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ...", printed once it listens.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"port (\d+)"#, options: .regularExpression),
            let port = Int(text[range].dropFirst(5))
        else {
            process.terminate()
            process.waitUntilExit()
            throw AppProcessError("python3 -m http.server did not say its port: '\(text)'")
        }
        return ChannelServer(process: process, port: port)
    }

    /// Ends the server (SIGKILL: the test runner's children do not all die of SIGTERM) and waits for it. Blocks.
    func stop() {
        process.withLock { process in
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// A person with a trusted publisher's key, a channel folder the publisher fills through the platform's own
/// publishing, and a plugin folder running `tick` v1, locked: everything in a scratch folder of its own.
struct UpdateWorld {
    let home: String
    let environment: [String: String]
    let folders: ReleaseFolders
    let channel: String
    let plugins: String

    private init(home: String) {
        self.home = home
        environment = [
            "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "XDG_CACHE_HOME": home + "/cache",
        ]
        folders = ReleaseFolders(environment: environment, home: home)
        channel = home + "/served/channel"
        plugins = home + "/plugins"
    }

    /// A new world whose plugin folder runs `tick` v1.
    static func make() async throws -> UpdateWorld {
        let world = UpdateWorld(home: try temporaryFolder("update-home").path)
        let key = try ReleaseKeyFile.generate("acme", in: world.folders).get()
        let trust = try #require(TrustList().trusting(KeyText.text(of: key.publicKey), as: "acme", for: ["tick"]))
        #expect(ReleaseStore(folders: world.folders).save(trust) == nil)
        try TickFolder(world, "plugins").install(try await Tick.library(1))
        return world
    }

    /// Publishes `feature` (`tick` unless given) at `version` (its real library, unless `library` is given) into
    /// `channel` (the world's unless given), its record signed by the key `key` (generated, and trusted by the
    /// publisher only, when it is not `acme`) and the index by `index` (the same key unless given), built for `sdk`.
    func publish(
        _ version: Int, library: Data? = nil, key name: String = "acme", sdk: SDKVersion = .current,
        now: Date = Date(), lifetime: TimeInterval = 3600, feature: String = "tick", channel: String? = nil,
        index indexName: String? = nil
    ) async throws {
        let key = try self.key(name)
        let indexKey = try indexName.map(self.key) ?? key
        var bytes = library ?? Data()
        if library == nil { bytes = try await Tick.library(version, id: feature) }
        let manifest = Data(#"{"id":"\#(feature)","version":\#(version)}"#.utf8)
        let release = SignedRelease.make(
            library: bytes, libraryName: "lib\(Tick.module(feature)).so", manifest: manifest, feature: feature,
            version: version, sdk: sdk, key: key, now: now)
        let folder = home + "/releases/\(name)-\(feature)-\(version)"
        #expect(ChannelFolder.writeRelease(release, library: bytes, manifest: manifest, to: folder) == nil)
        let publisher = try #require(TrustList().trusting(KeyText.text(of: key.publicKey), as: name, for: [feature]))
        _ = try ChannelFolder.publish(
            folder, to: channel ?? self.channel, key: indexKey, trust: publisher, now: now, lifetime: lifetime
        ).get()
    }

    /// The key `name` of the world's keys folder, generated when missing.
    private func key(_ name: String) throws -> Ed25519.PrivateKey {
        let known = try? ReleaseKeyFile.read(name, in: folders).get()
        return try known ?? ReleaseKeyFile.generate(name, in: folders).get()
    }

    /// Runs `update` of the plugin folder from `channel` (the world's unless given), which must be refused with the
    /// folder left byte for byte as it was; what it wrote to stderr.
    func refusedUpdate(from channel: String? = nil) async throws -> String {
        let before = pluginFiles()
        let result = try await microapp(["update", "--channel", channel ?? self.channel, "--plugins", plugins])
        #expect(result.status == 1, "\(result.out)\(result.err)")
        #expect(result.err.contains("to fix:"), "\(result.err)")
        #expect(!result.out.contains("installed"), "\(result.out)")
        #expect(pluginFiles() == before)
        return result.err
    }

    /// Runs the real binary with the person's folders.
    func microapp(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        try await runToEnd(arguments, in: URL(fileURLWithPath: home), environment: environment)
    }

    /// Every file under the plugin folder (hidden ones included) with its bytes.
    func pluginFiles() -> [String: Data] {
        let all = FileManager.default.subpaths(atPath: plugins) ?? []
        return Dictionary(
            uniqueKeysWithValues: all.compactMap { path in
                FileManager.default.contents(atPath: plugins + "/" + path).map { (path, $0) }
            })
    }

    /// The lock's entry for `libTick.so`.
    func lockEntry() throws -> PluginLock.Entry? { try PluginLock.load(in: plugins)?.libraries["libTick.so"] }
}

/// `tick`, a one-screen feature whose manifest says the version it was compiled as: real libraries, compiled once per
/// test process with swiftc against the SDK `swift test` built.
enum Tick {
    /// One compilation per feature and version (two of the same source differ: the scratch path is in the library).
    private static let built = Mutex<[String: Task<Data, any Error>]>([:])

    /// The module (and library) name of the feature `id`: `Tick` for `tick`.
    static func module(_ id: String) -> String { id.prefix(1).uppercased() + id.dropFirst() }

    /// The library of the one-screen feature `id` (`tick` unless given) at `version`.
    static func library(_ version: Int, id: String = "tick") async throws -> Data {
        let module = module(id)
        let task = built.withLock { built in
            if let task = built["\(id) \(version)"] { return task }
            let task = Task {
                let folder = try await compilePlugin(module: module, source: source(version, id: id, module: module))
                return try Data(contentsOf: folder.appendingPathComponent("lib\(module).so"))
            }
            built["\(id) \(version)"] = task
            return task
        }
        return try await task.value
    }

    private static func source(_ version: Int, id: String, module: String) -> String {
        """
        import MicroappSDK

        public enum \(module)Feature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(id: "\(id)", version: \(version), displayName: "\(module)", routes: [RouteDeclaration("\(id)://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { \(module)Root() }
        }

        @MainActor final class \(module)Root: Root {
            func screen(at location: Location) -> Screen { Screen(title: "\(module)", content: [.text(Text("\(module) v\(version)"))]) }
            func handle(_ action: Action, at location: Location) {}
        }

        @_cdecl("microapp_entry") public func microappEntry() -> UnsafeRawPointer? { MicroappEntry.export(\(module)Feature.self) }
        """
    }
}

/// The hex SHA-256 of bytes, as the lock writes it.
enum SHA256Text {
    static func of(_ bytes: Data) -> String { FileEntry(path: "", bytes: bytes).sha256 }
}
