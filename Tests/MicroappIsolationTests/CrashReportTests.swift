import MicroappIsolation
import MicroappPlatform
import TestScratch
import Testing

@Suite("Crash reports")
struct CrashReportTests {
    /// A crash in a hot-swapped copy, named as HotSwapper names copies: `lib<Feature>-<pid>-<n>.so` in its swaps folder.
    static let swappedCopyCrash = """
        *** Program crashed: Illegal instruction at 0x00007f486790c105 ***

        Platform: x86_64 Linux (Debian GNU/Linux 12 (bookworm))

        Thread 0 "microapp" crashed:

          0                  0x00007f486790c105 closure #1 in CharactersRoot.screen(at:) + 12 in libCharacters-48213-2.so
          1 [ra]             0x000055b14a7523b8 AppRuntime.frame.getter + 71 in microapp at /src/AppRuntime.swift:101:52
          2 [ra]             0x000055b14a752674 main + 19 in microapp

        Images (52 omitted):

        0x000055b14a700000–0x000055b14a800000 a1b2 microapp /src/.build/debug/microapp
        0x00007f4867800000–0x00007f486780c15d e99e libCharacters.so /src/.build/debug/libCharacters.so
        0x00007f486790b000–0x00007f486790c15d e99f libCharacters-48213-2.so /home/u/.cache/microapp/swaps/libCharacters-48213-2.so
        """

    @Test("a crash in a hot-swapped copy names that copy by its full path, not a name made up from it", .offThePool)
    func namesTheSwappedCopy() {
        let crash = CrashReport(Self.swappedCopyCrash)
        let copy = "/home/u/.cache/microapp/swaps/libCharacters-48213-2.so"
        #expect(crash.library(among: ["/src/.build/debug/libCharacters.so", copy]) == copy)
        #expect(crash.crashedThreadImages.first == copy)
        #expect(crash.headline == "Program crashed: Illegal instruction at 0x00007f486790c105")
    }

    /// As the handler of a forked app process writes it (`microapp_crash_report_install`): the runtime's layout with
    /// plain frames (no symbols), the executable mappings as the image list, and a path the kernel marks deleted.
    @Test(
        "a report from a forked app process's own crash handler names the library by full path and address", .offThePool
    )
    func forkedProcessHandlerLayout() {
        let crash = CrashReport(
            """
            *** Program crashed: Illegal instruction at 0x00007f2ed82f9361 ***

            Thread 0 crashed:

            0 0x00007f2ed9a10f3c in libswiftCore.so
            1 0x00007f2ed82f9361 in libCrashy.so
            2 0x0000557c4a7e21f1 in microapp

            Images:

            0x0000557c4a7b4000-0x0000557c4a99c000 microapp /src/.build/release/microapp
            0x00007f2ed82f0000-0x00007f2ed82fa000 libCrashy.so /tmp/b/libCrashy.so (deleted)
            0x00007f2ed8400000-0x00007f2ed840a000 libCrashy.so /tmp/a/libCrashy.so
            0x00007f2ed9800000-0x00007f2ed9b00000 libswiftCore.so /opt/swift/usr/lib/swift/linux/libswiftCore.so
            """)
        #expect(crash.headline == "Program crashed: Illegal instruction at 0x00007f2ed82f9361")
        #expect(crash.library(among: ["/tmp/a/libCrashy.so", "/tmp/b/libCrashy.so"]) == "/tmp/b/libCrashy.so")
        #expect(crash.crashedThreadImages.first == "/opt/swift/usr/lib/swift/linux/libswiftCore.so")
    }

    @Test("two libraries of the same file name are told apart by the address of the crashed frame", .offThePool)
    func sameFileNameDifferentFolders() {
        let text = """
            *** Program crashed: Illegal instruction at 0x00007f0000002010 ***

            Thread 0 "microapp" crashed:

              0 0x00007f0000002010 CrashyRoot.screen(at:) + 12 in libAuth.so
              1 [ra] 0x0000550000000010 main + 19 in microapp

            Images (40 omitted):

            0x00007f0000000000–0x00007f0000001000 aaaa libAuth.so /src/.build/debug/libAuth.so
            0x00007f0000002000–0x00007f0000003000 bbbb libAuth.so /tmp/my plugins/libAuth.so
            """
        let crash = CrashReport(text)
        #expect(
            crash.library(among: ["/src/.build/debug/libAuth.so", "/tmp/my plugins/libAuth.so"])
                == "/tmp/my plugins/libAuth.so")
        #expect(crash.library(among: ["/src/.build/debug/libAuth.so"]) == nil)
    }

    @Test("a crash in the host, the SDK or the toolchain names none of the loaded libraries", .offThePool)
    func noPlugin() {
        let text = """
            *** Program crashed: Segmentation fault at 0x0 ***

            Thread 1 crashed:

              0 0x01 swift_retain + 4 in libswiftCore.so
              1 0x02 Screen.init + 8 in libMicroappSDK.so
              2 0x03 main + 19 in microapp
            """
        let loaded = ["/src/.build/debug/libCharacters.so", "/src/.build/debug/libAuth.so"]
        #expect(CrashReport(text).library(among: loaded) == nil)
        #expect(CrashReport(text).crashedThreadImages == ["libswiftCore.so", "libMicroappSDK.so", "microapp"])
        #expect(CrashReport("").library(among: loaded) == nil)
    }
}
