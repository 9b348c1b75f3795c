/// A parsed route pattern such as `characters://detail/{id}`: a scheme, then literal and `{parameter}` segments.
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// One path segment of a pattern.
    @frozen public enum Segment: Sendable, Hashable {
        /// Must equal this text.
        case literal(String)
        /// Matches any non-empty segment and binds it to this name.
        case parameter(String)
    }

    /// The part before `://`, the feature id.
    public let scheme: String
    /// The path segments.
    public let segments: [Segment]

    /// Parses a pattern, or throws the reason it is malformed.
    public init(_ pattern: String) throws(RouteError) {
        let (scheme, path) = try Self.components(of: pattern)
        var names = Set<String>()
        segments = try path.map { (segment: Substring) throws(RouteError) -> Segment in
            // ASCII is read by its bytes, which is the same as by its Characters there (and much cheaper).
            let bytes = segment.utf8
            let isASCII = bytes.allSatisfy { $0 < 0x80 }
            let isBraced =
                isASCII
                ? bytes.first == UInt8(ascii: "{") && bytes.last == UInt8(ascii: "}") && bytes.count > 2
                : segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2
            if isBraced {
                let name = String(segment.dropFirst().dropLast())
                guard Self.isPlainName(name) else {
                    throw RouteError(url: pattern, reason: "parameter '\(name)' is not a plain name")
                }
                guard names.insert(name).inserted else {
                    throw RouteError(url: pattern, reason: "parameter '\(name)' appears twice")
                }
                return .parameter(name)
            }
            let hasBrace =
                isASCII
                ? bytes.contains { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }
                : segment.contains("{") || segment.contains("}")
            guard !hasBrace else {
                throw RouteError(url: pattern, reason: "segment '\(segment)' mixes text and a parameter")
            }
            return .literal(String(segment))
        }
        self.scheme = scheme
    }

    /// The parameters, in order, if `url` matches; nil otherwise.
    public func match(_ url: String) -> [String: String]? {
        guard let (scheme, path) = try? Self.components(of: url) else { return nil }
        return match(scheme: scheme, path: path)
    }

    /// Like `match(_:)` for a URL already split by `components(of:)` (a route table splits it once for all routes).
    public func match(scheme: String, path: [Substring]) -> [String: String]? {
        guard scheme == self.scheme, path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let text): guard part == text else { return nil }
            case .parameter(let name): parameters[name] = String(part)
            }
        }
        return parameters
    }

    /// True if some URL matches both patterns (two features or routes would fight over it).
    public func overlaps(_ other: RoutePattern) -> Bool {
        guard scheme == other.scheme, segments.count == other.segments.count else { return false }
        return zip(segments, other.segments).allSatisfy { pair in
            if case .literal(let left) = pair.0, case .literal(let right) = pair.1 { return left == right }
            return true
        }
    }

    /// The pattern as written (`characters://detail/{id}`).
    public var description: String {
        scheme + "://"
            + segments.map {
                switch $0 {
                case .literal(let text): text
                case .parameter(let name): "{\(name)}"
                }
            }.joined(separator: "/")
    }

    /// A URL's scheme and path segments. It is cut at the bytes of `://` and `/`, never at Characters: a `/` that a
    /// combining mark joins into one Character is still a separator (the fuzzer found a parameter binding a `/`).
    public static func components(of url: String) throws(RouteError) -> (scheme: String, path: [Substring]) {
        let bytes = url.utf8
        var schemeEnd: String.Index?
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":") {
                let rest = bytes[index...]
                if rest.starts(with: "://".utf8) {
                    schemeEnd = index
                    break
                }
            }
            index = bytes.index(after: index)
        }
        guard let schemeEnd else {
            throw RouteError(url: url, reason: "it has no scheme (expected 'feature://path')")
        }
        let scheme = String(url[..<schemeEnd])
        guard !scheme.isEmpty, isSchemeText(scheme) else {
            throw RouteError(url: url, reason: "scheme '\(scheme)' is not lowercase letters, digits and '-'")
        }
        var path: [Substring] = []
        var segmentStart = bytes.index(schemeEnd, offsetBy: 3)
        var cursor = segmentStart
        while cursor != bytes.endIndex {
            if bytes[cursor] == UInt8(ascii: "/") {
                path.append(url[segmentStart..<cursor])
                segmentStart = bytes.index(after: cursor)
            }
            cursor = bytes.index(after: cursor)
        }
        path.append(url[segmentStart..<bytes.endIndex])
        guard !path.contains(where: \.isEmpty) else {
            throw RouteError(url: url, reason: "it has an empty path segment")
        }
        return (scheme, path)
    }
}

extension RoutePattern {
    /// Whether `scheme` is lowercase letters, digits and `-`. ASCII text (every scheme a route declares in practice)
    /// is checked by its bytes: a Character's Unicode properties cost a table lookup each, and a host checks every
    /// route of every feature at start-up.
    static func isSchemeText(_ scheme: String) -> Bool {
        if scheme.utf8.allSatisfy({ $0 < 0x80 }) {
            return scheme.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
        }
        return scheme.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }
    }

    /// Whether `name` is letters, digits and `_` (ASCII by its bytes, as `isSchemeText`).
    static func isPlainName(_ name: String) -> Bool {
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            return name.utf8.allSatisfy {
                (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F
            }
        }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}

/// Why a route URL or pattern could not be used.
public struct RouteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL or pattern at fault.
    public var url: String
    /// What is wrong with it.
    public var reason: String

    /// Creates an error.
    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    /// `'url': reason`.
    public var description: String { "'\(url)': \(reason)" }
}
