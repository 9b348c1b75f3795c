import Foundation
import MicroappPlatform
import MicroappShipping
import TestScratch
import Testing

@Suite("Channel sources")
struct ChannelSourceTests {
    @Test(
        "a channel is an http(s) URL, else a folder; each is named one way, the key of what was seen from it",
        .offThePool)
    func namesAChannelOneWay() {
        let web = ChannelSource("https://cdn.example.test/stable/", currentDirectory: "/home/p")
        #expect(web == .web(URL(string: "https://cdn.example.test/stable")!))
        #expect(web.location(of: "index.json") == "https://cdn.example.test/stable/index.json")
        #expect(ChannelSource("channel/", currentDirectory: "/home/p") == .folder("/home/p/channel"))
        #expect(ChannelSource("../shared/./channel", currentDirectory: "/home/p") == .folder("/home/shared/channel"))
        #expect(ChannelSource("file:///srv/channel", currentDirectory: "/home/p") == .folder("/srv/channel"))
        #expect(
            ChannelSource("HTTPS://cdn.example.test/stable", currentDirectory: "/") == web,
            "a scheme's name is case-insensitive")
        #expect(
            ChannelSource("ftp://example.test/c", currentDirectory: "/") != .web(URL(string: "ftp://example.test/c")!))
    }
}
