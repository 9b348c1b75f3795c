import MicroappDigest
import TestScratch
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test(
        "digests match the FIPS 180-4 test vectors",
        .offThePool,
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func vectors(message: String, digest: String) {
        #expect(SHA256.hex(of: Array(message.utf8)) == digest)
    }

    @Test("a million a's, fed in uneven pieces, give the published digest", .offThePool)
    func longMessage() {
        var hash = SHA256()
        var remaining = 1_000_000
        var piece = 1
        while remaining > 0 {
            let count = min(piece, remaining)
            hash.update(repeatElement(UInt8(ascii: "a"), count: count))
            remaining -= count
            piece = piece * 3 % 1000 + 1
        }
        let hex = hash.finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
