import DemoServices
import Foundation
import MicroappSDK
import Synchronization
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Session file and data directory")
struct SessionFileTests {
    let rick = Session(accountID: "1", email: "rick@example.com", name: "Rick Sanchez")
    let morty = Session(accountID: "2", email: "morty@example.com", name: "Morty Smith")

    @Test("the data directory is created with mode 0700, each missing folder too", .offThePool)
    func dataDirectory() throws {
        let root = TemporaryDirectory()
        let data = try DataDirectory(root.file("a/b/microapp"), environment: .process)
        #expect(data.path == root.file("a/b/microapp"))
        for folder in ["a", "a/b", "a/b/microapp"] { #expect(mode(root.file(folder)) == 0o700) }
        #expect(data.sessionPath == root.file("a/b/microapp/session.json"))
    }

    @Test("the default is $XDG_DATA_HOME/microapp, else ~/.local/share/microapp", .offThePool)
    func defaultPath() {
        #expect(
            DataDirectory.defaultPath(environment: .stated(["XDG_DATA_HOME": "/x/data", "HOME": "/h"]))
                == "/x/data/microapp")
        #expect(
            DataDirectory.defaultPath(environment: .stated(["XDG_DATA_HOME": "relative", "HOME": "/h"]))
                == "/h/.local/share/microapp")
        #expect(DataDirectory.defaultPath(environment: .stated(["HOME": "/h"])) == "/h/.local/share/microapp")
    }

    @Test("saving writes JSON with mode 0600 by replacing the file, and leaves no temporary file", .offThePool)
    func atomicSave() throws {
        let directory = TemporaryDirectory()
        let file = SessionFile(path: directory.file("session.json"))
        #expect(file.load() == .signedOut)
        try file.save(rick)
        #expect(mode(file.path) == 0o600)
        #expect(file.load() == .signedIn(rick))
        let firstInode = inode(file.path)
        try file.save(morty)
        #expect(inode(file.path) != firstInode)  // renamed over, not rewritten in place
        #expect(file.load() == .signedIn(morty))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["session.json"])
        try file.save(nil)
        #expect(file.load() == .signedOut)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    @Test("a reader never sees half a file while another thread keeps replacing it", .offThePool)
    func readersSeeWholeFiles() throws {
        let directory = TemporaryDirectory()
        let file = SessionFile(path: directory.file("session.json"))
        try file.save(rick)
        let done = Mutex(false)
        let (rick, morty) = (rick, morty)
        let writer = Thread {
            for index in 0..<300 { try? file.save(index.isMultiple(of: 2) ? morty : rick) }
            done.withLock { $0 = true }
        }
        writer.start()
        var reads = 0
        while !done.withLock({ $0 }) || reads < 50 {
            let loaded = file.load()
            #expect(loaded == .signedIn(rick) || loaded == .signedIn(morty))
            reads += 1
        }
    }

    @Test(
        "a damaged session file is signed out and reported, never a crash",
        .offThePool,
        arguments: [
            Data("{\"accountID\": \"1\", \"email\"".utf8), Data([0xFF, 0x00, 0x13, 0x37]), Data(),
            Data("{\"accountID\": 1}".utf8), Data(repeating: 0x20, count: 70_000),
        ])
    func corrupt(bytes: Data) throws {
        let directory = TemporaryDirectory()
        let file = SessionFile(path: directory.file("session.json"))
        try bytes.write(to: URL(fileURLWithPath: file.path))
        guard case .unreadable(let problem) = file.load() else {
            Issue.record("a damaged file loaded as \(file.load())")
            return
        }
        #expect(problem.kind == .corrupt)
        #expect(problem.reason == "the saved session is damaged; starting signed out")
        #expect(problem.description.contains(file.path) && problem.description.contains("to fix: sign in again"))
        // Saving over it works.
        try file.save(rick)
        #expect(file.load() == .signedIn(rick))
    }

    @Test("temporary files of processes that died mid-write are cleaned up; live ones are left alone", .offThePool)
    func leftovers() throws {
        let directory = TemporaryDirectory()
        let file = SessionFile(path: directory.file("session.json"))
        let dead = directory.file(".session.json.\(try deadProcessID()).42.tmp")
        let live = directory.file(".session.json.\(getpid()).43.tmp")
        #expect(FileManager.default.createFile(atPath: dead, contents: Data("{\"acc".utf8)))
        #expect(FileManager.default.createFile(atPath: live, contents: Data()))
        #expect(file.load() == .signedOut)
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live))
    }

    private func inode(_ path: String) -> UInt {
        var info = stat()
        return stat(path, &info) == 0 ? UInt(info.st_ino) : 0
    }

    /// The id of a process that has exited.
    private func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
