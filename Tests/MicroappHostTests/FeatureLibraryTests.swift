import Foundation
import MicroappCore
import MicroappHost
import MicroappPlatform
import Testing

@Suite("One feature's library for solo and preview, found by file name or by feature id on one path")
@MainActor
struct FeatureLibraryTests {
    @Test("a library named as asked loads in this process without --mock, its feature registered")
    func byFileName() async throws {
        let folder = try Runner.folder(["Search", "Settings"])
        let request = FeatureRequest(name: "search", locations: Runner.installed(in: folder), environment: .process)
        let library = try await FeatureLibrary.load(request).get()
        #expect(library.plugin.manifest.id == "search")
        #expect(library.plugin.path == "\(folder)/libSearch.so")
        #expect(library.feature != nil)
        #expect(library.placement.running == .inProcess)
        // Beside an installed host without a lock: decided for a process, loaded here all the same for preview.
        #expect(library.placement.decision == IsolationDecision(.process, reason: "not pinned by a plugins.lock"))
        #expect(library.others == ["settings": "Settings"])
    }

    @Test("a name that is no file's is looked up by feature id among the libraries loaded here")
    func byFeatureID() async throws {
        let folder = try Runner.folder(["Search", "Settings"], renamed: ["Search": "Finder"])
        var request = FeatureRequest(name: "search", locations: Runner.installed(in: folder), environment: .process)
        request.isolation = .inProcess
        let library = try await FeatureLibrary.load(request).get()
        #expect(library.plugin.manifest.id == "search")
        #expect(library.plugin.path == "\(folder)/libFinder.so")
        #expect(library.placement.decision == IsolationDecision(.inProcess, reason: "--isolation none"))
    }

    @Test("a library named as asked that does not load is the answer, not a search among the others")
    func byFileNameFailureIsFinal() async throws {
        let folder = try Runner.folder(["Settings"])
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: "\(folder)/libSearch.so"))
        let request = FeatureRequest(name: "Search", locations: Runner.installed(in: folder), environment: .process)
        guard case .failure(let problem) = try await FeatureLibrary.load(request) else {
            Issue.record("a file that is not a library loaded")
            return
        }
        #expect(problem.subject == "\(folder)/libSearch.so")
    }

    @Test("a name no library has is a usage problem listing what was loaded")
    func unknownName() async throws {
        let folder = try Runner.folder(["Settings"])
        let request = FeatureRequest(name: "nope", locations: Runner.installed(in: folder), environment: .process)
        do {
            _ = try await FeatureLibrary.load(request)
            Issue.record("an unknown name was found")
        } catch {
            #expect(error.code == "usage")
            #expect(error.reason == "no feature is called 'nope'")
            #expect(error.fix.contains("settings (Settings)"))
        }
    }
}
