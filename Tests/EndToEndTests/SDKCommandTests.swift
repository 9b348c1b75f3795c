import Foundation
import TestScratch
import Testing

/// `microapp sdk` and the refusals of `new --package`, without building anything.
@Suite("End to end: microapp sdk", .promptResumes)
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
        // Each command is indented by two spaces, what it does under it by six.
        let commands = next.filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.hasPrefix("swift ") }
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
