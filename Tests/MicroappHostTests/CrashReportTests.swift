import MicroappHost
import Testing

@Suite("Crash reports")
struct CrashReportTests {
    static let report = """
        *** Program crashed: Illegal instruction at 0x00007f486790c105 ***

        Platform: x86_64 Linux (Debian GNU/Linux 12 (bookworm))

        Thread 0 "microapp" crashed:

          0                  0x00007f486790c105 closure #1 in CharactersRoot.screen(at:) + 12 in libCharacters-3.so
          1 [ra]             0x000055b14a7523b8 AppRuntime.frame.getter + 71 in microapp at AppRuntime.swift:101:52
          2 [ra]             0x000055b14a752674 main + 19 in microapp

        Images (52 omitted):

        0x00007f486790b000–0x00007f486790c15d e99f libCharacters-3.so /tmp/swaps/libCharacters-3.so
        """

    @Test("the innermost plugin frame of the crashed thread names the library, a swap copy by its own name")
    func namesThePlugin() {
        let crash = CrashReport(Self.report)
        #expect(crash.pluginLibrary == "libCharacters.so")
        #expect(crash.headline == "Program crashed: Illegal instruction at 0x00007f486790c105")
    }

    @Test("a crash in the host, the SDK or the toolchain names no plugin")
    func noPlugin() {
        let text = """
            *** Program crashed: Segmentation fault at 0x0 ***

            Thread 1 crashed:

              0 0x01 swift_retain + 4 in libswiftCore.so
              1 0x02 Screen.init + 8 in libMicroappSDK.so
              2 0x03 main + 19 in microapp
            """
        #expect(CrashReport(text).pluginLibrary == nil)
        #expect(CrashReport("").pluginLibrary == nil)
    }
}
