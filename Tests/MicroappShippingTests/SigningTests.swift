import Foundation
import MicroappDigest
import MicroappShipping
import TestScratch
import Testing

@Suite struct SigningTests {
    @Test(.offThePool) func aSignatureVerifiesOnlyForItsMessageAndItsKey() throws {
        let key = try #require(Ed25519.PrivateKey.generate())
        let other = try #require(Ed25519.PrivateKey.generate())
        let message = Data("release record".utf8)
        let signature = key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifies(signature, for: message))
        #expect(!key.publicKey.verifies(signature, for: message.flipping(at: 0)))
        #expect(!other.publicKey.verifies(signature, for: message))
        var flipped = signature
        flipped[10] ^= 0x80
        #expect(!key.publicKey.verifies(flipped, for: message))
        #expect(!key.publicKey.verifies(Array(signature.prefix(63)), for: message))
    }

    @Test(.offThePool) func aKeyReadBackFromItsTextSignsAsTheOriginal() throws {
        let key = try #require(Ed25519.PrivateKey.generate())
        let text = KeyText.text(of: key)
        #expect(text.hasPrefix("ed25519-private:"))
        let read = try #require(KeyText.privateKey(text + "\n"))
        #expect(read == key)
        let publicText = KeyText.text(of: key.publicKey)
        #expect(publicText.hasPrefix("ed25519:"))
        #expect(KeyText.publicKey(publicText) == key.publicKey)
        #expect(KeyText.id(of: key.publicKey).count == 16)
        // The public text is not a private key, nor the other way round.
        #expect(KeyText.privateKey(publicText) == nil)
        #expect(KeyText.publicKey(text) == nil)
        #expect(KeyText.publicKey("ed25519:AAAA") == nil)
    }

    @Test(.offThePool) func twoKeysAreDifferentAndHaveDifferentIDs() throws {
        let first = try #require(Ed25519.PrivateKey.generate())
        let second = try #require(Ed25519.PrivateKey.generate())
        #expect(first != second)
        #expect(KeyText.id(of: first.publicKey) != KeyText.id(of: second.publicKey))
    }

    @Test(.offThePool) func canonicalEncodingSortsKeysSoTheSameDocumentSignsTheSame() throws {
        let fixture = ChannelFixture()
        let first = fixture.release("characters", 2)
        let second = fixture.release("characters", 2)
        #expect(first.recordBytes == second.recordBytes)
        let text = try #require(String(data: first.recordBytes, encoding: .utf8))
        let keys = ["created", "feature", "library", "manifest", "sdk", "type", "version"]
        let positions = keys.map { text.range(of: "\"\($0)\":")!.lowerBound }
        #expect(positions == positions.sorted())
    }
}
