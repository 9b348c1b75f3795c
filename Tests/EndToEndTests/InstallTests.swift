import Foundation
import MicroappPlatform
import TestScratch
import Testing

/// What a person's machine without the checkout looks like to a process: `env -i` (no PATH, no LD_LIBRARY_PATH, no
/// variable of the test run), started in `folder`, with a home and XDG folders of its own.
private func bareEnvironment(in folder: URL, home: URL) -> [String] {
    [
        "-i", "--chdir=\(folder.path)", "HOME=\(home.path)", "XDG_DATA_HOME=\(home.path)/data",
        "XDG_CACHE_HOME=\(home.path)/cache", "XDG_STATE_HOME=\(home.path)/state", "XDG_CONFIG_HOME=\(home.path)/config",
    ]
}

/// The folder this test runner maps the Swift runtime from: the toolchain's, which an installed app must not use.
private func toolchainRuntimeFolder() -> String? {
    procText("/proc/self/maps").split(separator: "\n").lazy
        .compactMap { line in line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init) }
        .first { $0.hasSuffix("/libswiftCore.so") }
        .map { ($0 as NSString).deletingLastPathComponent }
}

@Suite(
    "End to end: microapp install lays out an app that runs without the checkout and the toolchain", .serialized,
    .promptResumes)
struct InstallTests {
    @Test(
        "the installed app, started under env -i from an unrelated folder, draws its first frame and maps the Swift runtime from its prefix"
    )
    func installedAppRunsAlone() async throws {
        let prefix = try temporaryFolder("install").appendingPathComponent("app").path
        let installed = try await runToEnd(["install", "--prefix", prefix, "--configuration", "debug"])
        #expect(installed.status == 0, "\(installed.err)")
        #expect(installed.out.contains("installed microapp (debug) in \(prefix)"), "\(installed.out)")
        #expect(installed.out.contains("start it: \(prefix)/bin/microapp"), "\(installed.out)")
        #expect(installed.err.contains("lib/libswiftCore.so"), "progress names each file copied: \(installed.err)")
        for file in ["bin/microapp", "lib/libswiftCore.so", "lib/libMicroappSDK.so", "plugins/libAuth.so"] {
            #expect(FileManager.default.fileExists(atPath: "\(prefix)/\(file)"), "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/plugins/plugins.lock"))
        #expect(try ELFDynamicSection.read("\(prefix)/bin/microapp").get().runpath == "$ORIGIN/../lib")

        let elsewhere = try temporaryFolder("unrelated")
        let home = try temporaryFolder("install-home")
        let app = try AppProcess(
            bareEnvironment(in: elsewhere, home: home) + ["\(prefix)/bin/microapp", "--ui", "json"],
            executable: "/usr/bin/env")
        let frame = try await app.waitForFrame(route: "auth://select")
        #expect((frame["origin"] as? [String: Any])?["library"] as? String == "\(prefix)/plugins/libAuth.so")
        let maps = procText("/proc/\(app.processID)/maps")
        #expect(maps.contains("\(prefix)/lib/libswiftCore.so"), "the runtime comes from the prefix")
        let toolchain = try #require(toolchainRuntimeFolder())
        #expect(!maps.contains(toolchain + "/"), "nothing is mapped from the toolchain's \(toolchain)")
        #expect(try await app.finish() == 0)
        // Its data went to the person's XDG data folder, not beside the install.
        #expect(FileManager.default.fileExists(atPath: home.path + "/data/microapp/microapp.sqlite3"))
    }

    @Test("installing again over an earlier install replaces it whole, and the new one runs")
    func reinstallReplacesEarlierInstall() async throws {
        let prefix = try temporaryFolder("reinstall").appendingPathComponent("app").path
        let first = try await runToEnd(["install", "--prefix", prefix, "-c", "debug"])
        #expect(first.status == 0, "\(first.err)")
        let stray = prefix + "/plugins/libStray.so"
        #expect(FileManager.default.createFile(atPath: stray, contents: Data("not a library".utf8)))
        let second = try await runToEnd(["install", "--prefix", prefix, "-c", "debug"])
        #expect(second.status == 0, "\(second.err)")
        #expect(!FileManager.default.fileExists(atPath: stray), "the earlier install's files are gone")
        let routes = try await runToEnd(["routes"], executable: prefix + "/bin/microapp")
        #expect(routes.status == 0, "\(routes.err)")
        #expect(routes.out.contains("characters://list"), "\(routes.out)")
        // Nothing of the staging folder is left beside the prefix.
        let parent = (prefix as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["app"])
    }

    @Test(
        "a prefix inside the checkout's .build, a folder of someone's files, or a file is refused, and left as it was")
    func badPrefixesAreRefused() async throws {
        let build = AppProcess.buildDirectory.appendingPathComponent("installed-here").path
        let inside = try await runToEnd(["install", "--prefix", build, "-c", "debug"])
        #expect(inside.status == 1)
        #expect(inside.err.contains("inside the checkout's build folder"), "\(inside.err)")
        #expect(!FileManager.default.fileExists(atPath: build))

        let folder = try temporaryFolder("someones-folder")
        let note = folder.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: note)
        let taken = try await runToEnd(["install", "--prefix", folder.path, "-c", "debug"])
        #expect(taken.status == 1)
        #expect(taken.err.contains("the folder exists and is not an earlier install"), "\(taken.err)")
        #expect(taken.err.contains("to fix: choose a new or empty folder"), "\(taken.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
        #expect(try Data(contentsOf: note) == Data("mine".utf8))

        let file = try await runToEnd(["install", "--prefix", note.path, "-c", "debug"])
        #expect(file.status == 1)
        #expect(file.err.contains("it is a file, not a folder"), "\(file.err)")
    }

