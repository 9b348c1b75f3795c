import _FoundationICU

/// Names as people read them (Unicode UTS #39), by ICU's spoof checker, which Foundation already loads
/// (`lib_FoundationICU.so`, its functions `swift_`-prefixed): two names are one when their confusable skeletons
/// agree after NFKC case folding, which drops default-ignorable code points (`Sett\u{034F}ings`, `Settings\u{3164}`,
/// `\u{FF33}ettings` and Cyrillic `\u{0405}ettings` are all "Settings"). A name made only of invisible characters, or
/// mixing scripts inside one word, is refused outright.
public enum NameSkeleton {
    /// The comparison key of `name`: the confusable skeleton of its NFKC case fold, white space removed. Empty for a
    /// name with nothing visible.
    public static func key(_ name: String) -> String {
        let folded = String(String.UnicodeScalarView(fold(name).unicodeScalars.filter { !isWhitespace($0) }))
        return folded.isEmpty ? "" : icu(folded, capacity: 4) { checker.skeleton($0, $1, $2, $3) } ?? folded
    }

    /// `name` as NFKC case folding reads it (what two names that differ only in case, width or invisible characters
    /// share), white space kept.
    public static func folded(_ name: String) -> String { fold(name) }

    /// Why `name` may not be shown as a name: nil when it may; else "is made only of invisible characters",
    /// "mixes Latin and Cyrillic in the word 'ѕettings'" or that it holds a direction control.
    public static func defect(_ name: String) -> String? {
        guard !name.isEmpty else { return nil }
        // ASCII, the usual name, holds no direction control, folds to its lowercase, and is one script to ICU (its
        // restriction level is ASCII, below every level a check refuses): only a name of white space alone fails.
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            return name.unicodeScalars.contains { !isWhitespace($0) } ? nil : "is made only of invisible characters"
        }
        return defectByICU(name)
    }

    /// `defect(name)` asked of ICU whatever the text (what the ASCII answer is checked against).
    static func defectByICU(_ name: String) -> String? {
        // Direction controls reorder what is drawn ("\u{202E}sgnitteS" shows as "Settings"): folding drops them, so
        // the key would compare the letters in an order nobody sees.
        if let control = name.unicodeScalars.first(where: \.properties.isBidiControl) {
            return
                "contains the direction control U+\(String(control.value, radix: 16, uppercase: true)), which reorders what people see"
        }
        let folded = foldByICU(name)
        guard folded.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            return "is made only of invisible characters"
        }
        for word in folded.split(whereSeparator: { $0.unicodeScalars.allSatisfy(\.properties.isWhitespace) }) {
            let text = String(word)
            guard checker.isMixed(text) else { continue }
            return "mixes \(scripts(of: text).joined(separator: " and ")) in the word '\(text)'"
        }
        return nil
    }

    /// The scripts of `word`'s letters, in the order they first appear (Common and Inherited left out).
    static func scripts(of word: String) -> [String] {
        var names: [String] = []
        for scalar in word.unicodeScalars {
            var status = U_ZERO_ERROR
            let code = swift_uscript_getScript(UChar32(scalar.value), &status)
            guard code != USCRIPT_COMMON, code != USCRIPT_INHERITED, let pointer = swift_uscript_getName(code) else {
                continue
            }
            let name = String(cString: pointer)
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// `name` NFKC case folded: ASCII by its bytes (NFKC leaves ASCII as it is, and its case fold is its lowercase;
    /// the normalizer's call cost more than the comparison it serves), anything else by ICU.
    private static func fold(_ name: String) -> String {
        guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return foldByICU(name) }
        return String(unsafeUninitializedCapacity: name.utf8.count) { bytes in
            for (offset, byte) in name.utf8.enumerated() {
                bytes[offset] = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
            }
            return name.utf8.count
        }
    }

    /// `name` NFKC case folded by ICU's normalizer.
    static func foldByICU(_ name: String) -> String {
        icu(name, capacity: 3) { source, count, target, capacity in
            var status = U_ZERO_ERROR
            let instance = swift_unorm2_getNFKCCasefoldInstance(&status)
            guard status.rawValue <= U_ZERO_ERROR.rawValue else { return -1 }
            let written = swift_unorm2_normalize(instance, source, count, target, capacity, &status)
            return SpoofChecker.succeeded(status) ? written : -1
        } ?? name
    }

    /// Calls an ICU function that writes UTF-16 from `text`'s UTF-16 (`capacity` code units out per one in, at least
    /// 16), again with the size it asks for when that was short; nil when it fails.
    private static func icu(
        _ text: String, capacity factor: Int,
        _ call: (UnsafePointer<UChar>, Int32, UnsafeMutablePointer<UChar>, Int32) -> Int32
    ) -> String? {
        let source = Array(text.utf16)
        var size = max(16, source.count * factor)
        for _ in 0..<2 {
            var target = [UChar](repeating: 0, count: size)
            let written = target.withUnsafeMutableBufferPointer { out in
                call(source, Int32(source.count), out.baseAddress!, Int32(size))
            }
            guard written >= 0 else { return nil }
            if Int(written) <= size { return string(target[0..<Int(written)]) }
            size = Int(written)
        }
        return nil
    }

    /// The text of UTF-16 `units`: ASCII, the usual name, copied byte for byte (decoding UTF-16 in general cost 0.29 M
    /// instructions for the names of one feature), anything else decoded.
    private static func string(_ units: ArraySlice<UChar>) -> String {
        guard units.allSatisfy({ $0 < 0x80 }) else { return String(decoding: units, as: UTF16.self) }
        return String(unsafeUninitializedCapacity: units.count) { bytes in
            for (offset, unit) in units.enumerated() { bytes[offset] = UInt8(truncatingIfNeeded: unit) }
            return units.count
        }
    }

    /// Whether `scalar` is white space, ASCII's answered without Unicode's property table.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar == " " || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
    }

    /// ICU's spoof checker, opened once: after it is configured ICU allows concurrent checks and skeletons.
    private static let checker = SpoofChecker()
}

