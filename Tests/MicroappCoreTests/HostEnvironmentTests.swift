import Foundation
import MicroappCore
import TestScratch
import Testing

/// The environment a host runs in, as one value: XDG folders by one rule, paths from its own current directory.
@Suite("HostEnvironment")
struct HostEnvironmentTests {
    static func environment(_ variables: [String: String], home: String? = "/home/rick") -> HostEnvironment {
        HostEnvironment(
            variables: variables, home: home, temporaryFolder: "/scratch", currentDirectory: "/work/here",
            now: { ContinuousClock().now }, date: { Date() })
    }

    @Test(
        "an XDG folder is the variable's absolute path, else its default under home: a relative one is ignored",
        .offThePool)
    func oneXDGRule() {
        let set = Self.environment([
            "XDG_CACHE_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/g",
        ])
        #expect(XDGFolder.allCases.map { set.folder($0) } == ["/d", "/c", "/s", "/g"])
        let relative = Self.environment([
            "XDG_CACHE_HOME": "cache", "XDG_DATA_HOME": "./d", "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": "g",
        ])
        #expect(
            XDGFolder.allCases.map { relative.folder($0) } == [
                "/home/rick/.local/share", "/home/rick/.cache", "/home/rick/.local/state", "/home/rick/.config",
            ])
    }

    @Test("without a home or a variable there is no XDG folder, and a relative home counts as none", .offThePool)
    func noHome() {
        #expect(Self.environment([:], home: nil).folder(.data) == nil)
        #expect(Self.environment([:], home: "relative/home").folder(.cache) == nil)
        #expect(Self.environment(["XDG_DATA_HOME": "/d"], home: nil).folder(.data) == "/d")
    }

    @Test("a relative path is from the environment's current directory; an empty variable is an unset one", .offThePool)
    func pathsAndVariables() {
        let environment = Self.environment(["EMPTY": "", "SET": "1"])
        #expect(environment.absolutePath("a/b") == "/work/here/a/b")
        #expect(environment.absolutePath("/x") == "/x")
        #expect(environment["EMPTY"] == nil && environment["SET"] == "1" && environment["UNSET"] == nil)
        #expect(environment.setting("SET", to: nil)["SET"] == nil)
    }
}
