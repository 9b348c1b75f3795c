/// The structure of a Codable type as its JSON sees it: what crosses the plugin boundary, so what host and plugin
/// must agree on (never a Swift type, which differs between images). Written in manifests as text:
/// `{"email":String,"name":String?}`, `[Int]`, `Int?`, `(Request)->Response` for a service, `'Name'` when the type
/// could not be read (then the name is all that is compared).
public indirect enum TypeShape: Sendable, Equatable, CustomStringConvertible {
    /// A JSON number, string or boolean, by the Swift type read from it (`String`, `Int`, `Double`, `Bool`).
    case scalar(String)
    /// The value or `null`.
    case optional(TypeShape)
    /// A JSON array of one shape.
    case array(TypeShape)
    /// A JSON object: its keys and the shape of each.
    case object([String: TypeShape])
    /// A service: what its callers send and what it answers.
    case service(request: TypeShape, response: TypeShape)
    /// A type whose structure could not be read (a custom `init(from:)` that refuses sample input): its name.
    case opaque(String)

    /// The shape of `type`, read by decoding it from a recorder that answers every question with a sample.
    public static func of<T: Decodable>(_ type: T.Type) -> TypeShape {
        ShapeRecorder.shape(of: type)
    }

    /// Whether a reader of this shape can decode what a writer of `written` encodes: the same scalars, every key
    /// the reader requires present, `null` only where the reader allows it; keys only the writer has are ignored.
    public func accepts(_ written: TypeShape) -> Bool {
        switch (self, written) {
        case (.optional(let reader), .optional(let writer)): reader.accepts(writer)
        case (.optional(let reader), _): reader.accepts(written)
        case (_, .optional): false
        case (.array(let reader), .array(let writer)): reader.accepts(writer)
        case (.object(let reader), .object(let writer)):
            reader.allSatisfy { key, shape in
                if let other = writer[key] { return shape.accepts(other) }
                if case .optional = shape { return true }
                return false
            }
        case (.service(let request, let response), .service(let otherRequest, let otherResponse)):
            // Read as "a caller holding `self` can use a provider of `written`".
            otherRequest.accepts(request) && response.accepts(otherResponse)
        default: self == written
        }
    }

    /// The canonical text form, keys sorted.
    public var description: String {
        // Concatenation of `description`s, not interpolation: interpolating a value goes through
        // `String(describing:)`, whose conformance checks dominated manifest building at start-up.
        switch self {
        case .scalar(let name): return name
        case .optional(let wrapped): return wrapped.description + "?"
        case .array(let element): return "[" + element.description + "]"
        case .object(let fields):
            let members = fields.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ":" + $0.value.description }
            return "{" + members.joined(separator: ",") + "}"
        case .service(let request, let response): return "(" + request.description + ")->" + response.description
        case .opaque(let name): return "'" + name.filter { $0 != "'" } + "'"
        }
    }

    /// Reads the text form back; nil when it is not one.
    public init?(parsing text: String) {
        var parser = ShapeParser(Array(text.unicodeScalars))
        guard let shape = parser.shape(), parser.atEnd else { return nil }
        self = shape
    }

    private static func quoted(_ key: String) -> String {
        var text = "\""
        for character in key {
            if character == "\\" || character == "\"" { text.append("\\") }
            text.append(character)
        }
        return text + "\""
    }
}

/// Recursive descent over the text form of `TypeShape`.
private struct ShapeParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var atEnd: Bool { index == scalars.count }

    mutating func shape() -> TypeShape? {
        depth += 1
        defer { depth -= 1 }
        guard depth < 200, let first = peek else { return nil }
        var shape: TypeShape
        switch first {
        case "[":
            index += 1
            guard let element = self.shape(), take("]") else { return nil }
            shape = .array(element)
        case "{":
            index += 1
            var fields: [String: TypeShape] = [:]
            while !take("}") {
                if !fields.isEmpty, !take(",") { return nil }
                guard let key = quotedKey(), take(":"), let value = self.shape() else { return nil }
                fields[key] = value
            }
            shape = .object(fields)
        case "(":
            index += 1
            guard let request = self.shape(), take(")"), take("-"), take(">"), let response = self.shape() else {
                return nil
            }
            return .service(request: request, response: response)
        case "'":
            index += 1
            guard let end = scalars[index...].firstIndex(of: "'") else { return nil }
            shape = .opaque(String(String.UnicodeScalarView(scalars[index..<end])))
            index = end + 1
        default:
            let start = index
            while let next = peek,
                next.properties.isAlphabetic || ("0"..."9").contains(next) || next == "_"
                    || next == "."
            {
                index += 1
            }
            guard index > start else { return nil }
            shape = .scalar(String(String.UnicodeScalarView(scalars[start..<index])))
        }
        while take("?") { shape = .optional(shape) }
        return shape
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard peek == scalar else { return false }
        index += 1
        return true
    }

    private mutating func quotedKey() -> String? {
        guard take("\"") else { return nil }
        var key = String.UnicodeScalarView()
        while let next = peek {
            index += 1
            if next == "\"" { return String(key) }
            if next == "\\" {
                guard let escaped = peek else { return nil }
                index += 1
                key.append(escaped)
            } else {
                key.append(next)
            }
        }
        return nil
    }
}

/// A type's name without its module, as `String(describing:)` writes a metatype, but without the casts that makes
/// first (to `TextOutputStreamable`, `CustomStringConvertible`, …), which a metatype never passes and each of which
/// scans every conformance record of every loaded image the first time a type is seen: most of a plugin's load time.
func typeName(_ type: Any.Type) -> String { _typeName(type, qualified: false) }
