import CommandLineSpec
import Foundation
import MicroappCore
import MicroappHost
import MicroappLoading
import MicroappPlatform
import MicroappShipping

/// The plugin folder the update commands work on: `--plugins DIR`, else the host's own (beside this executable, or
/// an installed app's `plugins/`: where `run` finds its libraries first).
enum UpdateOptions {
    static let plugins = OptionSpec.value(
        "--plugins", "DIR", .text,
        help: "the plugin folder (default: the folder beside this executable, an installed app's plugins/)")

    static func folder(_ arguments: Arguments) -> String {
        let given = arguments[plugins] ?? PluginLocations.current().pluginDirectory.path
        let absolute = given.hasPrefix("/") ? given : arguments.environment.currentDirectory + "/" + given
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }

    /// An updater of the folder `arguments` name from `channel` (none: for versions and rollback), probing with the
    /// host's probe as `--allow-unsandboxed` says.
    static func updater(_ arguments: Arguments, channel: ChannelSource = .folder("")) -> Updater {
        let environment = arguments.environment
        let sandbox = SandboxCheck.here(arguments)
        return Updater(
            channel: channel, plugins: folder(arguments), environment: environment,
            screening: PluginScreening(environment: environment, allowingUnsandboxed: sandbox.unsandboxed))
    }

    /// What a change of the folder by hand means for an app already running from it: it keeps `keeping` until it
    /// restarts (it loaded its libraries at its start, and a channel it follows does not go back).
    static func runningAppNote(keeping: String) -> String {
        "note: an app already running from this folder keeps \(keeping) until it restarts"
    }

    /// The feature `name` names in `updater`'s folder: its id, or its library's name (`Characters` for
    /// `libCharacters.so`), either case.
    static func feature(_ name: String, in updater: Updater) throws(Problem) -> Updater.Feature {
        let features = updater.features()
        let found = features.values.first { feature in
            feature.id.lowercased() == name.lowercased()
                || PluginFileName.feature(of: feature.library.path)?.lowercased() == name.lowercased()
        }
        guard let found else {
            let running = features.isEmpty ? "no feature" : features.keys.sorted().joined(separator: ", ")
            throw Problem(
                code: .noSuchFeature, subject: name,
                reason: "\(updater.versions.plugins) runs no such feature (it runs \(running))",
                fix: "name a feature by its id or its library's name, or the folder with --plugins DIR")
        }
        return found
    }
}

/// `microapp update --channel URL|DIR [--plugins DIR]`: installs what the channel has newer for the folder's features.
enum UpdateCommand: Command {
    static let channel = OptionSpec.value(
        "--channel", "URL|DIR", .text, help: "the channel: an http(s):// URL or a folder (its top, with index.json)")

