import Foundation
import MicroappDigest
import MicroappSDK
import MicroappShipping
import TestScratch
import Testing

/// A key is trusted for named features, never for everything: what a trust entry says, and what a verified index
/// signed by it may offer.
@Suite struct KeyScopeTests {
    @Test(.offThePool) func aTrustEntryNamesAtLeastOneFeatureAndKeepsItsIdsSorted() throws {
        let key = KeyText.text(of: try #require(Ed25519.PrivateKey.generate()).publicKey)
        #expect(TrustList().trusting(key, as: "acme", for: []) == nil)
        let list = try #require(TrustList().trusting(key, as: "acme", for: ["tick", "clock", "tick"]))
        #expect(list.features == ["acme": ["clock", "tick"]])
        #expect(list.removing("acme") == TrustList())
    }

    @Test(.offThePool) func aListWrittenBeforeScopesIsReadAndItsKeysSignNothing() throws {
        let key = KeyText.text(of: try #require(Ed25519.PrivateKey.generate()).publicKey)
        let old = Data(#"{"keys":{"acme":"\#(key)"}}"#.utf8)
        let list = try CanonicalJSON.decode(TrustList.self, from: old)
        #expect(list.keys == ["acme": key])
        #expect(list.features.isEmpty)
        let signer = Signer(name: "acme", key: key, features: list.features["acme"] ?? [])
        let problem = try #require(signer.scopeProblem("tick", subject: "tick 2"))
        #expect(problem.code == "key-scope")
        #expect(problem.reason.contains("names no feature"))
        #expect(problem.fix.contains("microapp trust \(key) --name acme --feature tick"))
    }

    @Test(.offThePool) func aKeyScopedToItsOwnFeatureMaySignItAndNothingElse() {
        let signer = Signer(name: "teamb", key: "ed25519:x", features: ["tock"])
        #expect(signer.scopeProblem("tock", subject: "tock 2") == nil)
        for other in ["auth", "tick", "Tock", "tock ", "*"] {
            let problem = signer.scopeProblem(other, subject: "\(other) 2")
            #expect(problem?.code == "key-scope", "\(other)")
            #expect(problem?.reason.contains("may sign only tock, not \(other)") == true)
            #expect(problem?.fix.contains("--feature tock --feature \(other)") == true)
        }
    }

    /// The host's `auth`, another team's `characters` and its own `search`, all signed into one index by a key
    /// trusted for `search` alone: only `search` is chosen, and the others are refused before any download.
    @Test(.offThePool) func anIndexOffersOnlyTheFeaturesItsKeyMaySign() throws {
        var fixture = ChannelFixture()
        fixture.scope = ["search"]
        try fixture.publish("auth", 99)
        try fixture.publish("characters", 5)
        try fixture.publish("search", 2)
        let index = try #require(fixture.index)
        let verified = try fixture.verification().verifyIndex(
            fixture.files[ChannelLayout.index]!, signature: fixture.files[ChannelLayout.signature]!, now: fixture.now
        ).get()
        #expect(verified.signer.features == ["search"])
        let choice = fixture.verification().updates(
            in: index, installed: ["auth": 1, "characters": 1, "search": 1], signedBy: verified.signer)
        #expect(choice.updates.mapValues(\.version) == ["search": 2])
        #expect(choice.refused.map(\.code) == ["key-scope", "key-scope"])
        #expect(
            choice.refused.map(\.subject) == [
                "auth 99 in https://example.test/stable", "characters 5 in https://example.test/stable",
            ])
    }
}
