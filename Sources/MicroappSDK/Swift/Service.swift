import Foundation

/// A service crosses the plugin boundary as bytes, so host and plugins (and two versions of one plugin) only
/// have to agree on the JSON shape of the request and the response, never on one Swift type.
public protocol ServiceProtocol: Sendable {
    /// The byte-level form the container stores.
    var erased: ErasedService { get }
    /// Rebuilds the typed service from the byte-level form.
    init(erased: ErasedService)
    /// What callers send and what the service answers, as JSON sees them.
    static var shape: TypeShape { get }
}

extension ServiceProtocol {
    /// A service type that does not say its shape is known by its name only.
    public static var shape: TypeShape { .opaque(typeName(Self.self)) }
}

/// A service reduced to JSON in, JSON out; the container stores this.
public struct ErasedService: Sendable {
    /// Calls the service with an encoded request, returning the encoded response or throwing `ServiceError`.
    public let call: @Sendable (Data) async throws -> Data

    /// Wraps a byte-level handler.
    public init(_ call: @escaping @Sendable (Data) async throws -> Data) { self.call = call }
}

/// An async request/response service with Codable types on both sides.
public struct Service<Request: Codable & Sendable, Response: Codable & Sendable>: ServiceProtocol {
    /// The byte-level form.
    public let erased: ErasedService

    /// Rebuilds the typed service from the byte-level form.
    public init(erased: ErasedService) { self.erased = erased }

    /// The shapes of `Request` and `Response`.
    public static var shape: TypeShape { .service(request: .of(Request.self), response: .of(Response.self)) }

    /// Implements a service with a typed closure; any error it throws reaches callers as a `ServiceError`.
    public init(_ body: @escaping @Sendable (Request) async throws -> Response) {
        erased = ErasedService { bytes in
            let request: Request
            do {
                request = try JSONDecoder().decode(Request.self, from: bytes)
            } catch {
                throw ServiceError(code: "bad-request", message: "the request did not match \(Request.self)")
            }
            do {
                return try JSONEncoder().encode(try await body(request))
            } catch let error as ServiceError {
                throw error
            } catch {
                throw ServiceError(code: "failed", message: String(describing: error))
            }
        }
    }

    /// Calls the service.
    public func callAsFunction(_ request: Request) async throws(ServiceError) -> Response {
        let requestBytes: Data
        do {
            requestBytes = try JSONEncoder().encode(request)
        } catch {
            throw ServiceError(code: "bad-request", message: "could not encode \(Request.self)")
        }
        let responseBytes: Data
        do {
            responseBytes = try await erased.call(requestBytes)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(code: "failed", message: String(describing: error))
        }
        do {
            return try JSONDecoder().decode(Response.self, from: responseBytes)
        } catch {
            throw ServiceError(code: "bad-response", message: "the response did not match \(Response.self)")
        }
    }
}

/// A request or response with no fields, for services such as `signOut`.
public struct Nothing: Codable, Sendable, Equatable {
    /// The empty value.
    public init() {}
}

/// The one error type that crosses the plugin boundary: a machine-readable code and a message for people.
public struct ServiceError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// A stable code features switch on (`wrong-password`, `account-exists`, `unavailable`).
    public var code: String
    /// What happened, in words a person understands.
    public var message: String

    /// Creates an error.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// `message (code)`.
    public var description: String { "\(message) (\(code))" }
}
