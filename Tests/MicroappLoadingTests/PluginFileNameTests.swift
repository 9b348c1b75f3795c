import MicroappLoading
import MicroappPlatform
import TestScratch
import Testing

@Suite("Plugin file names")
struct PluginFileNameTests {
    @Test("a feature's library is lib<Name>.so, and the name reads back from a file or a path", .offThePool)
    func makesAndReadsTheName() {
        #expect(PluginFileName.make("Auth") == "libAuth.so")
        #expect(PluginFileName.feature(of: "libAuth.so") == "Auth")
        #expect(PluginFileName.feature(of: "/home/me/plugins/libCharacters.so") == "Characters")
    }

    @Test("the SDK's library, a bare lib.so and other files are not feature libraries", .offThePool)
    func refusesOtherFiles() {
        #expect(PluginFileName.feature(of: "/build/libMicroappSDK.so") == nil)
        #expect(!PluginFileName.isPlugin("lib.so"))
        #expect(!PluginFileName.isPlugin("libAuth.so.built"))
        #expect(!PluginFileName.isPlugin("Auth.so"))
        #expect(PluginFileName.isPlugin("/x/libAuth.so"))
    }
}
