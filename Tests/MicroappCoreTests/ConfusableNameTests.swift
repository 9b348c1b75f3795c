import MicroappCore
import MicroappSDK
import TestScratch
import Testing

/// Names as people read them: look-alikes of a name another feature (or the host) keeps are refused as
/// `name-confusable`, naming the name they look like; a name of invisible characters or scripts mixed in a word is
/// refused whatever else is loaded.
@Suite("Origin: names compared as people read them (UTS #39)")
struct ConfusableNameTests {
    /// Look-alikes of "Settings": the four from the issue, then Cyrillic letters, joiners and a mark.
    static let lookAlikes = [
        "Sett\u{034F}ings",  // combining grapheme joiner
        "Settings\u{3164}",  // Hangul filler
        "Settings\u{FE0F}",  // variation selector
        "\u{FF33}ettings",  // fullwidth S
        "\u{0405}ettings",  // Cyrillic DZE
        "S\u{0435}tt\u{0456}ngs",  // Cyrillic ie and i
        "Set\u{200D}tings",  // zero-width joiner
        "Sett\u{200B}ings",  // zero-width space
        "\u{202D}Settings",  // left-to-right override
        "\u{202E}sgnitteS",  // right-to-left override: drawn as "Settings"
        "SETTINGS",
    ]

    @Test(
        "each look-alike of the reserved Settings is refused to an untrusted feature, as its name or its tab's title",
        .offThePool, arguments: lookAlikes)
    func lookAlikeOfAReservedName(_ name: String) throws {
        for (display, tab) in [(name, "Lurk"), ("Lurker", name)] {
            let lurker = OriginRulesTests.candidate("lurker", name: display, tab: tab, trust: .untrusted)
            let alone = DependencyResolver.resolve([lurker], hostOffers: [:], rules: OriginRulesTests.demoRules)
            let problem = try #require(alone.disabled["lurker"], "\(name.unicodeScalars.map(\.value))")
            #expect(problem.code == (name == "SETTINGS" ? .nameTaken : .nameConfusable))
            let said = name == "SETTINGS" ? "SETTINGS" : name.hasPrefix("\u{202E}") ? "U+202E" : "looks like 'Settings'"
            #expect(problem.reason.contains(said), "\(problem.reason)")
            let withOwner = DependencyResolver.resolve(
                [lurker, OriginRulesTests.candidate("settings", tab: "Settings")], hostOffers: [:],
                rules: OriginRulesTests.demoRules)
            #expect(withOwner.startOrder == ["settings"])
        }
    }

    @Test(
        "a look-alike that is not the same name says which name it looks like; the same name in other case is name-taken",
        .offThePool)
    func confusableNamesTheOriginal() throws {
        let cyrillic = OriginRulesTests.candidate("lurker", name: "\u{0405}ettings", trust: .untrusted)
        let problem = try #require(
            DependencyResolver.resolve([cyrillic], hostOffers: [:], rules: OriginRulesTests.demoRules).disabled[
                "lurker"])
        #expect(problem.code == .nameConfusable)
        #expect(problem.reason.contains("looks like 'Settings' (it mixes Cyrillic and Latin"), "\(problem.reason)")
        #expect(problem.reason.contains("reserves for its own settings"), "\(problem.reason)")

        let taken = try #require(
            DependencyResolver.resolve(
                [OriginRulesTests.candidate("lurker", name: "settings ", trust: .untrusted)], hostOffers: [:],
                rules: OriginRulesTests.demoRules
            ).disabled["lurker"])
        #expect(taken.code == .nameTaken)

        // Between two plugins, not reserved: the later Ｎotes looks like Notes.
        let pair = DependencyResolver.resolve(
            [
                OriginRulesTests.candidate("one", name: "Notes"),
                OriginRulesTests.candidate("two", name: "N\u{043E}tes"),
            ],
            hostOffers: [:])
        #expect(pair.startOrder == ["one"])
        #expect(pair.disabled["two"]?.code == .nameConfusable)
    }

    @Test(
        "a name of invisible characters only, with a direction control, or mixing scripts in one word, is refused alone",
        .offThePool,
        arguments: ["\u{3164}", "\u{115F}\u{1160}", "\u{200B}\u{200D}", "\u{202E}", "P\u{0430}y", "\u{0412}ank Bank"])
    func unreadableNames(_ name: String) throws {
        let lurker = OriginRulesTests.candidate("lurker", name: name, trust: .untrusted)
        let problem = try #require(DependencyResolver.resolve([lurker], hostOffers: [:]).disabled["lurker"])
        #expect(problem.code == .nameConfusable)
        #expect(
            ["invisible", "mixes", "direction control"].contains { problem.reason.contains($0) }, "\(problem.reason)")
        let asTab = OriginRulesTests.candidate("lurker", name: "Lurker", tab: name, trust: .untrusted)
        #expect(
            DependencyResolver.resolve([asTab], hostOffers: [:]).disabled["lurker"]?.reason.contains("tab title")
                == true)
    }

    @Test(
        "names people read differently pass: other words, scripts in separate words, one script per word", .offThePool)
    func distinctNamesPass() {
        let features = [
            OriginRulesTests.candidate("one", name: "Settings"), OriginRulesTests.candidate("two", name: "Setting"),
            OriginRulesTests.candidate("three", name: "Москва Moscow"),
            OriginRulesTests.candidate("four", name: "東京 Tokyo"),
            OriginRulesTests.candidate("five", name: "Café"), OriginRulesTests.candidate("six", name: "Ελλάδα"),
        ]
        let resolution = DependencyResolver.resolve(features, hostOffers: [:])
        #expect(resolution.problems.isEmpty, "\(resolution.problems)")
    }

    @Test(
        "the skeleton folds the issue's look-alikes and Cyrillic to one key; the defect names the scripts", .offThePool)
    func skeletonKeys() {
        let keys = Set((Self.lookAlikes.filter { !$0.hasPrefix("\u{202E}") } + ["Settings"]).map(NameSkeleton.key))
        #expect(keys.count == 1)
        #expect(NameSkeleton.key("\u{3164}").isEmpty)
        #expect(NameSkeleton.defect("\u{0405}ettings") == "mixes Cyrillic and Latin in the word 'ѕettings'")
        #expect(NameSkeleton.defect("Settings") == nil)
    }
}
