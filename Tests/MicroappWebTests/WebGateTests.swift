import Testing

@testable import MicroappWeb

/// The checks every request passes, as values: token, cookie, Host and Origin.
@Suite struct WebGateTests {
    let gate = WebGate(token: "secret-token", port: 8123)

    func request(
        _ method: String = "GET", path: String = "/", token: String? = nil, host: String? = "127.0.0.1:8123",
        origin: String? = nil, cookie: String? = nil
    ) -> WebRequest {
        WebRequest(
            method: method, path: path, token: token, host: host, origin: origin,
            cookies: cookie.map { ["microapp-8123": $0] } ?? [:], body: [])
    }

    @Test("the token in the address is exchanged for a cookie and the browser sent on without it")
    func tokenAdmits() {
        #expect(gate.check(request(token: "secret-token")) == .admit(path: "/"))
        #expect(gate.cookie == "microapp-8123=secret-token; Path=/; HttpOnly; SameSite=Strict")
        #expect(gate.url == "http://127.0.0.1:8123/?token=secret-token")
    }

    @Test("the cookie lets every later request in, from 127.0.0.1 or localhost")
    func cookiePasses() {
        #expect(gate.check(request(path: "/events", cookie: "secret-token")) == .pass)
        #expect(gate.check(request(path: "/app.js", host: "localhost:8123", cookie: "secret-token")) == .pass)
    }

    @Test("no token, a wrong one, or one of the same length that differs in its last character is refused with 403")
    func wrongTokensAreRefused() {
        for refused in [
            request(), request(token: "secret-tokeN"), request(token: "secret"), request(cookie: "secret-tokeX"),
            request("POST", path: "/event", token: "secret-token", origin: "http://127.0.0.1:8123"),
        ] {
            guard case .refuse(let status, let reason, let fix) = gate.check(refused) else {
                Issue.record("let in: \(refused)")
                continue
            }
            #expect(status == 403)
            #expect(reason.contains("token") && fix.contains("URL"))
        }
    }

    @Test("a Host that is not the bound address is refused even with the right cookie (DNS rebinding)")
    func foreignHostsAreRefused() {
        for host in ["attacker.example:8123", "127.0.0.1:9999", "127.0.0.1", nil] {
            let verdict = gate.check(request(host: host, cookie: "secret-token"))
            guard case .refuse(let status, _, _) = verdict else {
                Issue.record("Host \(host ?? "(none)") let in")
                continue
            }
            #expect(status == 421)
        }
    }

    @Test("a POST must come from the page's own origin: none, another site's, or another port is refused")
    func postsNeedTheirOrigin() {
        #expect(
            gate.check(request("POST", path: "/event", origin: "http://127.0.0.1:8123", cookie: "secret-token"))
                == .pass)
        for origin in ["https://attacker.example", "http://127.0.0.1:9999", "null", nil] {
            let verdict = gate.check(request("POST", path: "/event", origin: origin, cookie: "secret-token"))
            guard case .refuse(let status, let reason, _) = verdict else {
                Issue.record("a POST from \(origin ?? "(none)") let in")
                continue
            }
            #expect(status == 403 && reason.contains("origin"))
        }
    }

    @Test("new tokens are 64 hex digits and differ each time")
    func tokensAreRandom() {
        let tokens = (0..<20).map { _ in WebGate.newToken() }
        #expect(Set(tokens).count == 20)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
    }
}
