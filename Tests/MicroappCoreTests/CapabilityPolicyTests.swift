import MicroappCore
import MicroappSDK
import TestScratch
import Testing

@Suite("Capabilities: declared in the manifest, allowed by a policy")
struct CapabilityPolicyTests {
    static func manifest(_ id: String, _ capabilities: [Capability]) -> FeatureManifest {
        FeatureManifest(
            id: id, version: 1, displayName: id, routes: [RouteDeclaration("\(id)://home")], capabilities: capabilities)
    }

    @Test("a feature declaring only what the policy allows is neither refused nor warned about", .offThePool)
    func allowedPasses() {
        let review = CapabilityPolicy(strict: true).review([
            Self.manifest("notes", [.scratchFiles]), Self.manifest("plain", []),
        ])
        #expect(review == CapabilityPolicy.Review())
    }

    @Test(
        "under --strict, a feature declaring network without --allow network is refused, naming it and the option",
        .offThePool)
    func strictRefusesBeyondPolicy() throws {
        let review = CapabilityPolicy(strict: true).review([Self.manifest("weather", [.network, .scratchFiles])])
        let problem = try #require(review.refused["weather"])
        #expect(problem.code == .capabilityNotAllowed)
        #expect(problem.reason.contains("'network'") && problem.reason.contains("allows only 'files:scratch'"))
        #expect(problem.fix.contains("--allow network"))
        #expect(review.warnings.isEmpty)
    }

    @Test("--allow network lets the same feature run under --strict", .offThePool)
    func allowedByOption() {
        let review = CapabilityPolicy(allowed: [.network, .scratchFiles], strict: true).review([
            Self.manifest("weather", [.network])
        ])
        #expect(review.refused.isEmpty)
    }

    @Test(
        "without --strict, a capability beyond the policy is withheld from a sandboxed feature and the warning says so; in-process it says the feature has it anyway",
        .offThePool)
    func lenientWarns() throws {
        let review = CapabilityPolicy().review(
            [Self.manifest("weather", [.network]), Self.manifest("radio", [.network])], sandboxed: ["radio"])
        #expect(review.refused.isEmpty)
        let weather = try #require(review.warnings.first { $0.subject == "weather" })
        #expect(weather.reason.contains("it has it anyway: it runs in the app's process"))
        let radio = try #require(review.warnings.first { $0.subject == "radio" })
        #expect(radio.reason.contains("not granted: it runs in its sandbox without it"))
        #expect(radio.fix.contains("--allow network"))
    }

    @Test("an unknown capability is refused by name even when the policy is lenient", .offThePool)
    func unknownRefused() throws {
        let review = CapabilityPolicy().review([Self.manifest("spy", [Capability(rawValue: "camera")])])
        let problem = try #require(review.refused["spy"])
        #expect(problem.code == .unknownCapability)
        #expect(problem.reason.contains("'camera'") && problem.reason.contains("network, files:scratch"))
    }
}
