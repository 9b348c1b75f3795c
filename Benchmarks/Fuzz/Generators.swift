import BenchmarkSupport
import Foundation
import MicroappSDK

/// Random inputs for the seeded driver. Each input comes from its own generator seeded by (seed, index), so any one
/// input can be made again from its number alone.
struct Generators {
    var random: SplitMix64

    init(seed: UInt64, index: Int) {
        random = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func pick<T>(_ options: [T]) -> T { options[int(0..<options.count)] }

    // MARK: Text

    /// Characters that stress Unicode handling: combining marks (which join a preceding `/` into one grapheme),
    /// prepended marks (which join a following one), case-mapping oddities, emoji sequences, controls, surrogate-range
    /// escapes, noncharacters and canonically equivalent spellings.
    static let unicode: [String] = [
        "é", "e\u{301}", "\u{301}", "\u{308}", "\u{20DD}", "\u{600}", "\u{110BD}", "ß", "Σ", "σ", "ς", "İ", "ı", "ǅ",
        "ﬁ", "Å", "A\u{30A}", "한", "\u{1100}\u{1161}\u{11A8}", "🇫", "🇷", "🇫🇷", "👩‍👩‍👧", "\u{200D}", "\u{FE0F}",
        "\u{200B}", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}", "\u{10FFFF}", "\r", "\n", "\r\n", "\t", "\0", "\u{7F}",
        "\u{85}", "\u{2028}", "𝒳", "٣", "²", "½", "Ⅻ", "ａ", "Ａ", "а", "ℌ",
    ]

    /// A string of `count` pieces from `alphabet`.
    mutating func text(_ alphabet: [String], count: Int) -> String {
        (0..<count).map { _ in pick(alphabet) }.joined()
    }

    // MARK: Routes

    /// Pieces of patterns and URLs: their syntax, plain names and Unicode.
    static let routeAlphabet: [String] =
        [
            "/", "/", "/", "{", "}", ":", "://", "//", "{id}", "{x}", "{}", "a", "b", "z", "0", "9", "-", "_", "A", ".",
            "%",
            "?", "#", " ", "detail", "list",
        ] + unicode

    /// A scheme: mostly valid, sometimes not.
    mutating func scheme() -> String {
        if chance(85) { return pick(["a", "b", "x", "characters", "auth", "f-1", "9", "a-b"]) }
        return text(["a", "-", "0", "A", "_", ":", "é", "e\u{301}", "ß", "İ", "\u{301}", "σ"], count: int(0..<4))
    }

    /// A segment name or literal: mostly plain, sometimes Unicode or syntax.
    mutating func word() -> String {
        switch int(0..<10) {
        case 0..<5: return pick(["a", "b", "detail", "list", "new", "edit", "1", "x_y", "é"])
        case 5..<8: return text(Self.unicode + ["a", "b", "1"], count: int(1..<4))
        default: return text(Self.routeAlphabet, count: int(1..<4))
        }
    }

    /// A pattern: structured (scheme, literal and parameter segments) with a mutation now and then, or random text.
    mutating func pattern() -> String {
        guard chance(85) else { return text(Self.routeAlphabet, count: int(0..<12)) }
        var names: [String] = []
        let segments = (0..<int(1..<5)).map { _ -> String in
            guard chance(40) else { return word() }
            let name = chance(80) ? pick(["id", "page", "x", "é", "e\u{301}", "n_1", "ß", "İd", "٣"]) : word()
            if chance(90) && names.contains(name) { return "{\(name)2}" }
            names.append(name)
            return "{\(name)}"
        }
        var pattern = scheme() + "://" + segments.joined(separator: "/")
        if chance(15) { pattern = mutate(pattern, alphabet: Self.routeAlphabet) }
        return pattern
    }

    /// A value for a parameter (the checks skip values that contain `/`).
    mutating func value() -> String {
        switch int(0..<10) {
        case 0..<4: return pick(["1", "42", "abc", "x", "new", "detail"])
        case 4..<8: return text(Self.unicode + ["1", "a"], count: int(1..<4))
        default: return text(Self.routeAlphabet.filter { $0 != "/" && $0 != "://" && $0 != "//" }, count: int(1..<5))
        }
    }

