import Foundation
import MicroappSDK
import TestScratch
import Testing

@Suite("Manifest coding")
struct ManifestCodingTests {
    @Test("a manifest survives encode and decode", .offThePool)
    func roundTrip() throws {
        let manifest = FeatureManifest(
            id: "auth", version: 3, displayName: "Auth", routes: [RouteDeclaration("auth://select", isSignIn: true)],
            requirements: [DependencyKey<Session?>.session(access: .readWrite).requirement], hasMocks: true)
        #expect(try ManifestCoding.decode(ManifestCoding.encode(manifest)) == manifest)
    }

    @Test(
        "bad manifests are refused with a reason naming the fault",
        .offThePool,
        arguments: [
            ("{not json", "not valid JSON"),
            (
                #"{"id":"a","version":1,"routes":[],"requirements":[],"provides":[],"hasMocks":false}"#,
                "'displayName' is missing"
            ),
            (
                #"{"id":"a","version":"one","displayName":"A","routes":[],"requirements":[],"provides":[],"hasMocks":false}"#,
                "'version' has the wrong type"
            ),
            (
                #"{"id":"Bad Id","version":1,"displayName":"A","routes":[{"pattern":"a://x","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false}"#,
                "id 'Bad Id'"
            ),
            (
                #"{"id":"a","version":1,"displayName":"A","routes":[],"requirements":[],"provides":[],"hasMocks":false}"#,
                "declares no routes"
            ),
            (
                #"{"id":"a","version":1,"displayName":"A","routes":[{"pattern":"a://x/{id}","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false,"tab":{"title":"A","route":"a://x/{id}","order":1}}"#,
                "tab.route 'a://x/{id}' is not one of the feature's routes without parameters"
            ),
            (
                #"{"id":"a","version":1,"displayName":"A","routes":[{"pattern":"a://x","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false,"tab":{"title":"A","route":"a://y","order":1}}"#,
                "tab.route 'a://y'"
            ),
            (
                #"{"id":"a","version":1,"displayName":"A","routes":[{"pattern":"a://x","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false,"tab":{"title":" ","route":"a://x","order":1}}"#,
                "tab.title is empty"
            ),
        ])
    func refuses(json: String, reason: String) {
        #expect {
            try ManifestCoding.decode(json)
        } throws: { error in
            (error as? ManifestError)?.reason.contains(reason) == true
        }
    }

    @Test("a tab survives encode and decode; a manifest written before tabs existed decodes without one", .offThePool)
    func tab() throws {
        let manifest = FeatureManifest(
            id: "search", version: 1, displayName: "Search", routes: [RouteDeclaration("search://home")],
            tab: TabDeclaration(title: "Search", route: "search://home", order: 20))
        #expect(try ManifestCoding.decode(ManifestCoding.encode(manifest)).tab == manifest.tab)
        let older =
            #"{"id":"a","version":1,"displayName":"A","routes":[{"pattern":"a://x","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false}"#
        #expect(try ManifestCoding.decode(older).tab == nil)
        var untabbed = manifest
        untabbed.tab = nil
        #expect(!(try ManifestCoding.encode(untabbed)).contains("tab"), "no tab, no key: older hosts read it as before")
    }

    @Test(
        "a manifest that is not UTF-8 is refused, naming the offset of the first bad byte, never repaired", .offThePool)
    func invalidUTF8() throws {
        let valid = Array(try ManifestCoding.encode(TestManifests.manifest("bytes")).utf8)
        let offset = try #require(valid.firstIndex(of: UInt8(ascii: "B")))
        var bytes = valid
        bytes[offset] = 0xFF
        #expect {
            try ManifestCoding.decode(utf8: bytes)
        } throws: { error in
            let error = error as? ManifestError
            return error?.reason.contains("not valid UTF-8: byte \(offset) (0xFF)") == true
                && error?.fix.contains("MicroappEntry.export") == true
        }
        #expect(try ManifestCoding.decode(utf8: valid).displayName == "Bytes")
    }

    @Test("a manifest nested 100 000 deep is refused as too deep, naming the limit, not as invalid JSON", .offThePool)
    func tooDeep() {
        let depth = 100_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect {
            try ManifestCoding.decode(nested)
        } throws: { error in
            (error as? ManifestError)?.reason
                == "it nests arrays and objects \(depth) deep, over the limit of \(ManifestCoding.maximumDepth)"
        }
    }

    @Test("brackets inside strings do not count as nesting", .offThePool)
    func bracketsInStrings() throws {
        let deepName = String(repeating: "[", count: ManifestCoding.maximumDepth + 1) + "\\\"{"
        var manifest = TestManifests.manifest("brackets")
        manifest.displayName = deepName
        #expect(try ManifestCoding.decode(ManifestCoding.encode(manifest)).displayName == deepName)
    }

    @Test("a manifest over the size limit is refused before parsing", .offThePool)
    func tooLarge() {
        let huge = String(repeating: " ", count: ManifestCoding.maximumSize + 1)
        #expect {
            try ManifestCoding.decode(huge)
        } throws: { error in
            (error as? ManifestError)?.reason.contains("over the limit") == true
        }
    }
}

@Suite("Manifest capabilities (SDK 1.1)")
struct ManifestCapabilityTests {
    static let base =
        #"{"id":"a","version":1,"displayName":"A","routes":[{"pattern":"a://x","requiresSession":false,"isSignIn":false}],"requirements":[],"provides":[],"hasMocks":false"#

    @Test("a manifest of SDK 1.0, without the field, decodes as declaring no capabilities", .offThePool)
    func absentIsEmpty() throws {
        #expect(try ManifestCoding.decode(Self.base + "}").capabilities == [])
    }

    @Test("a manifest declaring none encodes without the field, as SDK 1.0 did", .offThePool)
    func noneIsOmitted() throws {
        let manifest = FeatureManifest(id: "a", version: 1, displayName: "A", routes: [RouteDeclaration("a://x")])
        #expect(!(try ManifestCoding.encode(manifest)).contains("capabilities"))
    }

    @Test("capabilities are names in a list, and one the SDK does not know still decodes", .offThePool)
    func namesRoundTrip() throws {
        let manifest = try ManifestCoding.decode(Self.base + #","capabilities":["network","files:scratch","camera"]}"#)
        #expect(manifest.capabilities == [.network, .scratchFiles, Capability(rawValue: "camera")])
        #expect(try ManifestCoding.encode(manifest).contains(#""capabilities":["network","files:scratch","camera"]"#))
    }

    @Test("a capability name with spaces, capitals or control characters is refused", .offThePool)
    func badNameRefused() {
        for name in ["", "Network", "files: scratch", "net\\u001b[2Jwork"] {
            #expect(throws: ManifestError.self, "\(name)") {
                try ManifestCoding.decode(Self.base + #","capabilities":[""# + name + #""]}"#)
            }
        }
    }
}
