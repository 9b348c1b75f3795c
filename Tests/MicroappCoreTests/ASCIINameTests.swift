import TestScratch
import Testing

@testable import MicroappCore

/// ASCII names skip ICU's normalizer and spoof check (`NameSkeleton`): the answers must be ICU's own, or the
/// look-alike check would be weaker for the names it sees most.
@Suite("Names in ASCII are read by their bytes exactly as ICU reads them")
struct ASCIINameTests {
    /// Every ASCII character alone and beside a letter, then seeded strings of letters, digits, white space,
    /// controls and punctuation.
    static let names: [String] = {
        let characters = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        var random = SeededRandom(state: 39)
        let picked = (0..<2000).map { _ in
            let length = Int.random(in: 1...12, using: &random)
            return String(
                (0..<length).map { _ in
                    let kind = Int.random(in: 0..<4, using: &random)
                    let pool = ["AaZz", " \t\n\u{0B}\u{0C}\r", "\u{0}\u{1}\u{1C}\u{1F}\u{7F}", "0_-.:'!|`~l1Ii"][kind]
                    return pool.randomElement(using: &random)!
                })
        }
        return characters + characters.map { "a" + $0 } + picked
    }()

    @Test("the fold of an ASCII name is ICU's NFKC case fold of it, byte for byte", .offThePool)
    func foldIsICUs() {
        for name in Self.names {
            #expect(NameSkeleton.folded(name) == NameSkeleton.foldByICU(name), "\(Array(name.utf8))")
        }
    }

    @Test("an ASCII name's defect is the one ICU's checks give: only white space alone is refused", .offThePool)
    func defectIsICUs() {
        var refused = 0
        for name in Self.names {
            let defect = NameSkeleton.defect(name)
            #expect(defect == NameSkeleton.defectByICU(name), "\(Array(name.utf8))")
            if defect != nil { refused += 1 }
        }
        #expect(refused > 6, "names of white space alone are among them, and refused")
    }
}
