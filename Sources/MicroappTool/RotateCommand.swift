import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform
import MicroappShipping

/// `microapp rotate OLD NEW --channel DIR`: the publisher's key OLD announces NEW in the channel and the index is
/// re-signed by NEW; every machine that trusts OLD trusts NEW in its place at its next update.
enum RotateCommand: Command {
    static let channel = OptionSpec.value("--channel", "DIR", .text, help: "the channel folder whose key rotates")

    static let declaration = CommandSpec(
        "microapp rotate",
        summary: "replace a channel's signing key: the old key announces the new one, which re-signs the index",
        operands: [.required("OLD"), .required("NEW")],
        options: [channel, PublishCommand.days],
        discussion: """
            OLD and NEW are key names in your keys folder (`microapp keygen --name NEW` first). Checks that DIR's index
            is signed by OLD, appends to DIR/rotations.json an announcement that NEW replaces OLD, signed by OLD, and
            re-signs the index by NEW (one version up, expiring after --expires-in days). A machine that trusts OLD
            follows the announcement at its next update: NEW is trusted under the same name for the same feature
            ids, and OLD no more, so an index OLD signs afterwards is refused. Your own trust list follows it now.
            Sign and publish later releases with the key NEW. Exit 1 when a key is missing or DIR's index is not OLD's.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        guard arguments.operands.count == 2 else {
            throw Problem.usage("rotate takes OLD and NEW", fix: "write `microapp rotate team team-2026 --channel DIR`")
        }
        let (oldName, newName) = (arguments.operands[0], arguments.operands[1])
        guard let folder = arguments[channel] else {
            throw Problem.usage(
                "rotate needs --channel DIR", fix: "write `microapp rotate \(oldName) \(newName) --channel DIR`")
        }
        guard let lifetime = Double(arguments[PublishCommand.days]), lifetime > 0 else {
            throw Problem.usage("--expires-in takes a number of days", fix: "write e.g. --expires-in 7")
        }
        let folders = ReleaseFolders(environment: arguments.environment)
        var keys: [Ed25519.PrivateKey] = []
        for name in [oldName, newName] {
            switch ReleaseKeyFile.read(name, in: folders) {
            case .success(let key): keys.append(key)
            case .failure(let problem): throw problem
            }
        }
        let rotations: RotationFile
        switch ChannelFolder.rotate(
            folder, from: keys[0], to: keys[1], now: arguments.environment.date(), lifetime: lifetime * 24 * 3600)
        {
        case .success(let file): rotations = file
        case .failure(let problem): throw problem
        }
        Console.out(
            "rotated \(folder): \(oldName) (\(KeyText.id(of: keys[0].publicKey))) → \(newName) (\(KeyText.id(of: keys[1].publicKey))); the index is signed by \(newName)"
                .sanitized)
        let store = ReleaseStore(folders: folders)
        if case .success(let trust) = store.trustList() {
            let (followed, notes) = trust.following(rotations)
            if !notes.isEmpty, store.save(followed) == nil {
                for note in notes { Console.out("trust: \(note)".sanitized) }
            }
        }
        Console.out("next: publish with --key \(newName)".sanitized)
        return .ok
    }
}
