import Foundation
import TestScratch

/// A copy of this repository in a temporary folder, without `.build` and `.git`: a package of its own, so `swift build`
/// may run there with its own build lock (never in the repository `swift test` is running in, which holds its lock).
struct RepositoryCopy: Sendable {
    /// The copy's root folder (its `Package.swift`), symbolic links resolved as SwiftPM sees it.
    let root: URL

    /// Copies `Repository.root`, leaving out build folders and Git's.
    static func make() async throws -> RepositoryCopy {
        try await offThePool {
            let folder = try temporaryFolder("microapp-repository").resolvingSymlinksInPath()
            try copyTree(from: Repository.root, to: folder)
            return RepositoryCopy(root: folder)
        }
    }

    /// Runs `body` on the one copy this test process shares, lent to one body at a time. The copy is made once and
    /// its builds are kept, so the next body's `swift build` compiles only what changed (the SDK and the demo's
    /// contracts once for every suite, not once per suite). A body may change the files at `restoring` (repository
    /// paths): afterwards, whether it threw or not, each that was a file gets its bytes back and each that did not
    /// exist is removed, so every body starts from a copy of the repository. Removed with the test's scratch folder.
    static func usingShared(restoring paths: [String], _ body: (RepositoryCopy) async throws -> Void) async throws {
        let copy = try await SharedBuilds.shared.value(of: "repository-copy") { try await make() }
        await Lender.shared.borrow()
        let files = paths.map { copy.root.appendingPathComponent($0) }
        let saved = files.map { try? Data(contentsOf: $0) }
        var failure: (any Error)?
        do { try await body(copy) } catch { failure = error }
        let restored = Result {
            for (file, bytes) in zip(files, saved) {
                if let bytes { try bytes.write(to: file) } else { try? FileManager.default.removeItem(at: file) }
            }
        }
        await Lender.shared.giveBack()
        if let failure { throw failure }
        try restored.get()
    }

    /// Runs `body` on a new copy and removes the copy afterwards, whether `body` threw or not.
    static func using(_ body: (RepositoryCopy) async throws -> Void) async throws {
        let copy = try await make()
        do {
            try await body(copy)
        } catch {
            await copy.remove()
            throw error
        }
        await copy.remove()
    }

    /// Builds `product` with a real `swift build`, stopped after `timeout`; returns the folder the libraries were
    /// written to. At normal priority: this build and the saves after it are the longest chain of the test run, and
    /// at the lowest one every other build on the machine went first.
    func build(product: String, timeout: Duration) async throws -> URL {
        let root = root
        let (status, out, err) = try await runToEnd(
            [
                "timeout", "--kill-after=10", "\(timeout.components.seconds)", "swift", "build",
                // No entry in the user's shared manifest cache for a folder that is deleted a minute later.
                "--product", product, "--manifest-cache", "none",
            ], executable: "/usr/bin/env", in: root)
        let output = out + err
        guard status == 0 else {
            let why = status == 124 ? "did not finish within \(timeout)" : "failed (exit \(status))"
            throw AppProcessError(
                "`swift build --product \(product)` in a copy of the repository (\(root.path)) \(why); the last of its output:\n"
                    + output.split(separator: "\n").suffix(40).joined(separator: "\n")
                    + "\nto fix: build it there by hand to see why; put the Swift toolchain on PATH if `swift` is not found"
            )
        }
        // SwiftPM's `.build/debug` is a link to `.build/<triple>/debug`: the folder `--show-bin-path` names.
        let folder = root.appendingPathComponent(".build/debug").resolvingSymlinksInPath()
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("lib\(product).so").path) else {
            throw AppProcessError(
                "`swift build --product \(product)` succeeded but wrote no lib\(product).so in \(folder.path)")
        }
        return folder
    }

    /// Runs `swift ARGUMENTS` (`build --product X`) in the copy, stopped after `timeout`, with SwiftPM's manifest
    /// cache on as people have it, but in a cache folder of the copy's own (`--cache-path`, under the test's scratch
    /// folder): what the build claims is about the cache a person has, and the person's own cache gets no entry for a
    /// folder deleted a minute later. Returns the exit status and everything it wrote.
    func swift(_ arguments: [String], timeout: Duration) async throws -> (status: Int32, output: String) {
        let cache = root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "-swiftpm-cache")
        let (status, out, err) = try await runToEnd(
            ["timeout", "--kill-after=10", "\(timeout.components.seconds)", "swift"] + arguments + [
                "--cache-path", cache.path,
            ], executable: "/usr/bin/env", in: root)
        return (status, out + err)
    }

    /// Deletes the copy, its build and its SwiftPM cache.
    func remove() async {
        let root = root
        _ = try? await offThePool {
            try? FileManager.default.removeItem(
                at: root.deletingLastPathComponent().appendingPathComponent(root.lastPathComponent + "-swiftpm-cache"))
            try FileManager.default.removeItem(at: root)
        }
    }

    /// The shared copy's one borrower at a time, the others waiting in the order they asked.
    private actor Lender {
        static let shared = Lender()
        private var lent = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func borrow() async {
            guard lent else {
                lent = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func giveBack() {
            if waiting.isEmpty { lent = false } else { waiting.removeFirst().resume() }
        }
    }

    /// Copies the files under `source` into `destination`, skipping `.git`, `.swiftpm` and every `.build` folder (a
    /// package's build, even a nested one such as the SDK package's, is large and not part of the sources).
    private static func copyTree(from source: URL, to destination: URL) throws {
        let files = FileManager.default
        for name in try files.contentsOfDirectory(atPath: source.path) {
            guard name != ".git", name != ".swiftpm", name != ".build", !name.hasPrefix(".build-"),
                !name.hasPrefix(".build_")
            else { continue }
            let from = source.appendingPathComponent(name)
            let to = destination.appendingPathComponent(name)
            let type = try files.attributesOfItem(atPath: from.path)[.type] as? FileAttributeType
            if type == .typeDirectory {
                try files.createDirectory(at: to, withIntermediateDirectories: false)
                try copyTree(from: from, to: to)
            } else {
                try files.copyItem(at: from, to: to)
            }
        }
    }
}
