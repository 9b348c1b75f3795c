/// A value bound to a statement's parameter or read from a result column.
public enum SQLValue: Sendable, Equatable {
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])
    /// SQL NULL.
    case null
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    /// A text value.
    public init(stringLiteral value: String) { self = .text(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// NULL.
    public init(nilLiteral: ()) { self = .null }
}

/// One result row, read by column index.
public struct Row: Sendable, Equatable {
    /// The columns' values in select order.
    public var values: [SQLValue]

    /// Creates a row.
    public init(_ values: [SQLValue]) { self.values = values }

    /// The integer in column `index`, nil when it is not an integer.
    public func integer(_ index: Int) -> Int64? {
        guard values.indices.contains(index), case .integer(let value) = values[index] else { return nil }
        return value
    }

    /// The text in column `index`, nil when it is not text.
    public func text(_ index: Int) -> String? {
        guard values.indices.contains(index), case .text(let value) = values[index] else { return nil }
        return value
    }
}
