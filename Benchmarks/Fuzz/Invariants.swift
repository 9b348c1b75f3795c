import Foundation
import MicroappCore
import MicroappSDK

// The properties every input must keep. Shared by the seeded driver (`microapp-fuzz`) and the libFuzzer harness
// (`scripts/fuzz --libfuzzer`, which compiles this file with `Benchmarks/FuzzLibFuzzer/Entry.swift`), so both check
// the same things. A crash is a failure by itself; everything else is returned as violations.

/// One broken invariant: `kind` groups failures of the same cause, `detail` shows this instance.
struct Violation: Sendable, Hashable {
    /// Stable name of the invariant (and of the cause, where it can be told).
    var kind: String
    /// The values involved, escaped so invisible characters show.
    var detail: String
}

/// `text` as a Swift string literal, every non-ASCII or invisible scalar written as `\u{…}`.
func escaped(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case " "..."~": result.unicodeScalars.append(scalar)
        default: result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
    }
    return result + "\""
}

/// `ManifestCoding.decode` on any bytes: it throws `ManifestError` or returns a valid manifest that survives
/// re-encoding; bytes that are not UTF-8 are refused as such, and nesting past the limit as too deep; a decoded
/// manifest also goes through `RouteTable` and `DependencyResolver` without trapping.
enum ManifestInvariants {
    /// The slowest decode allowed before it counts as a hang (inputs are at most a few hundred KB).
    static let slowLimit: Duration = .seconds(1)

    static func check(_ text: String) -> [Violation] { check(utf8: Array(text.utf8)) }

    static func check(utf8 bytes: [UInt8]) -> [Violation] {
        var violations: [Violation] = []
        let valid = String(validating: bytes, as: UTF8.self)
        let text = valid ?? String(decoding: bytes, as: UTF8.self)
        let start = ContinuousClock.now
        let decoded: FeatureManifest
        do {
            decoded = try ManifestCoding.decode(utf8: bytes)
        } catch {
            if error.reason.isEmpty {
                violations.append(Violation(kind: "manifest: refused without a reason", detail: escaped(text)))
            }
            let underLimit = bytes.count <= ManifestCoding.maximumSize
            if underLimit && valid == nil && !error.reason.contains("not valid UTF-8") {
                violations.append(
                    Violation(kind: "manifest: invalid UTF-8 refused for another reason", detail: error.reason))
            }
            if underLimit, valid != nil, nestsTooDeep(bytes), !error.reason.contains("deep") {
                violations.append(
                    Violation(kind: "manifest: deep nesting refused for another reason", detail: error.reason))
            }
            if ContinuousClock.now - start > slowLimit {
                violations.append(Violation(kind: "manifest: slow refusal", detail: "\(text.utf8.count) bytes"))
            }
            return violations
        }
        if ContinuousClock.now - start > slowLimit {
            violations.append(Violation(kind: "manifest: slow decode", detail: "\(text.utf8.count) bytes"))
        }
        if valid == nil {
            violations.append(Violation(kind: "manifest: accepted invalid UTF-8", detail: escaped(text)))
        }
        let idCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-".unicodeScalars)
        if decoded.id.isEmpty || !decoded.id.unicodeScalars.allSatisfy(idCharacters.contains) {
            violations.append(Violation(kind: "manifest: accepted an invalid id", detail: escaped(decoded.id)))
        }
        if decoded.routes.isEmpty {
            violations.append(Violation(kind: "manifest: accepted no routes", detail: escaped(text)))
        }
        do {
            let again = try ManifestCoding.decode(try ManifestCoding.encode(decoded))
            if again != decoded {
                violations.append(
                    Violation(
                        kind: "manifest: re-encoding changes it",
                        detail: "\(escaped(text)) → \(String(describing: again))"))
            }
        } catch {
            violations.append(
                Violation(kind: "manifest: re-encoded form is refused", detail: "\(escaped(text)): \(error)"))
        }
        // What the engine does next with an untrusted manifest must not trap either.
        let table = RouteTable([decoded])
        for route in decoded.routes.prefix(3) { _ = table.match(route.pattern) }
        _ = DependencyResolver.resolve(
            [
                Candidate(manifest: decoded, path: "a", trust: .own),
                Candidate(manifest: decoded, path: "b", trust: .own),
            ], hostOffers: [:])
        return violations
    }

