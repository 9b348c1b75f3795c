import MicroappCore
import MicroappSDK
import TestScratch
import Testing

// Inputs the fuzzers (`scripts/fuzz`) found breaking an invariant of Benchmarks/Fuzz/Invariants.swift, minimized.
// The bug they found: URLs were split into Characters, and a '/' that a combining mark, a zero-width joiner or a
// variation selector joins into one grapheme was not a separator. URLs are now cut at the '/' byte.

@Suite("Fuzz regressions: route patterns and the route table")
struct RouteFuzzRegressionTests {
    @Test(
        "a URL built by filling a parameter matches with that value",
        .offThePool,
        arguments: [
            "\u{301}",  // combining acute accent: joins the '/' before it
            "\u{301}x",
            "\u{200D}x",  // zero-width joiner
            "\u{FE0F}",  // variation selector
            "1\u{600}",  // Arabic number sign (prepended): joins the '/' after it
        ])
    func filledURLMatches(value: String) throws {
        let pattern = try RoutePattern("a://b/{x}/list")
        #expect(pattern.match("a://b/\(value)/list") == ["x": value])
    }

    @Test("a parameter is one segment: it never binds a '/'", .offThePool)
    func parameterHoldsNoSlash() throws {
        let pattern = try RoutePattern("a://b/{x}")
        #expect(pattern.match("a://b/c/\u{301}d") == nil)  // three segments, the pattern has two
        let single = try RoutePattern("x://{p}")
        #expect(single.match("x://a/\u{200D}b") == nil)
    }

    @Test("the route table does not send a longer URL to a shorter route with a '/' in its parameter", .offThePool)
    func tableKeepsSegments() throws {
        let manifest = FeatureManifest(
            id: "a", version: 1, displayName: "A",
            routes: [RouteDeclaration("a://detail/{id}"), RouteDeclaration("a://detail/{id}/edit")])
        let table = RouteTable([manifest])
        let match = table.match("a://detail/7/\u{301}edit")
        #expect(
            match == nil
                || match?.location.parameters.values.allSatisfy { !$0.unicodeScalars.contains("/") } == true)
    }

    @Test("overlapping patterns: a URL that matches one-segment and two-segment patterns alike", .offThePool)
    func overlapsAgreeWithMatch() throws {
        // libFuzzer's find: the URL below matched both, yet the patterns (different segment counts) do not overlap.
        let two = try RoutePattern("x://\u{E9}/{p}")
        let one = try RoutePattern("x://{q}")
        #expect(!two.overlaps(one) && !one.overlaps(two))
        let url = "x://\u{E9}/\u{301}\u{E}"
        #expect(two.match(url) == ["p": "\u{301}\u{E}"])
        #expect(one.match(url) == nil)
    }
}
