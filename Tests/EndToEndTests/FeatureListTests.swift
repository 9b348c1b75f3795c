import Foundation
import TestScratch
import Testing

/// A repository laid out as this one, as a person has it: a Package.swift whose feature list names `listed`, a folder
/// in Plugins/ (Sources, Entry, Tests) for each of `folders`, and in `.build/debug` a copy of `microapp` beside the
/// SDK and the libraries a build left there.
private struct PersonsRepository {
    let root: URL
    let buildFolder: URL
    var executable: String { buildFolder.appendingPathComponent("microapp").path }

    /// `libraries`: each library to put in the build folder, by the name it gets there.
    init(listed: [String], folders: [String], libraries: [String: URL]) throws {
        root = try temporaryFolder("microapp-persons-repository")
        buildFolder = root.appendingPathComponent(".build/debug")
        let files = FileManager.default
        try NewCommandTests.manifest(listing: listed).write(
            to: root.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for folder in folders {
            for part in ["Sources", "Entry", "Tests"] {
                try files.createDirectory(
                    at: root.appendingPathComponent("Plugins/\(folder)/\(part)"), withIntermediateDirectories: true)
            }
        }
        try files.createDirectory(at: buildFolder, withIntermediateDirectories: true)
        // A copy, not a link: the host finds its repository from the path of its own executable.
        try copyExecutable(AppProcess.executable, to: executable)
        try files.copyItem(
            at: AppProcess.buildDirectory.appendingPathComponent("libMicroappSDK.so"),
            to: buildFolder.appendingPathComponent("libMicroappSDK.so"))
        for (name, library) in libraries {
            try files.copyItem(at: library, to: buildFolder.appendingPathComponent(name))
        }
    }

    /// The demo's own libraries, from beside the test runner.
    static var demoLibraries: [String: URL] {
        Dictionary(
            uniqueKeysWithValues: Scratch.demoFeatures.map {
                ("lib\($0).so", AppProcess.buildDirectory.appendingPathComponent("lib\($0).so"))
            })
    }

    /// Runs its `microapp` with `arguments` in the repository, as tests run it (`environment` over the scratch one).
    func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
    ) async throws -> (status: Int32, out: String, err: String) {
        try await runToEnd(arguments, executable: executable, in: root, input: input, environment: environment)
    }
}

/// JSON objects, one a line.
private func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

@Suite("End to end: the features a repository declares", .promptResumes)
struct FeatureListTests {
    @Test(
        "a feature a person added and built (listed, its folder there, its library in the build folder) does not reach the host's tests: the demo's three tabs, doctor's four libraries"
    )
    func testsSeeOnlyTheDemo() async throws {
        // `microapp new Gazorpazorp`, then a build: its library, with a tab of its own, beside the host.
        let scaffold = try await NewCommandTests.sharedScaffold()
        var libraries = PersonsRepository.demoLibraries
        libraries["lib\(NewCommandTests.name).so"] = scaffold.plugins.appendingPathComponent(
            "lib\(NewCommandTests.name).so")
        let features = Scratch.demoFeatures + [NewCommandTests.name]
        let repository = try PersonsRepository(listed: features, folders: features, libraries: libraries)

        let data = Scratch.folder("microapp-persons-data")
        let signIn = [
            ["type": "open", "url": "auth://sign-in"], ["type": "input", "id": "email", "text": "rick@example.com"],
            ["type": "input", "id": "password", "text": "portal-gun"], ["type": "tap", "id": "submit"],
        ]
        let input =
            try signIn.map {
                String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self)
            }.joined(separator: "\n") + "\n"
        let run = try await repository.run(
            ["run", "--ui", "json", "--no-build", "--no-probe", "--no-supervise", "--data", data.path], input: input)
        #expect(run.status == 0, "\(run.err)")
        let lines = jsonLines(run.out)
        let tabs = try #require(lines.last { ($0["tabs"] as? [Any])?.isEmpty == false }?["tabs"] as? [[String: Any]])
        #expect(tabs.compactMap { $0["id"] as? String } == ["tab.characters", "tab.search", "tab.settings"])
        #expect(!lines.contains { $0["type"] as? String == "error" }, "\(run.out)")

        let doctor = try await repository.run(["doctor", "--json", "--no-build", "--no-probe"])
        #expect(doctor.status == 0, "\(doctor.out)\n\(doctor.err)")
        #expect(
            Set(jsonLines(doctor.out).compactMap { $0["feature"] as? String })
                == Set(["auth", "characters", "search", "settings"]))
        #expect(!doctor.err.contains(NewCommandTests.name), "\(doctor.err)")
    }

    @Test(
        "a listed feature whose folder is gone and a folder the list does not name: doctor names both (what, why, fix), exit 2; run builds nothing, says why, and runs what was built"
    )
    func listAndFoldersDisagree() async throws {
        // Gone was deleted with rm -rf; Extra was copied in without its line.
        let repository = try PersonsRepository(
            listed: ["Auth", "Gone"], folders: ["Auth", "Extra"],
            libraries: ["libAuth.so": AppProcess.buildDirectory.appendingPathComponent("libAuth.so")])
        let seen = ["MICROAPP_TEST_FEATURES": "Auth,Gone,Extra"]

        let doctor = try await repository.run(["doctor", "--no-build", "--no-probe"], environment: seen)
        #expect(doctor.status == 2, "\(doctor.out)\n\(doctor.err)")
        #expect(
            doctor.err.contains(
                "Plugins/Gone: Package.swift lists the feature Gone, but its folder is missing: SwiftPM stops every build"
            ),
            "\(doctor.err)")
        #expect(doctor.err.contains("to fix: `swift run microapp remove Gone` takes it out of the list"))
        #expect(doctor.err.contains("Plugins/Extra: the folder is not in Package.swift's feature list"))
        #expect(doctor.err.contains(#"to fix: add the line "Extra", to Package.swift"#))

        // Without --no-build the start-up build would run SwiftPM, which stops at `invalid custom path`: it does not.
        let data = Scratch.folder("microapp-persons-data")
        let run = try await repository.run(
            ["run", "--ui", "json", "--no-probe", "--no-supervise", "--data", data.path], environment: seen)
        #expect(run.status == 0, "\(run.err)")
        let missing = jsonLines(run.out).first { $0["code"] as? String == "feature-folder-missing" }
        #expect((missing?["message"] as? String)?.contains("no plugin was built: Plugins/Gone") == true, "\(run.out)")
        #expect(jsonLines(run.out).contains { $0["feature"] as? String == "auth" }, "Auth, built before, runs")
        #expect(!run.err.contains("building plugin libraries"), "no SwiftPM build started: \(run.err)")
        #expect(!run.err.contains("for target 'Gone'"), "SwiftPM's own error: \(run.err)")
    }
}
