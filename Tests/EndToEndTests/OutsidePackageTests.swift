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
        #expect(built.tests.output.contains("Test run with 3 tests"), "\(built.tests.output.suffix(2000))")

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
}

/// `microapp sdk` and the refusals of `new --package`, without building anything.
@Suite("End to end: microapp sdk")
struct SDKCommandTests {
    @Test(
        "sdk prints the SDK's folder and exits 1 until --install writes it there; then it is current and installing again writes nothing"
    )
    func installOnce() async throws {
        let folder = try temporaryFolder("microapp-sdk").appendingPathComponent("sdk-1")
        let environment = ["MICROAPP_SDK": folder.path]
        let missing = try await runToEnd(["sdk"], environment: environment)
        #expect(missing.status == 1)
        #expect(missing.out == folder.path + "\n")
        #expect(missing.err.contains("is not installed there") && missing.err.contains("microapp sdk --install"))

        let install = try await runToEnd(["sdk", "--install"], environment: environment)
        #expect(install.status == 0, "\(install.err)")
        #expect(install.err.contains("wrote SDK"))
        // A link to a folder named by the digest of what it holds: replacing it is one rename.
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: folder.path)
        #expect(target.hasPrefix("1."), "\(target)")
        let manifest = "\(folder.path)/MicroappSDK/Package.swift"
        #expect(
            FileManager.default.contents(atPath: manifest)
                == FileManager.default.contents(
                    atPath: Repository.root.appendingPathComponent("Sources/MicroappSDK/Package.swift").path))

        let again = try await runToEnd(["sdk", "--install"], environment: environment)
        #expect(again.status == 0)
        #expect(again.err.contains("is current"), "\(again.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path) == target)
        let current = try await runToEnd(["sdk"], environment: environment)
        #expect(current.status == 0, "\(current.err)")
    }

    @Test("sdk --install refuses a folder it did not write, and leaves it as it was")
    func refusesAFolderOfSomeoneElse() async throws {
        let folder = try temporaryFolder("microapp-sdk-taken")
        try Data("mine".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let install = try await runToEnd(["sdk", "--install"], environment: ["MICROAPP_SDK": folder.path])
        #expect(install.status == 1)
        #expect(install.err.contains("was not written by `microapp sdk --install`"), "\(install.err)")
        #expect(install.err.contains("to fix:"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["notes.txt"])
    }

    @Test(
        "new --package's Next lines start microapp as they are printed: with no microapp on PATH, by the running executable's absolute path, and say once how to put it on PATH"
    )
    func nextLinesWorkAsPrinted() async throws {
        let folder = try temporaryFolder("microapp-package-next").appendingPathComponent("Greeter")
        let sdk = try temporaryFolder("microapp-sdk-next").appendingPathComponent("sdk")
        // As after following the README: `swift run microapp`, nothing installed on PATH.
        let result = try await runToEnd(
            ["new", "Greeter", "--package", folder.path],
            environment: ["MICROAPP_SDK": sdk.path, "PATH": "/usr/local/bin:/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.err)")
        let next = result.out.components(separatedBy: "\n").drop { !$0.hasPrefix("Next, in") }.dropFirst()
        let commands = next.map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty && !$0.hasPrefix("swift ") && !$0.hasPrefix("(")
        }
        #expect(commands.count == 3, "\(result.out)")
        let executable = URL(fileURLWithPath: AppProcess.executable).resolvingSymlinksInPath().path
        for command in commands {
            let program = String(command.prefix { $0 != " " })
            #expect(program == executable, "a command that runs as printed: \(command)")
            #expect(FileManager.default.isExecutableFile(atPath: program))
        }
        let folderOfExecutable = (executable as NSString).deletingLastPathComponent
        #expect(result.out.contains("export PATH=\"\(folderOfExecutable):$PATH\""), "\(result.out)")

        // With this microapp on PATH, the lines say `microapp`.
        let bin = try temporaryFolder("microapp-on-path")
        try FileManager.default.createSymbolicLink(
            atPath: bin.appendingPathComponent("microapp").path, withDestinationPath: executable)
        let again = try await runToEnd(
            ["new", "Greeter", "--package", folder.path + "2"],
            environment: ["MICROAPP_SDK": sdk.path, "PATH": bin.path + ":/usr/bin:/bin"])
        #expect(again.status == 0, "\(again.err)")
        #expect(again.out.contains("\n  microapp solo Greeter --plugins .build/debug --watch"), "\(again.out)")
        #expect(!again.out.contains("export PATH"), "\(again.out)")
    }

    @Test("new --package refuses a folder that is not empty, and writes nothing there")
    func newRefusesAFullFolder() async throws {
        let folder = try temporaryFolder("microapp-package-full")
        try Data().write(to: folder.appendingPathComponent("README.md"))
        let sdk = try temporaryFolder("microapp-sdk-new").appendingPathComponent("sdk")
        let result = try await runToEnd(
            ["new", "Greeter", "--package", folder.path], environment: ["MICROAPP_SDK": sdk.path])
        #expect(result.status == 1)
        #expect(result.err.contains("is not empty"), "\(result.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["README.md"])
    }
}