/// One configured `USpoofChecker`: restriction level "highly restrictive" (one script per word, or Latin with the
/// Han-based scripts of Chinese, Japanese and Korean), checked one word at a time.
private final class SpoofChecker: Sendable {
    // A `USpoofChecker *`, configured in `init` and only read after: ICU documents checks on a configured checker as
    // safe from any thread.
    nonisolated(unsafe) private let handle: OpaquePointer?

    init() {
        var status = U_ZERO_ERROR
        let handle = swift_uspoof_open(&status)
        swift_uspoof_setChecks(handle, Int32(USPOOF_RESTRICTION_LEVEL.rawValue), &status)
        swift_uspoof_setRestrictionLevel(handle, USPOOF_HIGHLY_RESTRICTIVE)
        self.handle = status.rawValue <= U_ZERO_ERROR.rawValue ? handle : nil
    }

    /// Writes the UTS #39 skeleton of `source` to `target`; its length, or -1.
    func skeleton(
        _ source: UnsafePointer<UChar>, _ count: Int32, _ target: UnsafeMutablePointer<UChar>, _ capacity: Int32
    ) -> Int32 {
        guard let handle else { return -1 }
        var status = U_ZERO_ERROR
        let written = swift_uspoof_getSkeleton(handle, 0, source, count, target, capacity, &status)
        return Self.succeeded(status) ? written : -1
    }

    /// Whether an ICU call that writes into a buffer worked, or only needs a larger buffer (its answer says how large).
    static func succeeded(_ status: UErrorCode) -> Bool {
        status == U_BUFFER_OVERFLOW_ERROR || status.rawValue <= U_ZERO_ERROR.rawValue
    }

    /// Whether `word` mixes scripts past the restriction level.
    func isMixed(_ word: String) -> Bool {
        guard let handle else { return false }
        let source = Array(word.utf16)
        var status = U_ZERO_ERROR
        let result = swift_uspoof_check2(handle, source, Int32(source.count), nil, &status)
        return status.rawValue <= U_ZERO_ERROR.rawValue && result & Int32(USPOOF_RESTRICTION_LEVEL.rawValue) != 0
    }
}
