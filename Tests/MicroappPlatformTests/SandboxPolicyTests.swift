import Foundation
import MicroappCore
import MicroappPlatform
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The Swift side of the sandbox: which paths a feature's policy opens, how support and failures are told.
@Suite("Sandbox policy and support")
struct SandboxPolicyTests {
    static let maps = """
        55d0a0000000-55d0a0001000 r--p 00000000 08:01 1 /work/app/.build/debug/microapp
        7f0000000000-7f0000001000 r-xp 00000000 08:01 2 /opt/swift/usr/lib/swift/linux/libswiftCore.so
        7f0000002000-7f0000003000 r-xp 00000000 08:01 3 /opt/swift/usr/lib/swift/linux/libFoundation.so
        7f0000004000-7f0000005000 r-xp 00000000 08:01 4 /work/app/.build/debug/libMicroappSDK.so
        7f0000006000-7f0000007000 r-xp 00000000 08:01 5 /usr/lib/x86_64-linux-gnu/libc.so.6
        7f0000008000-7f0000009000 r-xp 00000000 08:01 6 /home/me/old copy/libGone.so (deleted)
        7f000000a000-7f000000b000 rw-p 00000000 00:00 0 [heap]
        7f000000c000-7f000000d000 rw-p 00000000 00:00 0
        """

    @Test(
        "the runtime's read paths: the toolchain folder whole, other mapped files alone, never their folders",
        .offThePool)
    func runtimePaths() {
        let paths = SandboxPolicy.runtimeReadPaths(maps: Self.maps)
        #expect(paths.contains("/opt/swift/usr/lib/swift/linux"))
        #expect(paths.contains("/work/app/.build/debug/microapp"))
        #expect(paths.contains("/work/app/.build/debug/libMicroappSDK.so"))
        #expect(!paths.contains("/work/app/.build/debug"), "the build folder holds every other plugin")
        #expect(paths.contains("/usr/lib"))
        #expect(!paths.contains { $0.hasPrefix("/usr/lib/x86_64-linux-gnu") }, "beneath /usr/lib already")
        #expect(!paths.contains { $0.contains("libGone") }, "a deleted file has no path to allow")
        #expect(!paths.contains { $0.hasPrefix("[") || $0.isEmpty })
        #expect(!paths.contains("/etc") && !paths.contains("/home") && !paths.contains("/"))
        #expect(Set(paths).count == paths.count, "each path once")
    }

    @Test(
        "a feature's policy in this process: its library, this runtime, scratch writable, the network only if granted",
        .offThePool)
    func featurePolicy() throws {
        let scratch = NSTemporaryDirectory()
        let library = "/dev/null"
        let closed = SandboxPolicy.feature(library: library, scratch: scratch, network: false)
        let open = SandboxPolicy.feature(library: library, scratch: scratch, network: true)
        // /proc files say their size is 0: read through a descriptor to the end, as the policy does.
        let maps = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data()
        let runtime = try #require(
            String(decoding: maps, as: UTF8.self).split(separator: "\n")
                .compactMap { $0.split(separator: " ", maxSplits: 5).last?.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasSuffix("/libswiftCore.so") })
        #expect(closed.readPaths.first == library)
        #expect(closed.readPaths.contains((runtime as NSString).deletingLastPathComponent))
        #expect(closed.writePaths == [scratch, "/dev/null"])
        #expect(!closed.network && open.network)
        #expect(!closed.readPaths.contains("/etc/resolv.conf"))
        #expect(
            open.readPaths.contains("/etc/resolv.conf") == FileManager.default.fileExists(atPath: "/etc/resolv.conf"))
        // Every path named exists, or was a library another test of this process removed since the policy read the
        // maps (a full run's suites load and delete plugin copies all the time): the maps now say it is gone.
        let missing = closed.readPaths.filter { !FileManager.default.fileExists(atPath: $0) }
        let mapsNow = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data()
        let mappedNow = String(decoding: mapsNow, as: UTF8.self).split(separator: "\n")
        for path in missing {
            #expect(!mappedNow.contains { $0.hasSuffix(" " + path) }, "\(path) is mapped and not there")
        }
        #expect(closed.memoryLimit == SandboxPolicy.defaultMemoryLimit && !closed.bestEffort)
    }

    @Test(
        "support without Landlock names it missing, why, and that isolated features need --allow-unsandboxed",
        .offThePool)
    func supportWithoutLandlock() {
        let support = SandboxSupport(landlockABI: 0, landlockError: EOPNOTSUPP, seccomp: true, noNewPrivileges: true)
        #expect(support.missing == [.landlock])
        #expect(support.summary.contains("no Landlock (disabled at boot"))
        #expect(support.summary.contains("--allow-unsandboxed"))
        let full = SandboxSupport(landlockABI: 7, landlockError: 0, seccomp: true, noNewPrivileges: true)
        #expect(full.missing.isEmpty)
        #expect(full.summary == "sandbox complete: Landlock ABI 7, seccomp, no-new-privs")
        let old = SandboxSupport(landlockABI: 3, landlockError: 0, seccomp: true, noNewPrivileges: true)
        #expect(old.missing.isEmpty && old.summary.contains("TCP left to seccomp"))
    }

    @Test(
        "this kernel's support is reported as it is: missing is empty exactly when the summary says complete",
        .offThePool)
    func supportHere() {
        let support = Sandbox.support
        #expect(support.missing.isEmpty == support.summary.hasPrefix("sandbox complete"))
        #expect((support.landlockABI == 0) == support.missing.contains(.landlock))
    }

    @Test("applying in a process with more than one thread is refused before anything is in force", .offThePool)
    func threadedProcessRefused() throws {
        // The test runner always has several threads; were it to have one, applying would sandbox the whole run.
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        try #require(threads > 1)
        #expect {
            try Sandbox.apply(SandboxPolicy(readPaths: ["/usr/lib"], writePaths: []))
        } throws: { error in
            guard let error = error as? SandboxError else { return false }
            return error.step == .threads && error.errno == EBUSY && error.applied.isEmpty
                && error.problem.fix.contains("before starting any thread")
        }
    }

    @Test("a failed rule's problem names the path, the call's words and a fix", .offThePool)
    func ruleProblem() {
        let problem = SandboxError(step: .landlockRule, errno: ENOENT, path: "/srv/gone", applied: [.limits]).problem
        #expect(problem.code == "sandbox")
        #expect(problem.subject == "/srv/gone")
        #expect(problem.reason.contains("Landlock rule") && problem.reason.contains("errno \(ENOENT)"))
        #expect(problem.fix.contains("does not exist"))
    }
}