    /// A route input: a few patterns (some of one scheme, so they can overlap), values, and free URLs.
    mutating func routeInput() -> RouteInvariants.Input {
        let patterns = (0..<int(1..<6)).map { _ in pattern() }
        let values = (0..<int(1..<5)).map { _ in value() }
        let urls = (0..<int(0..<4)).map { _ -> String in
            if chance(50), let base = patterns.randomElement(using: &random) {
                // A pattern's own text used as a URL, its braces and all, or with one parameter filled in.
                return chance(50) ? base : base.replacingOccurrences(of: "{id}", with: value())
            }
            return chance(70)
                ? scheme() + "://" + (0..<int(1..<4)).map { _ in value() }.joined(separator: "/")
                : text(Self.routeAlphabet, count: int(0..<10))
        }
        return RouteInvariants.Input(patterns: patterns, values: values, urls: urls)
    }

    // MARK: Manifests

    /// Valid manifests of different shapes, as `ManifestCoding.encode` writes them.
    static let manifestSeeds: [String] = {
        let session = DependencyKey<Session?>.session(access: .read)
        let search = DependencyKey<Service<Nothing, Nothing>>.service("search.query")
        let manifests = [
            FeatureManifest(id: "a", version: 1, displayName: "A", routes: [RouteDeclaration("a://home")]),
            FeatureManifest(
                id: "characters", version: 3, displayName: "Characters",
                routes: [
                    RouteDeclaration("characters://list"),
                    RouteDeclaration("characters://detail/{id}", requiresSession: true),
                    RouteDeclaration("characters://detail/new"),
                ],
                requirements: [session.requirement, search.requirement],
                provides: [
                    Provision(
                        DependencyKey<Service<Nothing, Nothing>>.service("characters.page"), uses: ["search.query"])
                ],
                hasMocks: true),
            FeatureManifest(
                id: "auth", version: 12, displayName: "Sign in · Ünïcødé 👩‍👩‍👧",
                routes: [RouteDeclaration("auth://sign-in", isSignIn: true), RouteDeclaration("auth://{step}")],
                requirements: [DependencyKey<Session?>.session(access: .readWrite).requirement]),
        ]
        return manifests.map { (try? ManifestCoding.encode($0)) ?? "{}" }
    }()

    /// JSON pieces the mutations insert.
    static let jsonTokens: [String] =
        [
            "{", "}", "[", "]", "\"", ":", ",", "\\", "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\u00e9",
            "\\n",
            "\\/", "\\x", "null", "true", "false", "0", "-0", "1e999", "-1e-999", "1.5", "9223372036854775807",
            "9223372036854775808", "-9223372036854775809", "99999999999999999999999999999999", "0x10", "NaN",
            "Infinity", "+1", "01", ".5", "1e", "\"id\"", "\"routes\"", "\"version\"", "\"pattern\"", " ", "\n",
            "\u{0}",
            "/*", "//",
        ] + unicode

    /// Any input for the manifest decoder.
    mutating func manifestInput() -> String { jsonInput(seeds: Self.manifestSeeds) }

    /// Random bytes (as the loader would read them from a broken library, invalid UTF-8 repaired), JSON tokens, or
    /// one of `seeds` mutated a few times: the inputs of a JSON decoder.
    mutating func jsonInput(seeds: [String]) -> String {
        switch int(0..<100) {
        case 0..<10:
            let bytes = (0..<int(0..<300)).map { _ in UInt8.random(in: 0...255, using: &random) }
            return String(decoding: bytes, as: UTF8.self)
        case 10..<15:
            return text(Self.jsonTokens, count: int(0..<40))
        default:
            var text = pick(seeds)
            for _ in 0..<int(1..<4) { text = manifestMutation(text) }
            return text
        }
    }

