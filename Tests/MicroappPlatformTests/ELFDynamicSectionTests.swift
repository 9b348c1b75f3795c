import Foundation
import MicroappCore
import MicroappPlatform
import MicroappShipping
import TestPlugins
import TestScratch
import Testing

@Suite("ELF dynamic section: the libraries a file needs, its RUNPATH, and that RUNPATH rewritten in place")
struct ELFDynamicSectionTests {
    /// A private copy of the real libCharacters.so `swift test` built.
    private static func copyOfCharacters() throws -> String {
        let copy = Scratch.folder("elf").appendingPathComponent("libCharacters.so").path
        try FileManager.default.copyItem(atPath: Paths.runnerDirectory + "/libCharacters.so", toPath: copy)
        return copy
    }

    @Test("a plugin needs the SDK and the Swift runtime, and searches the toolchain's folder and its own", .offThePool)
    func readsNeededAndRunpath() throws {
        let section = try ELFDynamicSection.read(Paths.runnerDirectory + "/libCharacters.so").get()
        #expect(section.needed.contains("libMicroappSDK.so"))
        #expect(section.needed.contains("libswiftCore.so"))
        #expect(section.runpath?.hasSuffix("$ORIGIN") == true, "\(section.runpath ?? "none")")
    }

    @Test(
        "a RUNPATH rewritten to $ORIGIN/../lib reads back so, with the same needed libraries and the same size",
        .offThePool)
    func rewritesRunpathInPlace() throws {
        let copy = try Self.copyOfCharacters()
        let before = try ELFDynamicSection.read(copy).get()
        let size = try Data(contentsOf: URL(fileURLWithPath: copy)).count
        try ELFDynamicSection.rewriteRunpath(of: copy, to: "$ORIGIN/../lib")
        let after = try ELFDynamicSection.read(copy).get()
        #expect(after.runpath == "$ORIGIN/../lib")
        #expect(after.needed == before.needed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)).count == size)
        #expect(after.searchFolders(forFileAt: "/app/plugins/libCharacters.so") == ["/app/plugins/../lib"])
    }

    @Test("a RUNPATH longer than the one written is refused, and the file is left as it was", .offThePool)
    func refusesLongerRunpath() throws {
        let copy = try Self.copyOfCharacters()
        let before = try Data(contentsOf: URL(fileURLWithPath: copy))
        let long = String(repeating: "/very/long/folder", count: 10)
        #expect(throws: Problem.self) { try ELFDynamicSection.rewriteRunpath(of: copy, to: long) }
        do {
            try ELFDynamicSection.rewriteRunpath(of: copy, to: long)
        } catch {
            #expect(error.code == "runpath-not-rewritable")
            #expect(error.reason.contains("is shorter than"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before)
    }

    @Test("a file that is not ELF has no dynamic section", .offThePool)
    func notELF() throws {
        let file = Scratch.folder("elf").appendingPathComponent("notes.txt").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data(repeating: 0x41, count: 200)))
        guard case .failure(let error) = ELFDynamicSection.read(file) else {
            Issue.record("a text file read as ELF")
            return
        }
        #expect(error.reason.contains("not a 64-bit little-endian ELF file"))
    }

    @Test(
        "needed libraries are found through RUNPATH transitively (ICU only through Foundation); libc is the system's",
        .offThePool)
    func resolvesTransitively() throws {
        let resolved = try NeededLibraries.resolve([Paths.runnerDirectory + "/libCharacters.so"]).get()
        let names = resolved.found.map(\.name)
        #expect(names.contains("libswiftCore.so"))
        #expect(names.contains("libMicroappSDK.so"))
        #expect(names.contains("lib_FoundationICU.so"))
        #expect(
            !(try ELFDynamicSection.read(Paths.runnerDirectory + "/libCharacters.so").get().needed
                .contains("lib_FoundationICU.so")))
        #expect(resolved.system.contains("libc.so.6"))
        #expect(!names.contains("libc.so.6"))
    }
}
