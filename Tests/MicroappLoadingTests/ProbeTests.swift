import Foundation
import MicroappCore
import MicroappIsolation
import MicroappLoading
import MicroappPlatform
import MicroappSDK
import TestPlugins
import TestScratch
import Testing

@Suite("Untrusted libraries are probed in a child process first")
struct ProbeTests {
    static let probe = PluginProbe(
        executable: "\(Paths.runnerDirectory)/microapp", environment: .process, timeout: .seconds(5))

    /// A valid plugin whose `register_feature` runs `body` (a C expression) instead of returning.
    static func plugin(_ name: String, register body: String) throws -> String {
        var descriptor = DescriptorFixture(manifest: Manifests.json(name.lowercased()))
        descriptor.registerStatus = body
        return try FixtureBuilder.plugin(name, descriptor)
    }

    @Test("a library that traps in register_feature crashes the probe, not the host, and the others still load")
    func trapInRegister() async throws {
        // Probes run off the cooperative pool: a full run's other suites (Search's debounce) need its two threads.
        let trapping = try await fixture {
            try Self.plugin("TrapRegister", register: "(__builtin_trap(), MICROAPP_STATUS_OK)")
        }
        let verdict = await BlockingWork.run { Self.probe.verdict(for: trapping) }
        guard case .blocked(let problem) = verdict else {
            Issue.record("expected blocked, got \(verdict)")
            return
        }
        #expect(problem.code == .probeCrashed)
        #expect(problem.subject == trapping)
        #expect(problem.reason.contains("crashed a probe process") && problem.reason.contains("signal"))
        #expect(problem.fix.contains("microapp probe \(trapping)"))

        let cacheFile = "\(Paths.fixtures)/cache-\(UUID().uuidString).json"
        let report = await BlockingWork.run {
            var screening = PluginScreening(probe: Self.probe, cache: ProbeCache(file: cacheFile))
            return PluginSet.load([trapping] + Paths.realPlugins, screening: &screening)
        }
        #expect(report.problems.map(\.code) == [.probeCrashed])
        #expect(Set(report.images.map(\.manifest.id)).isSuperset(of: ["auth", "characters"]))
    }

    @Test("a library that hangs in register_feature is stopped at the time limit and blocked")
    func hangInRegister() async throws {
        let hanging = try await fixture {
            try Self.plugin(
                "HangRegister", register: "({ volatile int spin = 1; while (spin) {} MICROAPP_STATUS_OK; })")
        }
        let quick = PluginProbe(executable: Self.probe.executable, environment: .process, timeout: .milliseconds(700))
        guard case .blocked(let problem) = await BlockingWork.run({ quick.verdict(for: hanging) }) else {
            Issue.record("a hanging library was not blocked")
            return
        }
        #expect(problem.code == .probeHung)
        #expect(problem.reason.contains("did not finish within"))
    }

    @Test(
        "a feature's child that does not register within the limit is refused as register-hung, not as a probe's hang"
    )
    @MainActor
    func isolatedRegistrationTimeout() async throws {
        // cc runs on a thread of its own: on the main actor it stalled every main-actor test of the run for as long.
        let hanging = try await BlockingWork.run {
            try Self.plugin(
                "HangChildRegister", register: "({ volatile int spin = 1; while (spin) {} MICROAPP_STATUS_OK; })")
        }
        let launched = await IsolatedPlugin.launch(
            hanging, executable: Self.probe.executable, log: IsolationLog(environment: .process),
            timeout: .milliseconds(1500))
        guard case .failure(let problem) = launched else {
            if case .success(let plugin) = launched { plugin.stop() }
            Issue.record("a library whose registration hangs started")
            return
        }
        #expect(problem.code == .registerHung, "\(problem)")
        #expect(problem.subject == hanging && problem.reason.contains("did not load and register it within"))
    }

    @Test("a refused library is refused with the child's diagnostic, and a good one is usable", .offThePool)
    func refusedAndUsable() throws {
        var descriptor = DescriptorFixture(manifest: Manifests.json("wrongabi"))
        descriptor.abiVersion = "(2u << 16)"
        let wrongABI = try FixtureBuilder.plugin("WrongABIProbe", descriptor)
        #expect(Self.probe.verdict(for: wrongABI) == .refused(try #require(PluginLoader.load(wrongABI).failure)))
        #expect(Self.probe.verdict(for: "\(Paths.runnerDirectory)/libAuth.so") == .usable)
    }

