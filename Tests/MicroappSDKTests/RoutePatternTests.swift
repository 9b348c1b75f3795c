import MicroappSDK
import TestScratch
import Testing

@Suite("Route patterns")
struct RoutePatternTests {
    @Test("a pattern with a parameter matches and binds it", .offThePool)
    func bindsParameters() throws {
        let pattern = try RoutePattern("characters://detail/{id}")
        #expect(pattern.match("characters://detail/42") == ["id": "42"])
        #expect(pattern.description == "characters://detail/{id}")
    }

    @Test("literal segments, scheme and segment count must all agree", .offThePool)
    func rejectsNonMatches() throws {
        let pattern = try RoutePattern("characters://detail/{id}")
        #expect(pattern.match("characters://list/42") == nil)
        #expect(pattern.match("search://detail/42") == nil)
        #expect(pattern.match("characters://detail") == nil)
        #expect(pattern.match("characters://detail/42/more") == nil)
        #expect(pattern.match("characters://detail//") == nil)
    }

    @Test(
        "malformed patterns are refused with the reason",
        .offThePool,
        arguments: [
            ("no-scheme/path", "no scheme"),
            ("Caps://x", "scheme 'Caps'"),
            ("x://a//b", "empty path segment"),
            ("x://a/{id}/{id}", "appears twice"),
            ("x://a/pre{id}", "mixes text and a parameter"),
        ])
    func refusesMalformed(pattern: String, reason: String) {
        #expect {
            try RoutePattern(pattern)
        } throws: { error in
            (error as? RouteError)?.reason.contains(reason) == true
        }
    }

    @Test(
        "schemes and parameter names are read by their Characters, ASCII or not",
        .offThePool,
        arguments: [
            ("café://x/{id}", true), ("x2-y://x/{id_2}", true), ("x://x/{名前}", true), ("Ca\u{301}fe://x", false),
            ("x_y://x", false), ("x://x/{a-b}", false), ("x://x/{i\u{301}}", true),
        ])
    func charactersAnyScript(pattern: String, accepted: Bool) {
        #expect(((try? RoutePattern(pattern)) != nil) == accepted)
    }

    @Test("two patterns overlap when some URL matches both", .offThePool)
    func overlaps() throws {
        let detail = try RoutePattern("x://detail/{id}")
        #expect(detail.overlaps(try RoutePattern("x://detail/new")))
        #expect(detail.overlaps(try RoutePattern("x://{any}/{thing}")))
        #expect(!detail.overlaps(try RoutePattern("x://list/{id}")))
        #expect(!detail.overlaps(try RoutePattern("y://detail/{id}")))
    }
}
