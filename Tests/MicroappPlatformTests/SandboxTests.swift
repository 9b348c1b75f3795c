import Foundation
import MicroappCore
import MicroappPlatform
import TestPlugins
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The sandbox attacked from a real process: `Tests/SandboxFixtures/sandbox_attacks.c`, compiled with the host's own
/// `sandbox.c`, applies a policy and then tries what a hostile plugin would; each attempt prints `ok` or its errno.
/// The test process is never sandboxed itself.
@Suite("The sandbox of an isolated feature")
struct SandboxTests {
    /// A folder standing for the user's home (a secret and a listening unix socket in it), a scratch folder, and a
    /// TCP listener on loopback; removed when the test ends.
    final class Target {
        let home = Scratch.folder("sandbox-home")
        let scratch = Scratch.folder("sandbox-scratch")
        let secret: String
        let unixSocket: String
        private(set) var port: UInt16 = 0
        private var descriptors: [Int32] = []

        init() throws {
            secret = home.appendingPathComponent("secret").path
            // A unix socket path must fit in 108 bytes: a short name in /tmp, not in the deep scratch folder.
            unixSocket = "/tmp/microapp-sandbox-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            try "id_rsa".write(toFile: secret, atomically: true, encoding: .utf8)
            try listenTCP()
            try listenUnix()
        }

        deinit {
            descriptors.forEach { _ = close($0) }
            unlink(unixSocket)
            Scratch.remove(home.path)
            Scratch.remove(scratch.path)
        }

