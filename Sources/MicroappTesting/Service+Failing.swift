import MicroappSDK

extension Service {
    /// A service that throws `error` on its first `count` calls, then answers like `service`: for retry tests.
    public static func failing(first count: Int, with error: ServiceError, then service: Self) -> Self {
        let calls = CallCounter()
        return Self { (request: Request) async throws -> Response in
            guard await calls.next() > count else { throw error }
            return try await service(request)
        }
    }
}

/// Counts calls made from any thread.
private actor CallCounter {
    private var calls = 0

    /// The number of this call, starting at 1.
    func next() -> Int {
        calls += 1
        return calls
    }
}
