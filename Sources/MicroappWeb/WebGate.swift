/// The checks every request passes before the front end looks at it, so that a server on loopback is safe on a shared
/// machine: only someone given the printed URL gets in (a secret token, then a cookie); a page of another site cannot
/// reach it by a name that resolves to 127.0.0.1 (DNS rebinding: the `Host` must be the bound address) nor make the
/// person's browser post to it (a POST's `Origin` must be the page's own).
struct WebGate: Sendable {
    /// The secret in the printed URL.
    let token: String
    /// The port the server listens on.
    let port: UInt16

    /// What becomes of a request.
    enum Verdict: Equatable, Sendable {
        /// It may go on.
        case pass
        /// The token came in the address: keep it in a cookie and send the browser to `path` without it.
        case admit(path: String)
        /// Refused with an HTTP status, the reason and the fix.
        case refuse(status: Int, reason: String, fix: String)
    }

    /// The cookie that carries the token after the first load; its name holds the port, as two apps on one machine
    /// share the cookies of 127.0.0.1 whatever their ports.
    var cookieName: String { "microapp-\(port)" }

    /// The `Set-Cookie` value that keeps the token: not readable by scripts, never sent by another site's page.
    var cookie: String { "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// The names the server answers to: the bound address and `localhost`, with the port.
    var hosts: [String] { ["127.0.0.1:\(port)", "localhost:\(port)"] }

    /// The URL to print: the bound address with the token.
    var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

    /// The verdict on `request`.
    func check(_ request: WebRequest) -> Verdict {
        guard let host = request.host, hosts.contains(host.lowercased()) else {
            return .refuse(
                status: 421,
                reason: "the request names the host '\(request.host ?? "")', not this app's address",
                fix: "open the URL the app printed (\(hosts[0]))")
        }
        if request.method == "POST" {
            guard let origin = request.origin, hosts.contains(where: { "http://\($0)" == origin.lowercased() }) else {
                return .refuse(
                    status: 403,
                    reason: "a POST from the origin '\(request.origin ?? "(none)")', not from this app's page",
                    fix: "use the app's own page")
            }
        }
        if let offered = request.cookies[cookieName], Self.same(offered, token) { return .pass }
        if request.method == "GET", let offered = request.token, Self.same(offered, token) {
            return .admit(path: request.path)
        }
        return .refuse(
            status: 403, reason: "the request carries no valid token",
            fix: "open the URL with ?token=… that the app printed when it started")
    }

    /// Compares two tokens in time that depends only on their lengths.
    static func same(_ offered: String, _ token: String) -> Bool {
        let left = Array(offered.utf8)
        let right = Array(token.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// A new secret: 32 random bytes from the system's generator, as hex.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