        private func listenTCP() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw FixtureError(description: "socket: errno \(errno)") }
            descriptors.append(descriptor)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0
                        && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw FixtureError(description: "tcp listener: errno \(errno)") }
            port = UInt16(bigEndian: address.sin_port)
        }

        private func listenUnix() throws {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw FixtureError(description: "socket: errno \(errno)") }
            descriptors.append(descriptor)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in unixSocket.utf8.enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 && listen(descriptor, 16) == 0
                }
            }
            guard bound else { throw FixtureError(description: "unix listener: errno \(errno)") }
        }
    }

    /// The hostile program, compiled once per test process.
    static func attacker() throws -> String {
        let source = Paths.repository.appendingPathComponent("Tests/SandboxFixtures/sandbox_attacks.c")
        let cPlatform = Paths.repository.appendingPathComponent("Sources/CPlatform")
        return try FixtureBuilder.executable(
            "sandbox-attacks", source: String(contentsOf: source, encoding: .utf8),
            flags: [
                "-O1", "-I", cPlatform.appendingPathComponent("include").path,
                cPlatform.appendingPathComponent("sandbox.c").path,
                cPlatform.appendingPathComponent("sandbox_filter.c").path,
            ])
    }

    /// The Swift stand-in for a feature's child (`Tests/SandboxFixtures/sandboxed_feature.swift`), built once per
    /// test process with swiftc, `sandbox.c` and the SDK's C header through a bridging header.
    static let feature: Result<String, FixtureError> = {
        let fixtures = Paths.repository.appendingPathComponent("Tests/SandboxFixtures")
        let cPlatform = Paths.repository.appendingPathComponent("Sources/CPlatform")
        let object = (Paths.fixtures as NSString).appendingPathComponent("sandbox.o")
        let filterObject = (Paths.fixtures as NSString).appendingPathComponent("sandbox_filter.o")
        let bridge = (Paths.fixtures as NSString).appendingPathComponent("sandboxed-feature.h")
        let program = (Paths.fixtures as NSString).appendingPathComponent("sandboxed-feature")
        let include = cPlatform.appendingPathComponent("include").path
        do {
            try "#include \"sandbox.h\"\n#include \"microapp.h\"\n".write(
                toFile: bridge, atomically: true, encoding: .utf8)
            let steps: [[String]] = [
                ["cc", "-O1", "-c", "-I", include, cPlatform.appendingPathComponent("sandbox.c").path, "-o", object],
                [
                    "cc", "-O1", "-c", cPlatform.appendingPathComponent("sandbox_filter.c").path, "-o",
                    filterObject,
                ],
                [
                    "swiftc", "-swift-version", "6", "-import-objc-header", bridge, "-Xcc", "-I\(include)", "-Xcc",
                    "-I\(Paths.include)", fixtures.appendingPathComponent("sandboxed_feature.swift").path, object,
                    filterObject,
                    "-o", program,
                ],
            ]
            for step in steps {
                let (status, output) = try CompilerSlots.run { try FixtureBuilder.run("/usr/bin/env", step) }
                guard status == 0 else { return .failure(FixtureError(description: "\(step[0]) failed:\n\(output)")) }
            }
            return .success(program)
        } catch {
            return .failure(FixtureError(description: "sandboxed-feature: \(error)"))
        }
    }()

    /// Runs the attacker with `options`, making `attempts`; answers each attempt's result and the whole output.
    static func attack(_ options: [String], _ attempts: [String]) async throws -> (
        results: [String: String], output: String
    ) {
        let program = try await fixture { try attacker() }
        let outcome = try await BlockingWork.run {
            try ChildProcess([program] + options + ["--"] + attempts, output: .capture, error: .capture).wait()
        }
        var results: [String: String] = [:]
        for line in outcome.text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { results[String(parts[0])] = String(parts[1]) }
        }
        let output = outcome.text + String(decoding: outcome.error, as: UTF8.self)
        return (results, output)
    }

    /// A policy as a feature gets it: this machine's runtime and system libraries readable, `scratch` writable.
    static func sandboxed(_ target: Target, network: Bool = false, memory: UInt64? = nil) -> [String] {
        var options = Self.options(
            SandboxPolicy.feature(library: "/dev/null", scratch: target.scratch.path, network: network))
        if network { options.append("--network") }
        if let memory { options += ["--memory", String(memory)] }
        return options
    }

    /// The `--read`/`--write` options of `policy`, computed from this test process's own maps, without the files
    /// other tests of this process loaded from their scratch folders: those tests remove them when they end, often
    /// while the attacker is still compiling, and a rule on a path that is gone fails the sandbox (step 5, ENOENT).
    /// The target's own scratch folder is kept.
    static func options(_ policy: SandboxPolicy) -> [String] {
        let others = Scratch.root.path + "/"
        let reads = policy.readPaths.filter { !$0.hasPrefix(others) }
        let writes = policy.writePaths
        return reads.flatMap { ["--read", $0] } + writes.flatMap { ["--write", $0] }
    }

    @Test("without the sandbox every attack of these tests succeeds: the harness can see an escape")
    func baselineEscapes() async throws {
        let target = try Target()
        let (results, output) = try await Self.attack(
            ["--no-sandbox"],
            [
                "read:\(target.secret)", "write:\(target.home.path)/planted", "tcp:\(target.port)",
                "unix:\(target.unixSocket)", "fork", "kill-parent", "unshare",
            ])
        for attempt in ["read:", "write:", "tcp:", "unix:"] {
            #expect(results.first { $0.key.hasPrefix(attempt) }?.value == "ok", "\(attempt) \(output)")
        }
        #expect(results["fork"] == "ok", "\(output)")
        #expect(results["kill-parent"] == "ok", "\(output)")
    }

    @Test("a sandboxed process reads its runtime, writes only beneath its scratch folder and reads nothing of home")
    func filesStayInside() async throws {
        let target = try Target()
        let inside = target.scratch.appendingPathComponent("notes").path
        let (results, output) = try await Self.attack(
            Self.sandboxed(target),
            [
                "read:\(target.secret)", "write:\(target.home.path)/planted", "write:\(inside)", "read:\(inside)",
                "read:/etc/passwd", "read:/etc/ld.so.cache", "write:/tmp/microapp-sandbox-escape-\(getpid())",
                "write:/dev/null",
            ])
        #expect(output.hasPrefix("sandbox applied"), "\(output)")
        #expect(results["read:\(target.secret)"] == "EACCES", "\(output)")
        #expect(results["write:\(target.home.path)/planted"] == "EACCES", "\(output)")
        #expect(results["write:/tmp/microapp-sandbox-escape-\(getpid())"] == "EACCES", "\(output)")
        #expect(results["read:/etc/passwd"] == "EACCES", "\(output)")
        #expect(results["write:\(inside)"] == "ok", "\(output)")
        #expect(results["read:\(inside)"] == "ok", "\(output)")
        #expect(results["read:/etc/ld.so.cache"] == "ok", "\(output)")
        #expect(results["write:/dev/null"] == "ok", "\(output)")
        #expect(!FileManager.default.fileExists(atPath: "\(target.home.path)/planted"))
    }

    @Test("without the network capability no socket opens, not even a unix one; a socketpair still does")
    func noNetwork() async throws {
        let target = try Target()
        let (results, output) = try await Self.attack(
            Self.sandboxed(target), ["tcp:\(target.port)", "unix:\(target.unixSocket)", "socketpair"])
        #expect(results["tcp:\(target.port)"] == "EPERM", "\(output)")
        #expect(results["unix:\(target.unixSocket)"] == "EPERM", "\(output)")
        #expect(results["socketpair"] == "ok", "\(output)")
    }

    @Test("with the network capability a TCP connection works and unix sockets stay closed")
    func grantedNetwork() async throws {
        let target = try Target()
        let (results, output) = try await Self.attack(
            Self.sandboxed(target, network: true), ["tcp:\(target.port)", "unix:\(target.unixSocket)"])
        #expect(results["tcp:\(target.port)"] == "ok", "\(output)")
        #expect(results["unix:\(target.unixSocket)"] == "EPERM", "\(output)")
    }

    @Test(
        "no new process, no exec, no ptrace, no reading another's memory, no signal outside, no namespaces, no raised limit"
    )
    func noWayOut() async throws {
        let target = try Target()
        let (results, output) = try await Self.attack(
            Self.sandboxed(target),
            [
                "fork", "ptrace", "vm-read", "kill-parent", "kill-group", "kill-self", "unshare", "io_uring",
                "raise-limit", "tiocsti", "exec:/bin/true",
            ])
        let denied = ["fork", "ptrace", "vm-read", "kill-parent", "kill-group", "unshare", "io_uring", "raise-limit"]
        // TIOCSTI would type into the terminal of whoever holds it; stdin here is /dev/null (ENOTTY unsandboxed).
        for attempt in denied + ["tiocsti"] {
            #expect(results[attempt] == "EPERM", "\(attempt): \(output)")
        }
        #expect(results["kill-self"] == "ok", "\(output)")
        // Had exec worked, /bin/true would have replaced the program and this line would be missing.
        #expect(results["exec:/bin/true"] == "EPERM", "\(output)")
    }

    #if arch(x86_64)
        @Test("a system call through another architecture's table ends the process (SIGSYS): no errno is safe there")
        func otherArchitecture() async throws {
            let target = try Target()
            let program = try await fixture { try Self.attacker() }
            let unsandboxed = try await Self.attack(["--no-sandbox"], ["i386"])
            #expect(unsandboxed.results["i386"] == "ok", "\(unsandboxed.output)")
            let arguments = [program] + Self.sandboxed(target) + ["--", "kill-self", "i386", "kill-self"]
            let outcome = try await BlockingWork.run {
                try ChildProcess(arguments, output: .capture, error: .capture).wait()
            }
            #expect(outcome.termination == .signalled(SIGSYS), "\(outcome.text)")
            #expect(outcome.text.hasSuffix("kill-self ok\n"), "the first attempt ran, nothing after: \(outcome.text)")
        }
    #endif

    #if arch(x86_64)
        @Test(
            "uretprobe (335), the one call seccomp cannot filter, ends only its caller (SIGILL) where the kernel has it, else fails with EPERM, as docs/sandbox.md says"
        )
        func uretprobeEndsOnlyItsCaller() async throws {
            let target = try Target()
            let program = try await fixture { try Self.attacker() }
            let arguments = [program] + Self.sandboxed(target) + ["--", "kill-self", "uretprobe", "kill-self"]
            let outcome = try await BlockingWork.run {
                try ChildProcess(arguments, output: .capture, error: .capture).wait()
            }
            if outcome.termination == .signalled(SIGILL) {
                #expect(
                    outcome.text.hasSuffix("kill-self ok\n"), "the first attempt ran, nothing after: \(outcome.text)")
            } else {
                // A kernel before 6.11 has no such call: off the allow list, it fails as every other one does.
                #expect(outcome.termination == .exited(0), "\(outcome.termination): \(outcome.text)")
                #expect(outcome.text.contains("uretprobe EPERM"), "\(outcome.text)")
            }
        }
    #endif

    @Test("threads still start: clone3 answers ENOSYS and glibc falls back to clone with CLONE_THREAD")
    func threadsStart() async throws {
        let target = try Target()
        let (results, output) = try await Self.attack(Self.sandboxed(target), ["clone3", "thread"])
        #expect(results["clone3"] == "ENOSYS", "\(output)")
        #expect(results["thread"] == "ok", "\(output)")
    }

    @Test("memory past the cap is refused with ENOMEM, memory below it is there")
    func memoryCap() async throws {
        let target = try Target()
        let (results, output) = try await Self.attack(
            Self.sandboxed(target, memory: 128 << 20), ["alloc:\(16 << 20)", "alloc:\(512 << 20)"])
        #expect(results["alloc:\(16 << 20)"] == "ok", "\(output)")
        #expect(results["alloc:\(512 << 20)"] == "ENOMEM", "\(output)")
    }

    @Test("Dispatch workers, Swift concurrency, Foundation and a real plugin work under a feature's policy")
    func swiftFeatureRuns() async throws {
        let target = try Target()
        let program = try await fixture { try Self.feature.get() }
        let library = try #require(Paths.realPlugins.first { $0.hasSuffix("/libAuth.so") })
        let options = Self.options(
            SandboxPolicy.feature(library: library, scratch: target.scratch.path, network: false))
        let arguments = [program] + options + ["--", library, target.scratch.path, target.secret]
        let outcome = try await BlockingWork.run {
            try ChildProcess(arguments, output: .capture, error: .capture).wait()
        }
        let output = outcome.text + String(decoding: outcome.error, as: UTF8.self)
        // Dispatch starts more workers only after reading /proc/<thread>/stat of the blocked ones: without /proc
        // in the policy it traps here (SIGILL) instead.
        #expect(
            outcome.text.split(separator: "\n") == [
                "sandbox ok", "dispatch ok", "concurrency ok", "foundation ok", "scratch-write ok", "secret denied",
                "plugin auth",
            ], "\(output)")
        #expect(outcome.termination == .exited(0), "\(output)")
        #expect(FileManager.default.fileExists(atPath: target.scratch.appendingPathComponent("note.json").path))
    }

    /// A file of the user's planted in the target's home: mode 0600, modified on 1 January 2001; answers its path.
    static func plant(_ name: String, in target: Target) throws -> String {
        let path = target.home.appendingPathComponent(name).path
        try "planted".write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o600, .modificationDate: Date(timeIntervalSinceReferenceDate: 0)], ofItemAtPath: path)
        return path
    }

    @Test("a file's mode, owner, times and extended attributes stay as they were, even where it may read the file")
    func metadataStays() async throws {
        let target = try Target()
        let hidden = try Self.plant("plugins.lock", in: target)
        // Readable under the policy: the owner may change the mode of any file it can open, even to read.
        let readable = try Self.plant("readable", in: target)
        let attempts = [
            "chmod:\(hidden)", "fchmodat:\(hidden)", "chown:\(hidden)", "utimensat:\(hidden)", "setxattr:\(hidden)",
            "removexattr:\(hidden)", "fchmod:\(readable)", "chmod:\(readable)",
        ]
        let (results, output) = try await Self.attack(Self.sandboxed(target) + ["--read", readable], attempts)
        for attempt in attempts {
            #expect(results[attempt] == "EPERM", "\(attempt): \(output)")
        }
        for path in [hidden, readable] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(path): \(attributes)")
            #expect((attributes[.modificationDate] as? Date) == Date(timeIntervalSinceReferenceDate: 0), "\(path)")
        }
        // Read unsandboxed: no attribute (ENODATA), or none possible on this file system (ENOTSUP).
        let after = try await Self.attack(["--no-sandbox"], ["getxattr:\(hidden)"])
        #expect(["ENODATA", "EOPNOTSUPP"].contains(after.results["getxattr:\(hidden)"]), "\(after.output)")
    }

    @Test("no SysV shared memory, semaphores or message queues and no POSIX message queue: nothing to leave behind")
    func noSharedObjects() async throws {
        let target = try Target()
        let attempts = ["shmget", "semget", "msgget", "mqueue"]
        let (results, output) = try await Self.attack(Self.sandboxed(target), attempts)
        for attempt in attempts {
            #expect(results[attempt] == "EPERM", "\(attempt): \(output)")
        }
    }

    @Test("no watching folders (inotify, fanotify, dnotify) and no signals by descriptor ownership (F_SETOWN)")
    func noWatching() async throws {
        let target = try Target()
        let attempts = ["inotify:\(target.home.path)", "fanotify", "dnotify:\(target.scratch.path)", "setown"]
        let (results, output) = try await Self.attack(Self.sandboxed(target), attempts)
        for attempt in attempts {
            #expect(results[attempt] == "EPERM", "\(attempt): \(output)")
        }
    }

    @Test("memory the data limit does not count is refused (shared anonymous, memfd); private memory below it is there")
    func noUncountedMemory() async throws {
        let target = try Target()
        let attempts = ["shared-anon:\(96 << 20)", "memfd:\(96 << 20)", "alloc:\(16 << 20)"]
        let (results, output) = try await Self.attack(Self.sandboxed(target, memory: 64 << 20), attempts)
        #expect(results["shared-anon:\(96 << 20)"] == "EPERM", "\(output)")
        #expect(results["memfd:\(96 << 20)"] == "EPERM", "\(output)")
        #expect(results["alloc:\(16 << 20)"] == "ok", "\(output)")
    }

    @Test("a call off the allow list fails with EPERM even when it only asks (personality)")
    func offTheList() async throws {
        let target = try Target()
        let unsandboxed = try await Self.attack(["--no-sandbox"], ["personality"])
        #expect(unsandboxed.results["personality"] == "ok", "\(unsandboxed.output)")
        let (results, output) = try await Self.attack(Self.sandboxed(target), ["personality", "kill-self"])
        #expect(results["personality"] == "EPERM", "\(output)")
        #expect(results["kill-self"] == "ok", "\(output)")
    }

    @Test(
        "the allow list lets a probe work: microapp probe, whose child sandboxes itself before it maps the library, loads, registers and draws the first screens of each demo feature"
    )
    func probeRunsSandboxed() async throws {
        let executable = "\(Paths.runnerDirectory)/microapp"
        let plugins = Paths.realPlugins
        try #require(plugins.count >= 4, "the demo's libraries are built beside the test runner")
        for library in plugins {
            let outcome = try await BlockingWork.run {
                try ChildProcess([executable, "probe", "--json", library], output: .capture, error: .capture).wait()
            }
            let errors = String(decoding: outcome.error, as: UTF8.self)
            let report = try JSONSerialization.jsonObject(with: Data(outcome.text.utf8)) as? [String: Any]
            #expect(report?["verdict"] as? String == "ok", "\(library): \(outcome.text) \(errors)")
            #expect(
                (report?["checked"] as? [String])?.contains("first screens") == true, "\(library): \(outcome.text)")
            #expect(outcome.termination == .exited(0), "\(library): \(errors)")
        }
    }

    @Test("another process's environment, memory map and files stay closed; command lines are as public as ps shows")
    func otherProcesses() async throws {
        let target = try Target()
        let runner = "/proc/\(getpid())"
        let (results, output) = try await Self.attack(
            Self.sandboxed(target),
            [
                "read:\(runner)/environ", "read:\(runner)/maps", "read:\(runner)/mem",
                "read:\(runner)/cwd/Package.swift",
                "read:\(runner)/cmdline", "read:/proc/self/maps", "read:/proc/self/status",
            ])
        for file in ["environ", "maps", "mem"] {
            #expect(results["read:\(runner)/\(file)"] == "EACCES", "\(file): \(output)")
        }
        #expect(results["read:\(runner)/cwd/Package.swift"] != "ok", "\(output)")
        #expect(results["read:\(runner)/cmdline"] == "ok", "world-readable, like ps shows it: \(output)")
        #expect(results["read:/proc/self/maps"] == "ok", "\(output)")
        #expect(results["read:/proc/self/status"] == "ok", "\(output)")
    }

    @Test("a missing path in the policy stops the sandbox at its rule, naming the path")
    func missingPath() async throws {
        let target = try Target()
        let missing = target.home.appendingPathComponent("not-there").path
        let (_, output) = try await Self.attack(["--read", missing], ["read:\(target.secret)"])
        #expect(output.hasPrefix("sandbox failed step 5 ENOENT \(missing)"), "\(output)")
        #expect(!output.contains("read:"), "an attempt ran after a failed sandbox: \(output)")
    }
}
