import CommandLineSpec
import MicroappCore
import MicroappSDK
import MicroappTerminal

/// The tool's own commands, each declared once by its type (`RunCommand.declaration`, …): those declarations parse
/// and check the command line and write the help, so the help names exactly the options each command accepts.
///
/// Hidden options pass state between `microapp` and the copies of itself it starts (the supervisor and its app
/// process, the probe children). They are accepted only when the environment carries `MICROAPP_INTERNAL=1`,
/// which `ChildLaunch` sets for every such child. It is a guard against using them by mistake, not a security
/// boundary: anyone can set the variable.
enum Commands {
    /// The environment variable that makes hidden options acceptable.
    static let internalMarker = "MICROAPP_INTERNAL"

    /// The built-in commands, in the order the overview lists them. None of them declares an app's own options:
    /// those come from `HostConfiguration.options`.
    static let builtIn: [any Command.Type] = [
        RunCommand.self, RoutesCommand.self, DoctorCommand.self, ProbeCommand.self, SoloCommand.self,
        PreviewCommand.self, NewCommand.self, RemoveCommand.self, SDKCommand.self, LockCommand.self,
        GraphCommand.self, KeysCommand.self, KeygenCommand.self, TrustCommand.self, ReleaseCommand.self,
        PublishCommand.self, RotateCommand.self, UpdateCommand.self, VersionsCommand.self, RollbackCommand.self,
        InstallCommand.self,
        BundleCommand.self,
        HelpCommand.self,
    ]
}

/// The options several commands share, each declared once with its kind: how its value is read and refused.
enum CommonOptions {
    static let plugins = OptionSpec.repeatable(
        "--plugins", "DIR", .text, help: "also load the lib<Feature>.so files in DIR")
    static let only = OptionSpec.repeatable(
        "--only", "FEATURE", .text, help: "run only these features (by id, e.g. --only auth)")
    /// nil when absent or empty; a URL that is not `feature://path` (no scheme, an empty segment as in
    /// `characters//detail/2`) is refused before anything starts.
    static let open = OptionSpec.value(
        "--open", "URL", .route, help: "start at this route, e.g. --open characters://detail/2")
    static let noBuild = OptionSpec.flag(
        "--no-build",
        help: "do not rebuild stale plugin libraries first (without it, in the repository, stderr says which it builds)"
    )
    static let noProbe = OptionSpec.flag(
        "--no-probe", help: "load new libraries without trying them in a child process first (faster, unsafe)")
    static let json = OptionSpec.flag("--json", help: "one JSON object per line (fields in the README)")
    static let strict = OptionSpec.flag(
        "--strict", help: "refuse the feature if it declares a capability --allow does not name")
    static let ui = OptionSpec.value(
        "--ui", "MODE", .frontEnd, help: "terminal (default on a terminal), text, json or web, as for `run`")
    static let port = OptionSpec.value(
        "--port", "PORT", .port,
        help: "with --ui web, serve on 127.0.0.1:PORT (default: a free port the system picks; the URL is printed)")
    static let isolation = OptionSpec.value(
        "--isolation", "MODE",
        .choice(
            of: IsolationChoice.self, noun: "a mode",
            fix: "write --isolation auto (the default), process (every feature in a process of its own) or none"),
        default: .auto,
        help: """
            process: each feature runs in a sandboxed child process of its own (a crash or a
            hostile plugin stops that feature only); none: every feature runs in this process,
            with your full rights (your files, your network, your other programs): only for
            code you trust; auto (the default): decided per library (libraries from --plugins or not pinned by a
            trusted plugins.lock isolated, this repository's features in this process; routes and
            doctor say which and why); one run may mix both
            """)
    static let allowUnsandboxed = OptionSpec.flag(
        "--allow-unsandboxed",
        help: """
            run isolated features even where the kernel lacks a sandbox mechanism (Landlock,
            seccomp; `microapp doctor` says which): their children apply the rest, and routes,
            doctor and the isolation reason say "unsandboxed"; without it they are refused
            """)
    static let probeUnsandboxed = allowUnsandboxed.with(
        help: """
            probe the libraries even where the kernel lacks a sandbox mechanism (Landlock,
            seccomp; `microapp doctor` says which): the probe process applies the rest; without
            it nothing is probed there
            """)
    static let allow = OptionSpec.repeatable(
        "--allow", "CAPABILITY", .capability,
        help: """
            a capability features may declare beyond files:scratch (network); with --strict a
            feature declaring one not allowed is refused, without it the capability is granted with a warning
            """)
    static let grant = OptionSpec.repeatable(
        "--grant", "FEATURE=KEY",
        .pair(
            "FEATURE=KEY",
            fix: "write e.g. `--grant myfeature=search.recent` (a feature id, a key `microapp keys` lists)"),
        help: """
            let FEATURE use KEY beyond what the host's grant rules give it (a service or state the host or a
            feature offers; `keys` shows who may use each); a KEY nobody offers is a usage error
            """)
    static let settleTimeout = OptionSpec.value(
        "--settle-timeout", "SECONDS", .seconds, default: .seconds(10),
        help: """
            with --ui json or text, each event waits until the app has settled (no
            loading or busy screen, no redraw or swap pending), at most this long (default 10),
            then is dropped with a `not-settled` error
            """)
    static let watch = OptionSpec.flag(
        "--watch",
        help: """
            hot swap: a new lib<Feature>.so in a plugin folder, or (from the repository) a saved
            source of a running feature, rebuilds and swaps that feature in, keeping its state;
            a build that fails stays out (its errors show over the screen); ctrl-r (or R) or
            {"type":"rollback","feature":"ID"} goes back to the previous version;
            MICROAPP_WATCH=poll polls instead of inotify (mounts whose changes it misses)
            """)
    /// A library that crashed the app: the supervisor's app process does not load it.
    static let skipLibrary = OptionSpec.repeatable(
        "--skip-library", "FILE", .text, help: "a library that crashed the app: not loaded", hidden: true)
}

extension ValueKind {
    /// A route (`characters://detail/2`), or the empty text (no route); anything else is refused with the reason.
    static var route: ValueKind<String> {
        ValueKind<String> { text, option in
            guard !text.isEmpty else { return .success(text) }
            do throws(RouteError) {
                _ = try RoutePattern.components(of: text)
            } catch {
                return .failure(.because(error.reason, fix: "write a route like \(option) characters://detail/2"))
            }
            return .success(text)
        }
    }

    /// `terminal`, `text` or `json`.
    static var frontEnd: ValueKind<FrontEnd> {
        .choice(
            of: FrontEnd.self, noun: "a front end", fix: "use --ui terminal, --ui text, --ui json or --ui web")
    }

    /// A capability the policy knows (`network`, `files:scratch`).
    static var capability: ValueKind<Capability> {
        ValueKind<Capability> { text, _ in
            let capability = Capability(rawValue: text)
            guard CapabilityPolicy.known.contains(capability) else {
                return .failure(
                    .because(
                        "no capability has that name",
                        fix: "use one of: \(CapabilityPolicy.known.map(\.rawValue).joined(separator: ", "))"))
            }
            return .success(capability)
        }
    }
}

extension Arguments {
    /// `--open URL`: nil when absent or empty (its kind refused any other text that is not a route).
    var openURL: String? { self[CommonOptions.open].flatMap { $0.isEmpty ? nil : $0 } }

    /// The front end `--ui` asks for, else the default (terminal on a terminal, text otherwise).
    var frontEnd: FrontEnd { self[CommonOptions.ui] ?? FrontEnd.choose(nil) ?? .text }
}