    /// True if more than `ManifestCoding.maximumDepth` `[` follow each other outside a string (so the nesting is past
    /// the limit whatever else the input holds). A string is told by counting the quotes before, escaped ones left out.
    static func nestsTooDeep(_ bytes: [UInt8]) -> Bool {
        var run = 0
        var inString = false
        var backslashes = 0
        for byte in bytes {
            if byte == UInt8(ascii: "\""), backslashes % 2 == 0 { inString.toggle() }
            backslashes = byte == UInt8(ascii: "\\") ? backslashes + 1 : 0
            run = !inString && byte == UInt8(ascii: "[") ? run + 1 : 0
            if run > ManifestCoding.maximumDepth { return true }
        }
        return false
    }
}

/// `RoutePattern` and `RouteTable` on any patterns and URLs.
enum RouteInvariants {
    /// Patterns, parameter values to fill them with, and free URLs to match.
    struct Input: Codable, Sendable {
        var patterns: [String]
        var values: [String]
        var urls: [String]
    }

    static func check(_ input: Input) -> [Violation] {
        var violations: [Violation] = []
        func fail(_ kind: String, _ detail: String) { violations.append(Violation(kind: kind, detail: detail)) }
        let values = input.values.filter { !$0.isEmpty && !$0.unicodeScalars.contains("/") }
        var parsed: [RoutePattern] = []
        for text in input.patterns {
            guard let pattern = try? RoutePattern(text) else { continue }
            parsed.append(pattern)
            // The description is the pattern as written: it parses again to the same pattern.
            do {
                let again = try RoutePattern(pattern.description)
                if again != pattern || again.description != pattern.description {
                    fail("route: description re-parses differently", "\(escaped(text)) → \(escaped(again.description))")
                }
            } catch {
                fail("route: description does not re-parse", "\(escaped(text)) → \(error)")
            }
        }
        var urls = input.urls
        for (index, pattern) in parsed.enumerated() {
            // A URL built from the pattern by filling its parameters matches with exactly those values.
            let (url, filled) = fill(pattern, values: values, offset: index)
            urls.append(url)
            let got = pattern.match(url)
            if got != filled {
                fail(
                    "route: filled URL does not match" + cause(url),
                    "pattern \(escaped(pattern.description)), url \(escaped(url)), expected \(filled), got \(String(describing: got))"
                )
            }
            // Patterns overlap themselves; `overlaps` is symmetric, sound (a URL matching both means they overlap)
            // and complete (overlapping patterns have a URL matching both).
            if !pattern.overlaps(pattern) {
                fail("route: pattern does not overlap itself", escaped(pattern.description))
            }
            for other in parsed[index...] {
                let forward = pattern.overlaps(other)
                if forward != other.overlaps(pattern) {
                    fail(
                        "route: overlaps is not symmetric",
                        "\(escaped(pattern.description)) vs \(escaped(other.description))")
                }
                if !forward && got != nil && other.match(url) != nil {
                    fail(
                        "route: a URL matches both, yet they do not overlap",
                        "\(escaped(pattern.description)) vs \(escaped(other.description)) on \(escaped(url))")
                }
                if forward, let witness = witness(pattern, other),
                    pattern.match(witness) == nil || other.match(witness) == nil
                {
                    fail(
                        "route: overlapping patterns share no URL" + cause(witness),
                        "\(escaped(pattern.description)) vs \(escaped(other.description)), witness \(escaped(witness))")
                }
            }
        }
        // Any match binds every parameter, and putting the values back gives the URL again.
        for pattern in parsed {
            for url in urls {
                guard let parameters = pattern.match(url) else { continue }
                let names = pattern.segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
                if Set(parameters.keys) != Set(names) {
                    fail(
                        "route: match binds other names",
                        "\(escaped(pattern.description)) on \(escaped(url)): \(parameters)")
                    continue
                }
                // A parameter is one segment: it never holds a '/'.
                for value in parameters.values where value.unicodeScalars.contains("/") {
                    fail(
                        "route: a parameter value contains '/'" + cause(value),
                        "\(escaped(pattern.description)) on \(escaped(url)): \(escaped(value))")
                }
                let rebuilt = build(pattern) { parameters[$0] ?? "" }
                if rebuilt != url {
                    fail(
                        "route: match does not rebuild the URL",
                        "\(escaped(pattern.description)) on \(escaped(url)) → \(escaped(rebuilt))")
                }
            }
        }
        // The table answers with a matching route, the most literal one, and only when some route matches.
        let manifests = input.patterns.indices.map { index in
            FeatureManifest(
                id: "f\(index % 3)", version: 1, displayName: "F",
                routes: input.patterns.enumerated().filter { $0.offset % 3 == index % 3 }.map {
                    RouteDeclaration($0.element)
                })
        }.prefix(3)
        let table = RouteTable(Array(manifests))
        for url in urls {
            let matching = table.entries.compactMap { entry in
                entry.pattern.match(url).map { (entry, $0, entry.pattern.segments.count - $0.count) }
            }
            guard let found = table.match(url) else {
                if !matching.isEmpty { fail("route table: no match though a route matches", escaped(url)) }
                continue
            }
            guard let parameters = found.entry.pattern.match(url), parameters == found.location.parameters else {
                fail(
                    "route table: answer does not match",
                    "\(escaped(url)) → \(escaped(found.entry.pattern.description))")
                continue
            }
            let best = matching.map(\.2).max() ?? -1
            if best != found.entry.pattern.segments.count - parameters.count {
                fail("route table: a more literal route was passed over", escaped(url))
            }
            if found.location.url != url || found.location.pattern != found.entry.pattern.description {
                fail("route table: location differs from the match", escaped(url))
            }
        }
        return violations
    }

