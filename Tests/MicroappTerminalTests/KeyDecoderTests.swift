import Testing

@testable import MicroappTerminal

@Suite struct KeyDecoderTests {
    private func keys(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.feed(bytes) + decoder.flush()
    }

    @Test(
        arguments: [
            ([0x1B, 0x5B, 0x41], Key.up), ([0x1B, 0x5B, 0x42], .down), ([0x1B, 0x5B, 0x43], .right),
            ([0x1B, 0x5B, 0x44], .left), ([0x1B, 0x4F, 0x41], .up), ([0x1B, 0x4F, 0x42], .down),
            ([0x1B, 0x5B, 0x5A], .shiftTab), ([0x1B, 0x5B, 0x35, 0x7E], .pageUp),
            ([0x1B, 0x5B, 0x36, 0x7E], .pageDown),
            ([0x1B, 0x5B, 0x33, 0x7E], .delete), ([0x1B, 0x5B, 0x48], .home), ([0x1B, 0x5B, 0x34, 0x7E], .end),
            ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x41], .up),
            ([0x09], .tab), ([0x0D], .enter), ([0x0A], .enter), ([0x7F], .backspace), ([0x08], .backspace),
            ([0x03], .interrupt), ([0x04], .endOfInput), ([0x1B], .escape), ([0x71], .character("q")),
            ([0xC3, 0xA9], .character("é")), ([0xE2, 0x82, 0xAC], .character("€")),
            ([0xF0, 0x9F, 0x98, 0x80], .character("😀")), ([0x0F], .controlO), ([0x0C], .controlL),
            ([0x1B, 0x32], .alt("2")),
        ] as [([UInt8], Key)])
    func decodesOneKey(bytes: [UInt8], key: Key) {
        #expect(keys(bytes) == [key])
    }

    @Test func aLoneEscapeWaitsForTheTimeoutThenIsEsc() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(decoder.pending.isEmpty)
    }

    @Test func anArrowSplitAcrossReadsIsOneKey() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.feed([0x5B]) == [])
        #expect(decoder.feed([0x41]) == [.up])
    }

    @Test func aCharacterSplitAcrossReadsIsOneKey() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0xE2, 0x82]) == [])
        #expect(decoder.feed([0xAC, 0x61]) == [.character("€"), .character("a")])
    }

    @Test func severalKeysInOneRead() {
        #expect(
            keys(Array("ab".utf8) + [0x1B, 0x5B, 0x42, 0x09, 0x7F, 0x0D])
                == [.character("a"), .character("b"), .down, .tab, .backspace, .enter])
    }

    @Test func escapeThenAKeyIsEscThenTheKey() {
        #expect(keys([0x1B, 0x78]) == [.escape, .character("x")])
        #expect(keys([0x1B, 0x1B, 0x5B, 0x41]) == [.escape, .up])
    }

    @Test func unknownSequencesAndInvalidBytesAreSkipped() {
        #expect(keys([0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E, 0x61]) == [.character("a")])
        #expect(keys([0xFF, 0x61, 0xC3, 0x28]) == [.character("a"), .character("(")])
        #expect(keys([0x01, 0x62]) == [.character("b")])
    }
}
