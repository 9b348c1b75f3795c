import Foundation
import TestScratch
import Testing

/// A feature in a package of its own, outside this repository, as a team outside it would make it: `microapp new
/// Greeter --package DIR` in a scratch folder, `swift build` and `swift test` there against the SDK `new` installed,
/// then the real `microapp` with `--plugins` on what that build made. SLOW: the package's clean build compiles the SDK,
/// the feature and its tests (about a minute on a loaded two-core machine); it is made once per test process and shared.
@Suite("End to end: a feature in a package of its own", .serialized)
struct OutsidePackageTests {
    /// The package, its build folder and what its own `swift test` said; made once per test process.
    struct Built: Sendable {
        /// The package's folder (its Package.swift).
        let package: URL
        /// `<scratch path>/debug`: where `lib Greeter.so` is.
        let plugins: URL
        /// `new --package`'s output.
        let created: String
        /// `swift test`'s exit status and output in the package.
        let tests: (status: Int32, output: String)
        /// How long the clean `swift build` took.
        let buildTime: Duration
    }

    /// The package, built the first time a test asks (shared through `SharedBuilds`).
    static func built() async throws -> Built {
        try await SharedBuilds.shared.value(of: "outside-package-greeter") { try await build() }
    }

    private static func build() async throws -> Built {
        let folder = try temporaryFolder("microapp-outside").resolvingSymlinksInPath()
        let package = folder.appendingPathComponent("Greeter")
        let created = try await runToEnd(["new", "Greeter", "--package", package.path], in: folder)
        guard created.status == 0 else { throw AppProcessError("new --package failed: \(created.err)") }
        // Its own scratch path, and no entry in the user's shared manifest cache for a folder deleted at exit.
        let options = ["--scratch-path", folder.appendingPathComponent("build").path, "--manifest-cache", "none"]
        let started = ContinuousClock.now
        let (status, output) = try await SwiftPM.run(["build"] + options, in: package, timeout: .seconds(900))
        guard status == 0 else {
            throw AppProcessError(
                "`swift build` in the package failed (exit \(status)):\n"
                    + output.split(separator: "\n").suffix(40).joined(separator: "\n"))
        }
        let buildTime = ContinuousClock.now - started
        let tests = try await SwiftPM.run(["test"] + options, in: package, timeout: .seconds(900))
        return Built(
            package: package, plugins: folder.appendingPathComponent("build/debug"), created: created.out + created.err,
            tests: tests, buildTime: buildTime)
    }

    @Test(
        "new --package writes a package whose manifest finds the SDK new installed, and whose swift build makes libGreeter.so and swift test passes"
    )
    func packageBuildsAndTests() async throws {
        let built = try await Self.built()
        print("outside package: clean swift build in \(built.buildTime)")
        let manifest = try String(contentsOf: built.package.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".library(name: "Greeter", type: .dynamic, targets: ["GreeterPlugin"])"#))
        #expect(!manifest.contains("DemoContracts"))
        #expect(!manifest.contains(Repository.root.path), "the package must not name this repository")
        #expect(FileManager.default.fileExists(atPath: built.plugins.appendingPathComponent("libGreeter.so").path))
        #expect(
            built.tests.status == 0, "\(built.tests.output.split(separator: "\n").suffix(30).joined(separator: "\n"))")
        // The scaffold's four: the greeting, the name kept across a hot swap, the service it provides, the error state.
        #expect(built.tests.output.contains("Test run with 4 tests"), "\(built.tests.output.suffix(2000))")

        // The SDK is where `microapp sdk` says, and is the one this host was built with.
        let sdk = try await runToEnd(["sdk"])
        #expect(sdk.status == 0, "\(sdk.err)")
        let location = sdk.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(built.created.contains("against SDK") && built.created.contains(location))
        for package in ["MicroappSDK", "MicroappTesting"] {
            #expect(FileManager.default.fileExists(atPath: "\(location)/\(package)/Package.swift"))
        }
        let installed = try Data(contentsOf: URL(fileURLWithPath: "\(location)/MicroappSDK/Swift/Feature.swift"))
        let source = try Data(
            contentsOf: Repository.root.appendingPathComponent("Sources/MicroappSDK/Swift/Feature.swift"))
        #expect(installed == source)
    }

