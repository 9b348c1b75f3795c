import CommandLineSpec
import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform
import MicroappShipping

/// `microapp keygen [--name NAME]`: makes the team's Ed25519 release key pair and prints the public key to share.
enum KeygenCommand: Command {
    static let keyName = OptionSpec.value(
        "--name", "NAME", .text, default: "team", help: "the key's name in your keys folder (default team)")

    static let declaration = CommandSpec(
        "microapp keygen",
        summary: "make a release key pair; the private key stays in your config folder, the public key is printed",
        options: [keyName],
        discussion: """
            Writes $XDG_CONFIG_HOME/microapp/keys/NAME.key (mode 0600, in a 0700 folder; ~/.config without the
            variable) and NAME.pub, and prints the public key (ed25519:<base64>) for others to trust with
            `microapp trust`. A key is never overwritten. Exit 1 when NAME is taken.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        let folders = ReleaseFolders(environment: arguments.environment)
        let name = arguments[keyName]
        switch ReleaseKeyFile.generate(name, in: folders) {
        case .success(let key):
            Console.out(KeyText.text(of: key.publicKey))
            Console.err("key \(KeyText.id(of: key.publicKey)) written to \(folders.privateKey(name)) (keep it private)")
            return .ok
        case .failure(let problem): throw problem
        }
    }
}

/// `microapp trust KEY --name TEAM --feature ID…`: adds a publisher's public key to the person's trust list, for the
/// features it may sign; `--remove TEAM` takes one off and `--list` shows them.
enum TrustCommand: Command {
    static let teamName = OptionSpec.value("--name", "TEAM", .text, help: "the name you trust the key under")
    static let feature = OptionSpec.repeatable(
        "--feature", "ID", .text, help: "a feature id the key may sign (give one for each; at least one)")
    static let remove = OptionSpec.value(
        "--remove", "TEAM", .text, help: "stop trusting the key trusted as TEAM (a stolen or retired key)")
    static let list = OptionSpec.flag(
        "--list", help: "print the trusted keys, one `TEAM KEY ID…` per line (the ids each may sign)")

    static let declaration = CommandSpec(
        "microapp trust",
        summary: "trust a publisher's public key (ed25519:<base64>) to sign the features you name, under a name",
        operands: [.optional("KEY")],
        options: [teamName, feature, remove, list],
        discussion: """
            Adds KEY to $XDG_CONFIG_HOME/microapp/trusted-keys.json under TEAM (replacing what TEAM was), for the
            feature ids given with --feature and no others: an index entry or release of another id signed by it is
            refused before anything is downloaded (key-scope). There are no wildcards; the app's own features (its
            sign-in, session owner and reserved names) are taken only from a key that names them. A list written
            before keys were scoped is read, and each of its keys signs nothing until trusted again with --feature.
            Only indexes and releases signed by a trusted key are used: after --remove TEAM, nothing TEAM's key
            signed is taken again (what is installed stays until you roll it back). Exit 1 when KEY is not a public
            key, no --feature is given, or TEAM is not on the list.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        let store = ReleaseStore(folders: ReleaseFolders(environment: arguments.environment))
        let current: TrustList
        switch store.trustList() {
        case .success(let found): current = found
        case .failure(let problem): throw problem
        }
        if arguments[list] {
            for name in current.keys.keys.sorted() {
                let ids = current.features[name] ?? []
                let scope = ids.isEmpty ? "(no feature: trust it again with --feature ID)" : ids.joined(separator: " ")
                Console.out("\(name) \(current.keys[name]!) \(scope)".sanitized)
            }
            return .ok
        }
        if let name = arguments[remove] {
            guard let shorter = current.removing(name) else {
                throw Problem.usage(
                    "no key is trusted as '\(name)'", fix: "run `microapp trust --list` for the names you trust")
            }
            if let problem = store.save(shorter) { throw problem }
            Console.out("no longer trusted: \(name)")
            return .ok
        }
        guard let key = arguments.operands.first, arguments.operands.count == 1 else {
            throw Problem.usage(
                "trust takes exactly one KEY", fix: "write `microapp trust ed25519:… --name TEAM --feature ID`")
        }
        guard let name = arguments[teamName], ReleaseLayout.isFileName(name) else {
            throw Problem.usage(
                "trust needs --name TEAM", fix: "write `microapp trust \(key) --name TEAM --feature ID`")
        }
        let ids = arguments[feature]
        if let bad = ids.first(where: { !ReleaseLayout.isFileName($0) }) {
            throw Problem.usage(
                "'\(bad)' is not a feature id", fix: "write the id its manifest gives, e.g. --feature characters")
        }
        guard !ids.isEmpty else {
            throw Problem.usage(
                "trust needs at least one --feature ID: a key is trusted for named features, never for everything",
                fix: "write `microapp trust \(key) --name \(name) --feature ID` with one --feature per id it may sign")
        }
        guard let trusted = current.trusting(key, as: name, for: ids) else {
            throw Problem.usage(
                "'\(key)' is not a public key", fix: "copy the line `microapp keygen` printed: ed25519:<base64>")
        }
        if let problem = store.save(trusted) { throw problem }
        let scope = trusted.features[name] ?? []
        Console.out("trusted \(name) for \(scope.joined(separator: ", ")): \(key)".sanitized)
        let own = scope.filter(host.hostFeatures.contains)
        if !own.isEmpty {
            Console.err(
                "note: \(own.joined(separator: ", ")) \(own.count == 1 ? "is" : "are") this app's own (sign-in, session, reserved names): \(name)'s releases of \(own.count == 1 ? "it" : "them") will replace the app's own"
                    .sanitized)
        }
        return .ok
    }
}