    /// The pattern with each parameter replaced by one of `values` (or `1`), and the bindings used.
    static func fill(_ pattern: RoutePattern, values: [String], offset: Int) -> (String, [String: String]) {
        var filled: [String: String] = [:]
        var next = offset
        let url = build(pattern) { name in
            let value = values.isEmpty ? "1" : values[next % values.count]
            next += 1
            filled[name] = value
            return value
        }
        return (url, filled)
    }

    /// `scheme://` and the segments, each parameter replaced by `value(name)`.
    static func build(_ pattern: RoutePattern, value: (String) -> String) -> String {
        pattern.scheme + "://"
            + pattern.segments.map {
                switch $0 {
                case .literal(let text): text
                case .parameter(let name): value(name)
                }
            }.joined(separator: "/")
    }

    /// A URL both patterns should match when they overlap: each literal of either, `1` where both have parameters.
    static func witness(_ first: RoutePattern, _ second: RoutePattern) -> String? {
        guard first.segments.count == second.segments.count else { return nil }
        let parts = zip(first.segments, second.segments).map { pair -> String in
            if case .literal(let text) = pair.0 { return text }
            if case .literal(let text) = pair.1 { return text }
            return "1"
        }
        return first.scheme + "://" + parts.joined(separator: "/")
    }

    /// Why a URL built from parts may not split back into them: a `/` that joins a neighbouring scalar into one
    /// grapheme cluster (a combining mark after it, a prepended mark before it) is no `/` Character.
    static func cause(_ url: String) -> String {
        let scalarSlashes = url.unicodeScalars.filter { $0 == "/" }.count
        let characterSlashes = url.filter { $0 == "/" }.count
        return scalarSlashes != characterSlashes ? " (a '/' inside a grapheme cluster)" : ""
    }
}
