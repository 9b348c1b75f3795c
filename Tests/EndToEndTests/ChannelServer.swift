import Foundation
import MicroappCore
import MicroappDigest
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import MicroappShipping
import Synchronization
import TestScratch
import Testing

/// Python's `http.server` serving a folder on 127.0.0.1 (or `openssl s_server -WWW`, over TLS), started by the test on
/// a port the kernel picks (port 0, read from the line the server prints once it listens: no sleep stands for
/// "started"), and stopped on every path.
final class ChannelServer: Sendable {
    /// `http://127.0.0.1:PORT`, or `https://…`.
    let baseURL: String
    private let process: Mutex<Process>
    /// The server's standard output, open while it runs: a line it prints later never meets a closed pipe.
    private let output: PrivatePipe

    private init(process: Process, listening: (port: Int, output: PrivatePipe), scheme: String = "http") {
        self.process = Mutex(process)
        output = listening.output
        baseURL = "\(scheme)://127.0.0.1:\(listening.port)"
    }

    /// How a hostile server answers for the one file whose path ends with `path`; every other file is served as is.
    enum Hostile: Sendable {
        /// `Content-Encoding: gzip`, the gzip of `inflated` zero bytes (a bomb: about a thousandth of it is sent).
        case gzipBomb(path: String, inflated: Int)
        /// The file's real `Content-Length`, then one byte every `seconds`.
        case trickle(path: String, seconds: Double)
        /// `302 Found` to `location`.
        case redirect(path: String, location: String)

        var arguments: [String] {
            switch self {
            case .gzipBomb(let path, let inflated): ["gzip", path, String(inflated)]
            case .trickle(let path, let seconds): ["trickle", path, String(seconds)]
            case .redirect(let path, let location): ["redirect", path, location]
            }
        }
    }

    /// Runs `body` with a server of `folder`'s files (answering as `hostile` says for one of them), stopping it
    /// however `body` ends.
    static func serving<T: Sendable>(
        _ folder: String, hostile: Hostile? = nil, _ body: (ChannelServer) async throws -> T
    ) async throws -> T {
        try await running({ try start(folder, hostile: hostile) }, body)
    }

    /// Runs `body` with `openssl s_server -WWW` serving `folder`'s files over TLS (HTTP/1.0, one connection at a time)
    /// with the certificate and key of `identity`, stopping it however `body` ends.
    static func servingTLS<T: Sendable>(
        _ folder: String, as identity: TestCertificates.Server, _ body: (ChannelServer) async throws -> T
    ) async throws -> T {
        try await running({ try startTLS(folder, identity) }, body)
    }

    private static func running<T: Sendable>(
        _ start: @escaping @Sendable () throws -> ChannelServer, _ body: (ChannelServer) async throws -> T
    ) async throws -> T {
        let server = try await offThePool(start)
        do {
            let value = try await body(server)
            try await offThePool { server.stop() }
            return value
        } catch {
            try await offThePool { server.stop() }
            throw error
        }
    }