/// `microapp publish RELEASE --channel DIR [--key NAME]`: adds a release folder to a channel folder and signs the
/// new index.
enum PublishCommand: Command {
    static let channel = OptionSpec.value("--channel", "DIR", .text, help: "the channel folder (made when missing)")
    static let key = OptionSpec.value(
        "--key", "NAME", .text, default: "team", help: "the publisher's key in your keys folder (default team)")
    static let days = OptionSpec.value(
        "--expires-in", "DAYS", .text, default: "7", help: "days until the new index expires (default 7)")

    static let declaration = CommandSpec(
        "microapp publish",
        summary: "add a release folder to a channel and sign its new index",
        operands: [.required("RELEASE")],
        options: [channel, key, days],
        discussion: """
            Checks RELEASE (release.json signed by a key you trust, its library and manifest as signed), copies it to
            DIR/releases/<feature>/<version>/ and writes a new DIR/index.json (version one higher, expiring after
            --expires-in days) and its signature index.json.sig by --key. Refused when the channel has that version
            or a newer one, or when DIR's index was not signed by --key. Any web server can serve DIR.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        guard let release = arguments.operands.first, arguments.operands.count == 1 else {
            throw Problem.usage(
                "publish takes exactly one RELEASE folder", fix: "write `microapp publish DIR --channel DIR`")
        }
        guard let folder = arguments[channel] else {
            throw Problem.usage("publish needs --channel DIR", fix: "write `microapp publish \(release) --channel DIR`")
        }
        guard let lifetime = Double(arguments[days]), lifetime > 0, lifetime <= 365 else {
            throw Problem.usage(
                "--expires-in takes a number of days from 1 to 365 (hosts refuse an index that expires more than 366 "
                    + "days ahead)", fix: "write e.g. --expires-in 7")
        }
        let folders = ReleaseFolders(environment: arguments.environment)
        let signing = try NameSuggestions.signingKey(arguments[key], in: folders)
        let trust: TrustList
        switch ReleaseStore(folders: folders).trustList() {
        case .success(let found): trust = found
        case .failure(let problem): throw problem
        }
        switch ChannelFolder.publish(
            release, to: folder, key: signing, trust: trust, now: arguments.environment.date(),
            lifetime: lifetime * 24 * 3600)
        {
        case .success(let publication):
            Console.out("published \(publication.folder) in \(folder): index version \(publication.index.version)")
            return .ok
        case .failure(let problem): throw problem
        }
    }
}