    @Test(
        "without a build of the configuration asked for, install builds the host alone first (its --product, not the whole package); a build that fails stops it with nothing at the prefix"
    )
    func missingBuildIsBuilt() async throws {
        // A checkout whose .build has a debug build of the host only, and whose Package.swift SwiftPM cannot read.
        let checkout = try temporaryFolder("checkout")
        try Data().write(to: checkout.appendingPathComponent("Package.swift"))
        let debug = checkout.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug")
        try FileManager.default.createDirectory(at: debug, withIntermediateDirectories: true)
        try await copyHost(to: debug)
        let prefix = try temporaryFolder("no-build").appendingPathComponent("app").path
        let result = try await runToEnd(
            ["install", "--prefix", prefix], executable: debug.appendingPathComponent("microapp").path)
        #expect(result.status == 1)
        #expect(
            result.err.contains("microapp: building the host in release: swift build -c release --product microapp"),
            "\(result.err)")
        #expect(result.err.contains("`swift build -c release --product microapp` failed (exit 1)"), "\(result.err)")
        #expect(result.err.contains("Package.swift' is empty"), "SwiftPM's own words are passed on: \(result.err)")
        #expect(!FileManager.default.fileExists(atPath: prefix))
    }
}

@Suite("End to end: microapp bundle packs one feature for a tester without a toolchain", .serialized, .promptResumes)
struct BundleTests {
    @Test(
        "a bundle unpacked in an unrelated folder runs ./Characters under env -i on its mocks, a variant passed through, and says what it holds"
    )
    func bundleRunsFeatureAlone() async throws {
        let out = try temporaryFolder("bundle")
        let archive = out.appendingPathComponent("characters-qa.tar.gz").path
        let bundled = try await runToEnd(["bundle", "characters", "-c", "debug", "-o", archive])
        #expect(bundled.status == 0, "\(bundled.err)")
        #expect(bundled.out.contains("bundled Characters v1 (characters) on microapp"), "\(bundled.out)")
        #expect(bundled.out.contains("MB packed"), "\(bundled.out)")
        // The archive is in another folder than the one bundle ran in: the line names it by its path, and works as
        // pasted in a folder of the tester's.
        let runIt = try #require(bundled.out.split(separator: "\n").first { $0.hasPrefix("run it: ") })
        #expect(runIt.hasPrefix("run it: tar -xzf \(archive) && cd characters-qa && ./Characters  "), "\(runIt)")
        let pasted = runIt.dropFirst("run it: ".count).components(separatedBy: "  (").first ?? ""
        let testers = try temporaryFolder("pasted")
        let ran = try await runToEnd(
            ["-c", pasted.replacingOccurrences(of: "./Characters", with: "test -x ./Characters")],
            executable: "/bin/sh", in: testers)
        #expect(ran.status == 0, "`\(pasted)`: \(ran.err)")

        let unpacked = try temporaryFolder("tester")
        let tar = try await runToEnd(["-xzf", archive, "-C", unpacked.path], executable: "/usr/bin/tar")
        #expect(tar.status == 0, "\(tar.err)")
        let top = unpacked.appendingPathComponent("characters-qa")
        let plugins = try FileManager.default.contentsOfDirectory(atPath: top.path + "/plugins").sorted()
        #expect(plugins == ["libCharacters.so", "plugins.lock"], "the one feature, nothing else")
        let description =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: top.appendingPathComponent("bundle.json"))) as? [String: Any]
        #expect((description?["feature"] as? [String: Any])?["id"] as? String == "characters")
        #expect((description?["host"] as? [String: Any])?["name"] as? String == "microapp")

        let home = try temporaryFolder("tester-home")
        let version = try await runToEnd(
            bareEnvironment(in: top, home: home) + ["./Characters", "--version"], executable: "/usr/bin/env")
        #expect(version.status == 0, "\(version.err)")
        #expect(version.out.hasPrefix("Characters v1 (characters) on microapp 0.1.0"), "\(version.out)")

        let app = try AppProcess(
            bareEnvironment(in: top, home: home) + [
                "./Characters", "--ui", "json", "--mock", "characters.detail=failing",
            ], executable: "/usr/bin/env")
        let list = try await app.waitForFrame(route: "characters://list") { screenText($0).contains("Morty Smith") }
        #expect(list["mode"] as? String == "solo")
        #expect((list["mocks"] as? [String])?.contains("characters.detail=failing") == true)
        #expect(procText("/proc/\(app.processID)/maps").contains(top.path + "/lib/libswiftCore.so"))
        #expect(try await app.finish() == 0)
    }

    @Test("a bundle of a feature the build does not have is refused, naming those it has")
    func unknownFeatureIsRefused() async throws {
        let out = try temporaryFolder("bundle-unknown").appendingPathComponent("qa").path
        let result = try await runToEnd(["bundle", "Profile", "-c", "debug", "-o", out])
        #expect(result.status == 1)
        #expect(result.err.contains("the debug build has no libProfile.so"), "\(result.err)")
        #expect(result.err.contains("name one of: Auth, Characters, Search, Settings"), "\(result.err)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