    private static func start(_ folder: String, hostile: Hostile?) throws -> ChannelServer {
        let process = Process()
        // Debian's interpreter by its path: a `python3` found on PATH may be a version manager's shim (pyenv's runs
        // a dozen shell processes first, 0.3 s of each start on a loaded machine).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            if let hostile {
                ["-u", "-c", hostileServer, folder] + hostile.arguments
            } else {
                ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", folder, "0"]
            }
        process.environment = Scratch.childEnvironment()
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ...", printed once it listens.
        return ChannelServer(process: process, listening: try listening(process, said: #"port (\d+)"#))
    }

    private static func startTLS(_ folder: String, _ identity: TestCertificates.Server) throws -> ChannelServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "s_server", "-WWW", "-accept", "127.0.0.1:0", "-cert", identity.certificate, "-key",
            identity.key,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = Scratch.childEnvironment()
        // "ACCEPT 127.0.0.1:40123", printed once it listens (after "Using default temp DH parameters").
        return ChannelServer(
            process: process, listening: try listening(process, said: #"ACCEPT 127\.0\.0\.1:(\d+)"#), scheme: "https")
    }

    /// Starts `process` and reads its output until `pattern` matches in a whole line (its end read too), its first
    /// group the port; the port and the output pipe, kept open (a server writing to a closed pipe ends: Python with
    /// BrokenPipeError, even between a line and its newline).
    private static func listening(_ process: Process, said pattern: String) throws -> (port: Int, output: PrivatePipe) {
        let output = privatePipe()
        try process.run(stdin: FileHandle.nullDevice, stdout: output, stderr: FileHandle.nullDevice)
        let expression = try NSRegularExpression(pattern: pattern + #"(?=[^\n]*\n)"#)
        var text = ""
        while true {
            let range = NSRange(text.startIndex..., in: text)
            if let match = expression.firstMatch(in: text, range: range),
                let group = Range(match.range(at: 1), in: text), let port = Int(text[group])
            {
                return (port, output)
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        process.terminate()
        process.waitUntilExit()
        throw AppProcessError(
            "\(process.arguments?.dropFirst().prefix(2).joined(separator: " ") ?? "") did not say its port: '\(text)'")
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

/// `http.server` with one file answered as an attacker would (`ChannelServer.Hostile`); it prints the line
/// `http.server` prints once it listens. HTTP/1.1, so a body is delimited by its `Content-Length`.
private let hostileServer = #"""
    import http.server, os, sys, time, zlib
    folder, mode, target, amount = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    bomb = None
    def gzip_of_zeros(total):
        # One gzip member of a MiB of zeros, repeated: a gzip stream may hold many members, each inflating to a MiB,
        # and compressing one MiB once costs milliseconds where compressing them all cost the suite a second.
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        member = packer.compress(bytes(1 << 20)) + packer.flush()
        return member * (total >> 20)
    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def __init__(self, *arguments, **options):
            super().__init__(*arguments, directory=folder, **options)
        def log_message(self, *arguments):
            pass
        def do_GET(self):
            global bomb
            if not self.path.endswith(target):
                return super().do_GET()
            if mode == "redirect":
                self.send_response(302)
                self.send_header("Location", amount)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if mode == "gzip":
                bomb = bomb or gzip_of_zeros(int(amount))
                body = bomb
            else:
                body = open(os.path.join(folder, self.path.lstrip("/")), "rb").read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            if mode == "gzip":
                self.send_header("Content-Encoding", "gzip")
            self.end_headers()
            try:
                if mode == "gzip":
                    self.wfile.write(body)
                else:
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(float(amount))
            except OSError:
                pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("Serving HTTP on 127.0.0.1 port %d" % server.server_address[1], flush=True)
    server.serve_forever()
    """#

/// Runs argv[1:] as its child (stdin, stdout and stderr passed on), exits with its status, and prints last on stderr
/// `rusage PEAK-KIB CPU-SECONDS` as wait4 counted them for that child.
private let rusageWrapper = #"""
    import os, sys
    child = os.fork()
    if child == 0:
        os.execv(sys.argv[1], sys.argv[1:])
    _, status, usage = os.wait4(child, 0)
    sys.stderr.write("\nrusage %d %.3f\n" % (usage.ru_maxrss, usage.ru_utime + usage.ru_stime))
    sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
    """#

/// A person with a trusted publisher's key, a channel folder the publisher fills through the platform's own
/// publishing, and a plugin folder running `tick` v1, locked: everything in a scratch folder of its own.
struct UpdateWorld {
    let home: String
    private(set) var environment: [String: String]
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

    /// The same world, its processes given `variables` too.
    func with(_ variables: [String: String]) -> UpdateWorld {
        var changed = self
        changed.environment.merge(variables) { $1 }
        return changed
    }

    /// Runs the real binary with the person's folders.
    func microapp(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        try await runToEnd(arguments, in: URL(fileURLWithPath: home), environment: environment)
    }

    /// Runs the real binary as `microapp` does, and also says what the kernel counted for it when it ended (wait4's
    /// rusage): its peak resident memory (VmHWM) in KiB and its CPU time (user and system) in seconds.
    func measured(_ arguments: [String]) async throws -> (
        status: Int32, out: String, err: String, peakKiB: Int, cpuSeconds: Double
    ) {
        let run = try await runToEnd(
            ["-c", rusageWrapper, AppProcess.executable] + arguments, executable: "/usr/bin/python3",
            in: URL(fileURLWithPath: home), environment: environment)
        let last = run.err.split(separator: "\n").last.map(String.init) ?? ""
        let fields = last.split(separator: " ")
        guard fields.count == 3, fields[0] == "rusage", let peak = Int(fields[1]), let cpu = Double(fields[2]) else {
            throw AppProcessError("the rusage wrapper did not say what it counted: \(run.err)")
        }
        return (run.status, run.out, String(run.err.dropLast(last.count + 1)), peak, cpu)
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
/// feature and test process with swiftc against the SDK `swift test` built. The version lives in a string literal (of
/// 16 bytes or more, so kept as bytes in the image): each version is the one compile's library with other digits
/// there, as the probe and the screen read it — one compile where each version was one (0.3 s of CPU each).
enum Tick {
    /// One compilation per feature, the library's bytes with the offsets of the version's digits.
    private static let built = Mutex<[String: Task<(image: Data, offsets: [Int]), any Error>]>([:])
    /// The literal the version is read from; its last eight digits are the version.
    private static let marker = "tick-fixture-version-00000000"

    /// The module (and library) name of the feature `id`: `Tick` for `tick`.
    static func module(_ id: String) -> String { id.prefix(1).uppercased() + id.dropFirst() }

    /// The library of the one-screen feature `id` (`tick` unless given) at `version`.
    static func library(_ version: Int, id: String = "tick") async throws -> Data {
        let module = module(id)
        let task = built.withLock { built in
            if let task = built[id] { return task }
            let task = Task { () throws -> (image: Data, offsets: [Int]) in
                let folder = try await compilePlugin(module: module, source: source(id: id, module: module))
                let image = try Data(contentsOf: folder.appendingPathComponent("lib\(module).so"))
                let needle = Data(marker.utf8)
                var offsets: [Int] = []
                var from = image.startIndex
                while let found = image.range(of: needle, in: from..<image.endIndex) {
                    offsets.append(found.upperBound - 8)
                    from = found.upperBound
                }
                guard !offsets.isEmpty else { throw AppProcessError("the version marker is not in lib\(module).so") }
                return (image, offsets)
            }
            built[id] = task
            return task
        }
        var (image, offsets) = try await task.value
        let digits = Data(String(format: "%08d", version).utf8)
        for offset in offsets { image.replaceSubrange(offset..<offset + 8, with: digits) }
        return image
    }

    private static func source(id: String, module: String) -> String {
        """
        import MicroappSDK

        let versionText = "\(marker)"
        let version = Int(String(versionText.suffix(8)))!

        public enum \(module)Feature: Feature {
            public static var manifest: FeatureManifest {
                FeatureManifest(id: "\(id)", version: version, displayName: "\(module)", routes: [RouteDeclaration("\(id)://home")])
            }
            @MainActor public static func makeRoot(_ context: FeatureContext) throws -> any Root { \(module)Root() }
        }

        @MainActor final class \(module)Root: Root {
            func screen(at location: Location) -> Screen { Screen(title: "\(module)", content: [.text(Text("\(module) v\\(version)"))]) }
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