    /// One structural or byte-level change of a manifest's text.
    mutating func manifestMutation(_ text: String) -> String {
        var bytes = Array(text.utf8)
        func offset() -> Int { bytes.isEmpty ? 0 : int(0..<bytes.count + 1) }
        switch int(0..<13) {
        case 0:  // Truncation.
            return String(decoding: bytes.prefix(offset()), as: UTF8.self)
        case 1:  // Byte flips.
            for _ in 0..<int(1..<4) where !bytes.isEmpty {
                bytes[int(0..<bytes.count)] ^= UInt8(1) << UInt8(int(0..<8))
            }
            return String(decoding: bytes, as: UTF8.self)
        case 2:  // A random byte overwritten.
            if !bytes.isEmpty { bytes[int(0..<bytes.count)] = UInt8.random(in: 0...255, using: &random) }
            return String(decoding: bytes, as: UTF8.self)
        case 3:  // A token inserted.
            bytes.insert(contentsOf: Array(pick(Self.jsonTokens).utf8), at: offset())
            return String(decoding: bytes, as: UTF8.self)
        case 4:  // A number replaced by a huge, negative, fractional or exponent one.
            return replacingValue(in: text, numbers: true) {
                $0.pick([
                    "9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e308", "1e309",
                    "-0", "0.5", "1e2", "123456789012345678901234567890", "-1", "4.9e-324", "\"1\"", "null", "[]",
                ])
            }
        case 5:  // A string replaced by Unicode, escapes, an empty or a long string.
            return replacingValue(in: text, numbers: false) {
                switch $0.int(0..<5) {
                case 0: return "\"\""
                case 1: return "\"" + String(repeating: "x", count: $0.int(1..<70_000)) + "\""
                case 2: return "\"\($0.text(Self.unicode, count: $0.int(1..<6)))\""
                case 3: return "\"\\ud800\\u0000\\\"\\\\\""
                default: return $0.pick(["1", "true", "null", "{}", "[\"a://x\"]"])
                }
            }
        case 6:  // A duplicate key at the start of the object.
            let key = pick(["id", "version", "displayName", "routes", "hasMocks", "requirements", "provides", "extra"])
            let value = pick(["\"b\"", "2", "\"Other\"", "[]", "true", "[{\"pattern\":\"b://x\"}]", "null"])
            return text.replacingOccurrences(
                of: "{", with: "{\"\(key)\":\(value),", options: [], range: firstBrace(text))
        case 7:  // Deep nesting in place of a value.
            let depth = pick([10, 100, 512, 513, 1_000, 10_000, 100_000])
            let open = chance(50) ? "[" : "{\"a\":"
            let close = open == "[" ? "]" : "}"
            let nested = String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
            return replacingValue(in: text, numbers: chance(50)) { _ in nested }
        case 8 where chance(10):  // A huge array of routes (around and over the size limit); slow, so rarer.
            let route = #"{"pattern":"a://x","requiresSession":false,"isSignIn":false}"#
            let count = pick([1_000, 4_000, 4_200, 5_000])
            let routes = "[" + Array(repeating: route, count: count).joined(separator: ",") + "]"
            return text.replacingOccurrences(of: "\"routes\":[", with: "\"routes\":\(routes.dropLast()),")
        case 8, 9:  // A key removed.
            let key = pick([
                "id", "version", "displayName", "routes", "hasMocks", "requirements", "provides", "pattern",
            ])
            return text.replacingOccurrences(of: "\"\(key)\":", with: "\"\(key)_\":")
        case 10:  // Two manifests spliced.
            let other = Array(pick(Self.manifestSeeds).utf8)
            let cut = offset()
            return String(decoding: bytes.prefix(cut) + other.suffix(from: int(0..<other.count)), as: UTF8.self)
        case 11:  // Whitespace, BOM or garbage around the object.
            let padding = pick([" ", "\n\t", "\u{FEFF}", "\0", "x", "{}", "]"])
            return chance(50) ? padding + text : text + padding
        default:  // A stretch removed.
            let from = offset()
            let to = min(bytes.count, from + int(1..<20))
            if from < to { bytes.removeSubrange(from..<to) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `text` with one randomly chosen JSON number (or string, with quotes) replaced by `make(&self)`.
    mutating func replacingValue(in text: String, numbers: Bool, _ make: (inout Generators) -> String) -> String {
        let pattern = numbers ? #"(?<=:)-?[0-9][0-9.eE+-]*"# : #""(?:[^"\\]|\\.)*""#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return text }
        let whole = NSRange(text.startIndex..., in: text)
        let matches = expression.matches(in: text, range: whole)
        guard !matches.isEmpty, let range = Range(pick(matches).range, in: text) else { return text }
        return text.replacingCharacters(in: range, with: make(&self))
    }

    /// A generic mutation for pattern text: insert, delete or replace one piece.
    mutating func mutate(_ text: String, alphabet: [String]) -> String {
        var characters = Array(text)
        let position = int(0..<characters.count + 1)
        switch int(0..<3) {
        case 0: characters.insert(contentsOf: pick(alphabet), at: position)
        case 1: if position < characters.count { characters.remove(at: position) }
        default:
            if position < characters.count { characters.replaceSubrange(position...position, with: pick(alphabet)) }
        }
        return String(characters)
    }

    private func firstBrace(_ text: String) -> Range<String.Index>? {
        text.range(of: "{").map { text.startIndex..<$0.upperBound }
    }
}