    static let declaration = CommandSpec(
        "microapp update",
        summary: "install what a channel has newer for a plugin folder's features, verified, beside the old versions",
        options: [channel, UpdateOptions.plugins, CommonOptions.probeUnsandboxed],
        discussion: """
            Reads the channel's index (signed by a key you trust, not expired, not older than one seen before), and
            for each feature the folder runs takes the newest release this host may load (its SDK, never back, not
            marked bad). Each file is downloaded no further than the index's size and checked against its hash; the
            release's signed record must say what the index says. A release is kept in DIR/.versions/<feature>/
            <version>/ and becomes the running lib<F>.so with one rename, pinned in DIR/plugins.lock when the folder
            has one. Any refused download and nothing is changed. Exit 0 when nothing was refused, 1 otherwise.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        guard let text = arguments[channel] else {
            throw Problem.usage("update needs --channel URL|DIR", fix: "write `microapp update --channel URL`")
        }
        let source = try NameSuggestions.channel(text, currentDirectory: arguments.environment.currentDirectory)
        let updater = UpdateOptions.updater(arguments, channel: source)
        let now = arguments.environment.date()
        let report = await BlockingWork.run { updater.update(now: now) }
        for note in report.notes { Console.out("trust: \(note)".sanitized) }
        for installed in report.installed {
            Console.out(
                "installed \(installed.feature) \(installed.from.map(String.init) ?? "?") → \(installed.to): \(installed.library)"
                    .sanitized)
        }
        if !report.installed.isEmpty { Console.out(UpdateOptions.runningAppNote(keeping: "the versions it loaded")) }
        for skipped in report.skipped { Console.err(skipped, label: "skipped") }
        Console.report(report.refused)
        if report.installed.isEmpty && report.refused.isEmpty {
            Console.out("up to date: \(source.name)".sanitized)
        }
        return report.refused.isEmpty ? .ok : .usage
    }
}

/// `microapp versions NAME [--plugins DIR]`: the versions of a feature kept in a plugin folder, which one runs, and
/// the bad marks.
enum VersionsCommand: Command {
    static let declaration = CommandSpec(
        "microapp versions",
        summary: "list the versions of a feature kept in a plugin folder, which one runs, and those marked bad",
        operands: [.required("NAME")],
        options: [UpdateOptions.plugins, CommonOptions.probeUnsandboxed, CommonOptions.json],
        discussion: """
            NAME is the feature's id or its library's name. The current version (*, "running" in JSON), what an
            app starts with (an app already running keeps what it loaded until it restarts), is the kept one whose
            library's bytes are DIR/lib<F>.so's; a library put there by hand, with no kept version, is the version its
            manifest gives (read by the sandboxed probe). Marked versions are never installed again by update.
            With --json, one object per version, newest first: {"feature","version","running","kept","channel",
            "installed","bad","badSince","untrusted"} (channel, installed, bad, badSince and untrusted null when they do
            not apply). A version from a channel whose signed record no longer verifies against your trust list (its
            key taken off it) is marked untrusted: rollback never runs it again.
            """)

    /// One version of a feature as `--json` writes it.
    struct Row: Encodable {
        /// The feature's id.
        var feature: String
        /// The version.
        var version: Int
        /// Whether it is the folder's current version (`lib<F>.so`, what an app starts with).
        var running: Bool
        /// Whether the folder keeps its library under `.versions/`.
        var kept: Bool
        /// The channel it came from; nil for a library put in the folder by hand.
        var channel: String?
        /// When it was put in the folder, when kept.
        var installed: Date?
        /// Why it is marked bad, when it is.
        var bad: String?
        /// When it was marked bad.
        var badSince: Date?
        /// Why it may not run again (its key is no longer trusted), when it may not.
        var untrusted: String?

        func encode(to encoder: any Encoder) throws {
            var object = encoder.container(keyedBy: CodingKeys.self)
            try object.encode(feature, forKey: .feature)
            try object.encode(version, forKey: .version)
            try object.encode(running, forKey: .running)
            try object.encode(kept, forKey: .kept)
            try object.encode(channel, forKey: .channel)
            try object.encode(installed.map { ISO8601DateFormatter().string(from: $0) }, forKey: .installed)
            try object.encode(bad, forKey: .bad)
            try object.encode(badSince.map { ISO8601DateFormatter().string(from: $0) }, forKey: .badSince)
            try object.encode(untrusted, forKey: .untrusted)
        }

        enum CodingKeys: String, CodingKey {
            case feature, version, running, kept, channel, installed, bad, badSince, untrusted
        }
    }

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        guard let name = arguments.operands.first else {
            throw Problem.usage("versions needs NAME", fix: "write `microapp versions Characters`")
        }
        let updater = UpdateOptions.updater(arguments)
        let feature = try UpdateOptions.feature(name, in: updater)
        let versions = updater.versions
        let kept = versions.kept(feature.id)
        let marks = versions.bad(feature.id)
        let trust = updater.store.trustList()
        var listed = Set(kept.map(\.version))
        listed.insert(feature.version)
        let rows = listed.sorted(by: >).map { version in
            let record = kept.first { $0.version == version }
            let mark = marks.mark(of: version)
            return Row(
                feature: feature.id, version: version, running: version == feature.version, kept: record != nil,
                channel: record?.channel, installed: record?.installed, bad: mark?.reason, badSince: mark?.marked,
                untrusted: record.flatMap { record in
                    switch trust {
                    case .success(let list): versions.distrust(of: record, under: list)?.reason
                    case .failure(let problem): problem.reason
                    }
                })
        }
        if arguments[CommonOptions.json] {
            rows.forEach(Console.json)
            return .ok
        }
        Console.out(
            "\(feature.id) in \(versions.plugins): \((feature.library.path as NSString).lastPathComponent) (* current: "
                + "what an app starts with; an app already running keeps the version it loaded until it restarts)")
        for row in rows {
            var line = "\(row.running ? "*" : " ") \(row.version)"
            if row.running { line += "  current" }
            if row.kept {
                line += "  \(row.channel.map { "from \($0)" } ?? "kept from the folder")"
            } else {
                line += "  not kept (put in the folder by hand; its manifest says \(row.version))"
            }
            if let bad = row.bad { line += "  bad: \(bad)" }
            if let untrusted = row.untrusted { line += "  untrusted: \(untrusted)" }
            Console.out(line.sanitized)
        }
        return .ok
    }
}

/// `microapp rollback NAME [--plugins DIR] [--to VERSION]`: goes back to a kept version by hand.
enum RollbackCommand: Command {
    static let version = OptionSpec.value(
        "--to", "VERSION", .text, help: "the kept version to run (default: the newest older one not marked bad)")

    static let declaration = CommandSpec(
        "microapp rollback",
        summary: "run a kept older version of a feature again, by hand, and mark the version left bad",
        operands: [.required("NAME")],
        options: [UpdateOptions.plugins, version, CommonOptions.probeUnsandboxed],
        discussion: """
            Makes the kept version the folder's lib<F>.so with one rename, pinned in plugins.lock, as update does. The
            version left is marked bad, so the next update does not bring it back (a later one is installed); a
            version named with --to loses its own mark. An app already running from the folder keeps the version it
            loaded until it restarts. Exit 1 when there is nothing to go back to.
            """)

    @MainActor
    static func run(_ arguments: Arguments, host: HostConfiguration) async throws(Problem) -> ExitCode {
        guard let name = arguments.operands.first else {
            throw Problem.usage("rollback needs NAME", fix: "write `microapp rollback Characters`")
        }
        var wanted: Int?
        if let text = arguments[version] {
            guard let number = Int(text) else {
                throw Problem.usage("--to takes a version number", fix: "write e.g. --to 2")
            }
            wanted = number
        }
        let updater = UpdateOptions.updater(arguments)
        let feature = try UpdateOptions.feature(name, in: updater)
        let target = wanted
        let now = arguments.environment.date()
        let outcome = await BlockingWork.run {
            updater.store.trustList().flatMap { trust in
                updater.versions.rollback(feature.id, to: target, trust: trust, now: now)
            }
        }
        switch outcome {
        case .success(let (left, running)):
            Console.out(
                "rolled back \(feature.id) \(left.version) → \(running.version): \(feature.library.path) (\(left.version) marked bad)"
                    .sanitized)
            Console.out(UpdateOptions.runningAppNote(keeping: "running \(feature.id) \(left.version)").sanitized)
            return .ok
        case .failure(let problem): throw problem
        }
    }
}