    @Test(
        "the cache answers for unchanged files, keeps a crasher blocked, forgets a file that changed, and is not rewritten when nothing was probed",
        .offThePool
    )
    func cache() throws {
        let folder = "\(Paths.fixtures)/probe-cache-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let auth = "\(folder)/libAuth.so"
        try FileManager.default.copyItem(atPath: "\(Paths.runnerDirectory)/libAuth.so", toPath: auth)
        let trapping = try Self.plugin("TrapCached", register: "(__builtin_trap(), MICROAPP_STATUS_OK)")
        let cacheFile = "\(folder)/cache.json"

        var first = PluginScreening(probe: Self.probe, cache: ProbeCache(file: cacheFile))
        #expect(first.verdict(for: auth) == .usable)
        #expect(first.verdict(for: trapping).isBlocked)
        #expect(first.probed == 2)
        first.cache.save()

        var warm = PluginScreening(probe: Self.probe, cache: ProbeCache(file: cacheFile))
        #expect(warm.verdict(for: auth) == .usable)
        #expect(warm.verdict(for: trapping).isBlocked)
        #expect(warm.probed == 0)
        // A warm start that probed nothing leaves the file alone (an atomic write would replace its inode).
        let written = try FileManager.default.attributesOfItem(atPath: cacheFile)[.systemFileNumber] as? Int
        warm.cache.save()
        #expect(try FileManager.default.attributesOfItem(atPath: cacheFile)[.systemFileNumber] as? Int == written)

        // A rebuilt library is a new file (new inode, new bytes): probed again.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: auth))
        bytes.append(contentsOf: [0, 0, 0, 0])
        try FileManager.default.removeItem(atPath: auth)
        try bytes.write(to: URL(fileURLWithPath: auth))
        #expect(warm.cache.verdict(for: auth) == nil)
    }

    @Test("a library rewritten in place with its size and mtime put back is probed again", .offThePool)
    func inPlaceRewrite() throws {
        let folder = "\(Paths.fixtures)/probe-rewrite-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let auth = "\(folder)/libAuth.so"
        try FileManager.default.copyItem(atPath: "\(Paths.runnerDirectory)/libAuth.so", toPath: auth)
        var screening = PluginScreening(probe: Self.probe, cache: ProbeCache(file: "\(folder)/cache.json"))
        #expect(screening.verdict(for: auth) == .usable)
        #expect(screening.cache.verdict(for: auth) == .usable)

        // Same inode, same size, mtime restored: only the bytes (and the ctime the kernel keeps) differ.
        var before = stat()
        #expect(stat(auth, &before) == 0)
        let handle = try #require(FileHandle(forUpdatingAtPath: auth))
        try handle.seek(toOffset: 64)
        try handle.write(contentsOf: Data([0xde, 0xad, 0xbe, 0xef]))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, auth, &times, 0) == 0)
        var after = stat()
        #expect(stat(auth, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_size == before.st_size)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(screening.cache.verdict(for: auth) == nil)
    }
}

