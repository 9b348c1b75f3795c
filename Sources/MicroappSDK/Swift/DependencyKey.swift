/// A typed name for something a feature needs: a service (`Service<Request, Response>`) or shared state.
///
/// A feature lists its keys' `requirement`s in its manifest and takes the values from its `FeatureContext`; the
/// host's resolver matches each requirement with what is offered by id, type name and access before anything
/// starts. `microapp keys` lists what the host offers.
///
/// ```swift
/// static let page = DependencyKey<Service<PageRequest, CharacterPage>>.service("characters.page")
///     .described("One page of the characters list")
/// static let session = DependencyKey<Session?>.session(access: .read)
///
/// let characters = try await context.service(page)(PageRequest(page: 1))
/// ```
public struct DependencyKey<Value>: Sendable {
    /// The string id the host's container knows it by.
    public let id: String
    /// Service or state.
    public let kind: DependencyKind
    /// How the feature uses it.
    public let access: Access
    /// Whether the feature can run without it.
    public let isOptional: Bool
    /// The structure of the value as it crosses the boundary (JSON), compared by the resolver with the provider's.
    public let shape: TypeShape
    /// One line saying what it is, shown by `microapp keys`; set it with `described(_:)` where the key is declared.
    public private(set) var summary: String?

    /// The type name compared by the resolver; unqualified, so host and plugin modules may both declare the shape.
    public var typeName: String { MicroappSDK.typeName(Value.self) }

    /// A service key; services are always used with read access.
    public static func service(_ id: String, optional: Bool = false) -> DependencyKey
    where Value: ServiceProtocol {
        DependencyKey(id: id, kind: .service, access: .read, isOptional: optional, shape: Value.shape)
    }

    /// A shared-state key, read or read-write. State crosses as a value of a Codable type: each feature decodes its
    /// own copy, so the type may be declared in the feature's module as long as its shape matches the host's.
    public static func state(_ id: String, access: Access, optional: Bool = false) -> DependencyKey
    where Value: Codable {
        DependencyKey(id: id, kind: .state, access: access, isOptional: optional, shape: .of(Value.self))
    }

    /// The same key with a one-line summary of what it offers, e.g.
    /// `.service("search.recent").described("The signed-in account's recent queries")`.
    public func described(_ summary: String) -> DependencyKey {
        var key = self
        key.summary = summary
        return key
    }

    /// The requirement this key stands for in a manifest.
    public var requirement: Requirement { Requirement(self) }
}

/// Why a feature could not get one of its dependencies.
public struct DependencyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key asked for.
    public var key: String
    /// What went wrong.
    public var reason: String
    /// What to do about it.
    public var fix: String

    /// Creates an error.
    public init(key: String, reason: String, fix: String) {
        self.key = key
        self.reason = reason
        self.fix = fix
    }

    /// `dependency 'key': reason; to fix: fix`.
    public var description: String { "dependency '\(key)': \(reason); to fix: \(fix)" }
}
