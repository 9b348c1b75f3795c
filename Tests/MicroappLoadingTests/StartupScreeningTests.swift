import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import TestPlugins
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Start-up screening (probes, hashes, dlopen) runs off the main actor")
@MainActor
struct StartupScreeningTests {
    @Test("the main actor lets a start-up probe finish that waits for it")
    func mainActorRunsWhileProbing() async throws {
        let folder = "\(Paths.fixtures)/screening-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let started = "\(folder)/started"
        let release = "\(folder)/release"
        #expect(mkfifo(release, 0o600) == 0)
        // Held open for reading and writing (never blocks on Linux), so neither the probe's open nor the release
        // below waits for the other end, whoever comes first.
        let releaseEnd = open(release, O_RDWR)
        #expect(releaseEnd >= 0)
        defer { close(releaseEnd) }
        // A probe that says it started, then waits until someone writes to the FIFO, then finds the library ok.
        let probe = "\(folder)/probe"
        try """
        #!/bin/sh
        : > '\(started)'
        read line < '\(release)'
        echo '{"file":"probed","verdict":"ok"}'
        """.write(toFile: probe, atomically: true, encoding: .utf8)
        #expect(chmod(probe, 0o755) == 0)
        let screening = PluginScreening(
            probe: PluginProbe(executable: probe, environment: .process, timeout: .seconds(30)),
            cache: ProbeCache(file: "\(folder)/cache.json"))
        let library = "\(Paths.runnerDirectory)/libAuth.so"
        let loading = Task { @MainActor in await PluginSet.loadOffActor([library], screening: screening) }
        // The probe process has started (a generous limit; had the load held the main actor, this loop would only
        // run once the probe had timed out).
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: started), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        // A job of the main actor's lets the probe finish.
        #expect(write(releaseEnd, "go\n", 3) == 3)
        let (report, after) = await loading.value
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.images.map(\.manifest.id) == ["auth"])
        #expect(after?.probed == 1)
    }
}
