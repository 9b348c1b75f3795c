import Foundation
import MicroappLoading
import MicroappPlatform

/// What each source of a module was (its SHA-256) when the module was last compiled, kept in a file beside the build.
/// The Swift driver cannot tell on its own: its build record keeps modification times in whole seconds (swiftc 6.3),
/// so a file saved again within the second of the save it last compiled looks unchanged and is skipped — a library
/// of the older bytes announced as the newer save. Deleting the object of each source whose bytes changed makes the
/// driver compile that source whatever the times say.
struct CompiledSources {
    /// The file the digests are kept in.
    let record: String
    /// Each source's object, as the module's output file map names them.
    let objects: [String: String]

    /// Deletes the object of each source whose bytes differ from those recorded, and returns the digests as they are
    /// now, to `save` once the compile has run (read before it, so a save during the compile counts as a change next
    /// time). Without a record (the first replay after a SwiftPM build) the bytes compiled are not known: the object
    /// of each source saved in the whole second its object was written, or later, is deleted — the driver's
    /// whole-second record cannot tell such a save from the one it compiled (a save right after SwiftPM's build was
    /// replayed from the older bytes: a library announced as the newer save).
    func forgetChanged() -> [String: String] {
        let recorded = Files.contents(record).flatMap {
            try? JSONDecoder().decode([String: String].self, from: $0)
        }
        var digests: [String: String] = [:]
        for (source, object) in objects {
            let digest = try? PluginLock.digest(of: source)
            digests[source] = digest
            let changed =
                if let recorded { digest == nil || recorded[source] != digest } else {
                    Self.second(of: source) >= Self.second(of: object)
                }
            if changed { try? Files.remove(object) }
        }
        return digests
    }

    /// The whole second `path` was last modified in (0 when it is missing).
    private static func second(of path: String) -> Int { FileStamp.modified(path) / 1_000_000_000 }

    /// Records `digests` as the bytes the module was last compiled from.
    func save(_ digests: [String: String]) {
        guard let data = try? JSONEncoder().encode(digests) else { return }
        try? Files.makeDirectory((record as NSString).deletingLastPathComponent)
        _ = Files.write(data, to: record)
    }

    /// Runs `compile` after forgetting the objects of changed sources, then records what it was compiled from.
    func compiling<Result>(_ compile: () -> Result) -> Result {
        let digests = forgetChanged()
        let result = compile()
        save(digests)
        return result
    }

    /// The object of each source of the compile `command`, from its `-output-file-map`; empty without one.
    static func objects(of command: [String]) -> [String: String] {
        ShadowBuild.value(of: "-output-file-map", in: command).map(objects(inOutputFileMap:)) ?? [:]
    }

    /// The object of each source in the output file map at `path` (SwiftPM's format); empty when it cannot be read.
    static func objects(inOutputFileMap path: String) -> [String: String] {
        guard let data = Files.contents(path),
            let map = try? JSONDecoder().decode([String: [String: String]].self, from: data)
        else { return [:] }
        return map.compactMapValues { $0["object"] }.filter { !$0.key.isEmpty }
    }
}