extension PluginProbe.Verdict {
    var isBlocked: Bool {
        if case .blocked = self { return true }
        return false
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite("A probe process started ahead of time")
struct StandbyProbeTests {
    static let probe = ProbeTests.probe

    @Test("gives the same verdicts as a probe process started for the library", .offThePool)
    func sameVerdicts() throws {
        let auth = "\(Paths.runnerDirectory)/libAuth.so"
        #expect(Self.probe.verdict(for: auth, using: Self.probe.standby()) == .usable)

        var descriptor = DescriptorFixture(manifest: Manifests.json("wrongabiahead"))
        descriptor.abiVersion = "(2u << 16)"
        let wrongABI = try FixtureBuilder.plugin("WrongABIAhead", descriptor)
        let refusal = try #require(PluginLoader.load(wrongABI).failure)
        #expect(Self.probe.verdict(for: wrongABI, using: Self.probe.standby()) == .refused(refusal))

        let trapping = try ProbeTests.plugin("TrapAhead", register: "(__builtin_trap(), MICROAPP_STATUS_OK)")
        let crashed = Self.probe.verdict(for: trapping, using: Self.probe.standby())
        #expect(crashed.blockedCode == .probeCrashed)

        let hanging = try ProbeTests.plugin(
            "HangAhead", register: "({ volatile int spin = 1; while (spin) {} MICROAPP_STATUS_OK; })")
        let quick = PluginProbe(executable: Self.probe.executable, environment: .process, timeout: .milliseconds(700))
        #expect(quick.verdict(for: hanging, using: quick.standby()).blockedCode == .probeHung)
    }

    @Test("that died while waiting is replaced by a new probe process, and the library is not blamed", .offThePool)
    func diedWhileWaiting() throws {
        let waiting = try #require(Self.probe.standby())
        let pid = try #require(waiting.processID)
        #expect(kill(pid, SIGKILL) == 0)
        // Dead, not yet reaped: a zombie.
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline,
            !((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").contains(") Z ")
        {
            usleep(5_000)
        }
        #expect(Self.probe.verdict(for: "\(Paths.runnerDirectory)/libAuth.so", using: waiting) == .usable)
        #expect(waiting.processID == nil)
    }

    @Test("killed after the host sent it the library but before it read it, the library is not blamed")
    func killedBeforeReading() async throws {
        let waiting = try #require(Self.probe.standby())
        let pid = try #require(waiting.processID)
        #expect(kill(pid, SIGSTOP) == 0)  // it cannot read the path from here on, nor say that it has it
        let library = "\(Paths.runnerDirectory)/libAuth.so"
        let verdict = Task { await BlockingWork.run { Self.probe.verdict(for: library, using: waiting) } }
        // Whether the kill lands before the host's send or after it, a stopped standby never took the library. The
        // pause only makes "after" the likely order (the one an unacknowledged send got wrong); it decides nothing.
        try await Task.sleep(for: .milliseconds(300))
        #expect(kill(pid, SIGKILL) == 0)
        #expect(await verdict.value == .usable)
    }

    @Test("ends when it is cancelled, and is used only once", .offThePool)
    func cancelledAndUsedOnce() throws {
        let waiting = try #require(Self.probe.standby())
        let pid = try #require(waiting.processID)
        waiting.cancel()
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        #expect(waiting.processID == nil)

        let used = try #require(Self.probe.standby())
        let auth = "\(Paths.runnerDirectory)/libAuth.so"
        #expect(Self.probe.verdict(for: auth, using: used) == .usable)
        #expect(used.processID == nil)
        #expect(Self.probe.verdict(for: auth, using: used) == .usable)
    }
}

@Suite("A probe forked from the template process")
struct ZygoteProbeTests {
    @Test(
        "gives the verdicts and the recorded manifest a probe process started for the library gives, a library that traps or hangs in its entry included"
    )
    func sameAsAProcessProbe() async throws {
        let started = ProbeTests.probe
        let hanging = try await fixture {
            try ProbeTests.plugin(
                "HangForked", register: "({ volatile int spin = 1; while (spin) {} MICROAPP_STATUS_OK; })")
        }
        let trapping = try await fixture {
            try ProbeTests.plugin("TrapForked", register: "(__builtin_trap(), MICROAPP_STATUS_OK)")
        }
        let wrongABI = try await fixture {
            var descriptor = DescriptorFixture(manifest: Manifests.json("wrongabiforked"))
            descriptor.abiVersion = "(2u << 16)"
            return try FixtureBuilder.plugin("WrongABIForked", descriptor)
        }
        try await BlockingWork.run { () throws in
            let zygote = try Zygote.start(
                executable: started.executable, environment: ChildLaunch.featureEnvironment(.process))
            defer { zygote.stop() }
            var forked = started
            forked.zygote = zygote
            // No executable to start: only a child forked from the template can answer.
            forked.executable = "/nonexistent/microapp"
            for library in ["\(Paths.runnerDirectory)/libAuth.so", trapping, wrongABI] {
                let copy = try LibraryCopy.make(library).get()
                let fromTemplate = forked.examination(of: copy)
                let fromProcess = started.examination(of: copy)
                #expect(fromTemplate.verdict == fromProcess.verdict, "\(library)")
                #expect(fromTemplate.description == fromProcess.description, "\(library)")
            }
            #expect(forked.verdict(for: "\(Paths.runnerDirectory)/libAuth.so") == .usable)
            #expect(forked.verdict(for: trapping).blockedCode == .probeCrashed)
            #expect(forked.verdict(for: wrongABI) == .refused(try #require(PluginLoader.load(wrongABI).failure)))
            var quick = forked
            quick.timeout = .milliseconds(700)
            #expect(quick.verdict(for: hanging).blockedCode == .probeHung)
        }
    }
}

extension PluginProbe.Verdict {
    /// The diagnostic code of a blocked verdict; nil for the others.
    var blockedCode: Problem.Code? {
        if case .blocked(let problem) = self { return problem.code }
        return nil
    }
}
