import Foundation
import MicroappCore
import MicroappPlatform
import MicroappSDK
import TestPlugins
import Testing

/// Real libraries whose manifests break the contract with the host beyond names: the resolver refuses them from
/// their manifests, before any of their code runs.
@Suite("Loading plugins that break the state and shape contract")
@MainActor
struct ContractRefusalTests {
    typealias M = Manifests

    @Test("a library reading host state with another shape is refused, naming both shapes; the real plugins start")
    func shapeMismatch() async throws {
        let requirement = M.requirement("host.counter", type: "Int", kind: .state, shape: #"{"count":Int}"#)
        let path = try await fixture { try Manifests.plugin("shaped", requirements: [requirement]) }
        let (report, resolution) = await Host.loadAndResolve([path] + Paths.realPlugins)
        #expect(report.problems.isEmpty, "every library loads: \(report.problems)")
        let problem = try #require(resolution.problems.only)
        #expect(problem.code == .wrongShape)
        expectMentions(
            problem, reason: [#"shaped needs host.counter (state) with shape {"count":Int}; host offers shape Int"#],
            fix: ["rebuild shaped against the contracts host was built with"])
        Host.expectRealPluginsUnaffected(report, resolution)
    }

    @Test("a library claiming the session read-write beside the real Auth disables both, each naming the other")
    func secondSessionOwner() async throws {
        let session = DependencyKey<Session?>.session(access: .readWrite).requirement
        let claim = M.requirement("session", type: session.type, kind: .state, access: .readWrite, shape: session.shape)
        let path = try await fixture { try Manifests.plugin("mallory", requirements: [claim]) }
        let (report, resolution) = await Host.loadAndResolve(Paths.realPlugins + [path])
        #expect(report.problems.isEmpty, "every library loads: \(report.problems)")
        let auth = try #require(resolution.disabled["auth"])
        let mallory = try #require(resolution.disabled["mallory"])
        #expect(auth.code == .secondOwner && mallory.code == .secondOwner)
        expectMentions(auth, reason: ["auth claims session read-write, and so does mallory"])
        expectMentions(mallory, reason: ["mallory claims session read-write, and so does auth"])
        #expect(!resolution.startOrder.contains("auth") && !resolution.startOrder.contains("mallory"))
        #expect(resolution.startOrder.contains("settings"), "features that only read the session are unaffected")
    }
}
