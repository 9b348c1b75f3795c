import Foundation
import MicroappSDK

/// Service calls across the feature protocol, as both ends make and answer them: the calls this side made and
/// still waits on (by id), and the answering of the peer's calls from local services.
@MainActor
public final class ServiceCalls {
    private var waiting: [UInt64: CheckedContinuation<Data, any Error>] = [:]
    private var nextID: UInt64 = 0
    private var failure: ServiceError?

    /// No calls yet.
    public init() {}

    /// True while calls this side made wait for their replies.
    public var inFlight: Bool { !waiting.isEmpty }

    /// Sends a call through `send` (given the call's id) and waits for its reply.
    public func call(_ key: String, _ request: Data, send: (FeatureMessage) -> Bool) async throws -> Data {
        if let failure { throw failure }
        nextID += 1
        let id = nextID
        return try await withCheckedThrowingContinuation { continuation in
            waiting[id] = continuation
            if !send(.serviceCall(id: id, key: key, request: request)) {
                waiting[id] = nil
                continuation.resume(
                    throwing: ServiceError(code: "unavailable", message: "the other side of '\(key)' is gone"))
            }
        }
    }

    /// Delivers a reply; answers false when no call with that id is waiting (a reply out of turn).
    public func deliver(id: UInt64, response: Data?, error: ServiceError?) -> Bool {
        guard let continuation = waiting.removeValue(forKey: id) else { return false }
        if let response {
            continuation.resume(returning: response)
        } else {
            continuation.resume(
                throwing: error ?? ServiceError(code: "bad-response", message: "the reply carried no response"))
        }
        return true
    }

    /// Fails every waiting call and every later one with `error` (the peer is gone).
    public func failAll(_ error: ServiceError) {
        failure = error
        let calls = waiting
        waiting = [:]
        for continuation in calls.values { continuation.resume(throwing: error) }
    }

    /// Answers the peer's call `id` with `service` (nil: nothing under that key), replying through `send`.
    public static func answer(
        id: UInt64, key: String, request: Data, with service: ErasedService?,
        send: @escaping @MainActor (FeatureMessage) -> Void
    ) {
        guard let service else {
            send(
                .serviceReply(
                    id: id, response: nil,
                    error: ServiceError(code: "unavailable", message: "no service '\(key)' is provided here")))
            return
        }
        Task { @MainActor in
            do {
                send(.serviceReply(id: id, response: try await service.call(request), error: nil))
            } catch let error as ServiceError {
                send(.serviceReply(id: id, response: nil, error: error))
            } catch {
                send(.serviceReply(id: id, response: nil, error: ServiceError(code: "failed", message: "\(error)")))
            }
        }
    }
}