    @Test(
        "the host runs the package's library from --plugins: its screen draws in the app, and preview draws its golden files"
    )
    func hostRunsThePackage() async throws {
        let built = try await Self.built()
        let app = try AppProcess(
            ["run", "--ui", "json", "--plugins", built.plugins.path, "--open", "greeter://home", "--no-probe"])
        let home = try await app.waitForFrame(route: "greeter://home") { screenText($0).contains("Welcome, World!") }
        #expect(home["feature"] as? String == "greeter")
        #expect(try await app.finish() == 0)

        let drawn = try temporaryFolder("microapp-greeter-previews")
        let preview = try await runToEnd(
            ["preview", "Greeter", "--output", drawn.path, "--plugins", built.plugins.path, "--no-build"])
        #expect(preview.status == 0, "\(preview.err)")
        #expect(
            try PreviewGoldenTests.textFiles(in: drawn)
                == PreviewGoldenTests.textFiles(in: built.package.appendingPathComponent("Previews")))
    }

    @Test("solo --watch on the package's library: a save in the package rebuilds that feature and swaps it in")
    func watchRebuildsThePackage() async throws {
        let built = try await Self.built()
        let app = try AppProcess(["solo", "Greeter", "--watch", "--ui", "json", "--plugins", built.plugins.path])
        try await app.waitForFrame(route: "greeter://home") { screenText($0).contains("Hello, World!") }
        let watching = try await app.waitFor("notice") { $0["code"] as? String == "watching" }
        let sources = built.package.appendingPathComponent("Sources/Greeter").path
        #expect((watching["detail"] as? [String])?.contains(sources) == true, "\(watching)")

        let file = built.package.appendingPathComponent("Sources/Greeter/GreeterViewModel.swift")
        let original = try String(contentsOf: file, encoding: .utf8)
        try #require(original.contains(#""Greet")"#), "the edited string moved; update this test")
        let mark = app.mark
        try original.replacingOccurrences(of: #""Greet")"#, with: #""Greet me")"#).write(
            to: file, atomically: true, encoding: .utf8)
        let built2 = try await app.waitFor("notice", since: mark, timeout: .seconds(300)) {
            ["built", "build-failed"].contains($0["code"] as? String)
        }
        #expect(built2["code"] as? String == "built", "\(built2)")
        try await app.waitFor("notice", since: mark) { $0["code"] as? String == "swapped" }
        let swapped = try await app.waitFor("frame", since: mark) { screenText($0).contains("Greet me") }
        #expect(swapped["version"] as? Int == 2)
        #expect(try await app.finish() == 0)
    }

    @Test(
        "a release made in the package goes through a channel into an installed app, which runs the new version without being rebuilt"
    )
    func releaseReachesAnInstalledApp() async throws {
        let built = try await Self.built()
        let work = try temporaryFolder("outside-release").resolvingSymlinksInPath()
        let home = work.appendingPathComponent("home").path
        let person = [
            "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state",
            "XDG_CACHE_HOME": home + "/cache", "XDG_DATA_HOME": home + "/data",
        ]
        // The person's app, installed from this test build; its team copied Greeter v1 in and locked the folder.
        let prefix = work.appendingPathComponent("app").path
        let installed = try await runToEnd(["install", "--prefix", prefix, "-c", "debug"], environment: person)
        #expect(installed.status == 0, "\(installed.err)")
        let app = prefix + "/bin/microapp"
        try FileManager.default.copyItem(
            atPath: built.plugins.appendingPathComponent("libGreeter.so").path,
            toPath: prefix + "/plugins/libGreeter.so")
        let locked = try await runToEnd(["lock", prefix + "/plugins"], executable: app, environment: person)
        #expect(locked.status == 0, "\(locked.err)")

        // The team raises the version in (a copy of) its package, releases it in release, signs and publishes it.
        let package = work.appendingPathComponent("Greeter")
        try FileManager.default.copyItem(at: built.package, to: package)
        try? FileManager.default.removeItem(at: package.appendingPathComponent(".build"))
        var raised = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: package.path + "/Sources/Greeter") {
            let file = package.appendingPathComponent("Sources/Greeter/" + name)
            let text = try String(contentsOf: file, encoding: .utf8)
            let next = text.replacingOccurrences(of: #"id: "greeter", version: 1"#, with: #"id: "greeter", version: 2"#)
                .replacingOccurrences(of: #"let title = "Greeter""#, with: #"let title = "Greeter, second edition""#)
            if next != text {
                raised += 1
                try next.write(to: file, atomically: true, encoding: .utf8)
            }
        }
        try #require(raised > 0, "the template's manifest or title moved; update this test")
        // The team's key and records are its own; its data folder stays the one `new` installed the SDK in, which
        // the package's manifest finds.
        let team = ["XDG_CONFIG_HOME": work.path + "/team/config", "XDG_STATE_HOME": work.path + "/team/state"]
        let key = try await runToEnd(["keygen", "--name", "team"], environment: team)
        #expect(key.status == 0, "\(key.err)")
        let publicKey = key.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            try await runToEnd(["trust", publicKey, "--name", "team", "--feature", "greeter"], environment: team).status
                == 0)
        let release = work.appendingPathComponent("greeter-2").path
        let released = try await runToEnd(["release", "-o", release], in: package, environment: team)
        #expect(released.status == 0, "\(released.err)")
        #expect(released.out.contains("released greeter v2"), "\(released.out)")
        let channel = work.appendingPathComponent("channel").path
        let published = try await runToEnd(["publish", release, "--channel", channel], environment: team)
        #expect(published.status == 0, "\(published.err)")

        // The person trusts the team's key, with the installed app.
        let trusted = try await runToEnd(
            ["trust", publicKey, "--name", "team", "--feature", "greeter"], executable: app, environment: person)
        #expect(trusted.status == 0, "\(trusted.err)")

        // The installed app takes it from the channel, and its next start draws the new version.
        let updated = try await runToEnd(["update", "--channel", channel], executable: app, environment: person)
        #expect(updated.status == 0, "\(updated.err)")
        #expect(updated.out.contains("installed greeter 1 → 2"), "\(updated.out)")
        let versions = try await runToEnd(["versions", "Greeter"], executable: app, environment: person)
        #expect(versions.out.contains("* 2"), "\(versions.out)")
        let running = try AppProcess(
            ["-i", "--chdir=\(work.path)"] + person.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                + [app, "--ui", "json", "--open", "greeter://home"],
            executable: "/usr/bin/env")
        let frame = try await running.waitForFrame(route: "greeter://home") {
            screenText($0).contains("Greeter, second edition")
        }
        #expect(frame["version"] as? Int == 2, "\(frame)")
        #expect(try await running.finish() == 0)
    }
}
