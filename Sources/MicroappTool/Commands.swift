import CommandLineSpec

/// Every command of `microapp`, declared once: these descriptions parse and check the command line and write
/// the help, so the help names exactly the options each command accepts.
///
/// Hidden options pass state between `microapp` and the copies of itself it starts (the supervisor and its app
/// process, the probe children). They are accepted only when the environment carries `MICROAPP_INTERNAL=1`,
/// which `ChildLaunch` sets for every such child. It is a guard against using them by mistake, not a security
/// boundary: anyone can set the variable.
enum Commands {
    /// The environment variable that makes hidden options acceptable.
    static let internalMarker = "MICROAPP_INTERNAL"

    static let all: [CommandSpec] = [
        run, routes, doctor, probe, solo, preview, new, remove, sdk, lock, graph, keys, help,
    ]

    /// The command called `name` (`run`, not `microapp run`), or nil.
    static func spec(named name: String) -> CommandSpec? { all.first { $0.name == "microapp \(name)" } }

    private static let plugins = Option.repeatable(
        "--plugins", "DIR", help: "also load the lib<Feature>.so files in DIR")
    private static let only = Option.repeatable(
        "--only", "FEATURE", help: "run only these features (by id, e.g. --only auth)")
    private static let open = Option.value(
        "--open", "URL", help: "start at this route, e.g. --open characters://detail/2")
    private static let noBuild = Option.flag("--no-build", help: "do not rebuild stale plugin libraries first")
    private static let noProbe = Option.flag(
        "--no-probe", help: "load new libraries without trying them in a child process first (faster, unsafe)")
    private static let json = Option.flag("--json", help: "one JSON object per line (fields in the README)")
    private static let isolation = Option.value(
        "--isolation", "MODE",
        help: """
            process: each feature runs in a sandboxed child process of its own (a crash or a
            hostile plugin stops that feature only); none: every feature runs in this process,
            with your full rights (your files, your network, your other programs): only for
            code you trust; auto (the default): decided per library (libraries from --plugins or not pinned by a
            trusted plugins.lock isolated, this repository's features in this process; routes and
            doctor say which and why); one run may mix both
            """)
    private static let allowUnsandboxed = Option.flag(
        "--allow-unsandboxed",
        help: """
            run isolated features even where the kernel lacks a sandbox mechanism (Landlock,
            seccomp; `microapp doctor` says which): their children apply the rest, and routes,
            doctor and the isolation reason say "unsandboxed"; without it they are refused
            """)
    private static let probeUnsandboxed = Option.flag(
        "--allow-unsandboxed",
        help: """
            probe the libraries even where the kernel lacks a sandbox mechanism (Landlock,
            seccomp; `microapp doctor` says which): the probe process applies the rest; without
            it nothing is probed there
            """)
    private static let allow = Option.repeatable(
        "--allow", "CAPABILITY",
        help: """
            a capability features may declare beyond files:scratch (network); with --strict a
            feature declaring one not allowed is refused, without it the capability is granted with a warning
            """)
    private static let grant = Option.repeatable(
        "--grant", "FEATURE=KEY",
        help: """
            let FEATURE use KEY beyond what the host's grant rules give it (a service or state the host or a
            feature offers; `keys` shows who may use each); a KEY nobody offers is a usage error
            """)
    private static let settleTimeout = Option.value(
        "--settle-timeout", "SECONDS",
        help: """
            with --ui json or text, each event waits until the app has settled (no
            loading or busy screen, no redraw or swap pending), at most this long (default 10),
            then is dropped with a `not-settled` error
            """)

    static let run = CommandSpec(
        "microapp run", summary: "run the app with every plugin it finds (the default command)",
        options: [
            plugins, only, open,
            .value(
                "--ui", "MODE",
                help: """
                    terminal (default on a terminal), text, or json (one JSON event per line on stdin,
                    one JSON frame/notice/error per line on stdout)
                    """),
            settleTimeout, isolation, allowUnsandboxed, allow, grant,
            .flag(
                "--strict",
                help: """
                    any plugin problem is fatal (exit 2) instead of skipping that plugin; a feature declaring a
                    capability --allow does not name, or a requirement not granted, is a problem
                    """),
            .value(
                "--data", "DIR",
                help: """
                    where accounts, recent searches and the session live
                    (default $XDG_DATA_HOME/microapp, else ~/.local/share/microapp)
                    """),
            .value(
                "--characters-url", "URL",
                help: """
                    read characters from the Rick and Morty API at URL instead of the bundled
                    catalog (e.g. https://rickandmortyapi.com/api)
                    """),
            .value(
                "--home", "URL",
                help: "the route opened first and after signing in (default: the demo app's characters://list)"),
            noBuild, noProbe,
            .flag(
                "--no-supervise", help: "run the app in this process: a plugin that crashes takes the app down with it"),
            .flag(
                "--watch",
                help: """
                    hot swap: a new lib<Feature>.so in a plugin folder, or (from the repository) a saved
                    source of a running feature, rebuilds and swaps that feature in, keeping its state;
                    a build that fails stays out (its errors show over the screen); ctrl-r (or R) or
                    {"type":"rollback","feature":"ID"} goes back to the previous version;
                    MICROAPP_WATCH=poll polls instead of inotify (mounts whose changes it misses)
                    """),
            .flag("--supervised", help: "this is the supervisor's app process", hidden: true),
            .value("--state-file", "FILE", help: "where to record the route and loaded libraries", hidden: true),
            .repeatable("--skip-library", "FILE", help: "a library that crashed the app: not loaded", hidden: true),
            .value("--crash-notice", "TEXT", help: "the banner after a restart", hidden: true),
        ],
        discussion: """
            Plugins are the lib<Feature>.so files beside this executable plus each --plugins DIR. Run from the
            repository, microapp first builds the plugin libraries that are missing or older than their sources.
            A new or changed library is first loaded in a child process; one that crashes or hangs there is refused
            (and stays refused until it changes). Verdicts are cached in $XDG_CACHE_HOME/microapp. While the app runs,
            a plugin that crashes it is turned off and the app restarts within a second on the same route, with a banner
            naming the plugin; three crashes within ten seconds stop with a report (exit 3).

            TERMINAL KEYS
              tab/↑↓ move · enter select (in a form's last field: submit) · esc back · q quit (ctrl-c in a field)
              1-9 pick a tab (alt+1-9 while a field has the keys) · : open a route by URL (ctrl-o in a field)
              ctrl-l log of what isolated features printed, in place of the screen (ctrl-l or esc closes it)
            Signed in, the features' tabs stand under the header; text mode lists them with their ids and JSON frames
            carry them as "tabs" ({"type":"tap","id":"tab.search"} opens one). A deep link lands with its feature's
            tab route under it, so esc goes back to the list.
            """,
        epilogue: """
            EXIT CODES
              0 ok · 1 usage or input error · 2 plugin set invalid (problems listed) · 3 a plugin crashed

            Examples:
              swift run microapp
              swift run microapp --open characters://list --ui json
              swift run microapp routes
              swift run microapp solo Characters --mock characters.page=failing
              swift run microapp preview Auth auth://sign-in --state alert
            """)

    static let routes = CommandSpec(
        "microapp routes", summary: "list the routes of the plugins, their owners and guards",
        options: [json, plugins, only, noBuild, noProbe, allowUnsandboxed, grant],
        discussion: """
            Lists every route of the plugins that load: pattern, owning feature, and guards
            (session = needs a signed-in person; sign-in = where signed-out people are sent).
            """)

    static let doctor = CommandSpec(
        "microapp doctor", summary: "check a plugin folder; exit 2 if anything is wrong",
        operands: [.repeatable("DIR")],
        options: [
            json, noBuild, noProbe, allow, allowUnsandboxed, grant,
            .flag("--strict", help: "a library whose feature declares a capability --allow does not name is refused"),
        ],
        discussion: """
            Loads every plugin in each DIR (default: the plugins beside this executable), resolves them together,
            and prints one row per library: feature, version, file, verdict and reason. Exit 2 if any is bad.
            """)

    static let probe = CommandSpec(
        "microapp probe", summary: "load one library and print what it says about itself",
        operands: [.optional("FILE")],
        options: [
            json, probeUnsandboxed,
            .flag("--standby", help: "wait for the library's path on standard input", hidden: true),
            .flag("--sandboxed", help: "be the sandboxed probe process itself", hidden: true),
        ],
        discussion: """
            Loads the library FILE in a sandboxed child process (the sandbox of an isolated feature: it reads
            only the library and the runtime, writes nothing, no network), checks its entry (SDK version, ABI
            version, size, manifest), draws its first screens on its mocks, and prints its manifest. Nothing of
            the library runs in this process. Exit 0 if it is usable, 2 if not (also when this kernel lacks a
            sandbox mechanism, unless --allow-unsandboxed).
            """)

    static let solo = CommandSpec(
        "microapp solo", summary: "run one feature alone on its own mocks (other features' routes are stubs)",
        operands: [.required("FEATURE")],
        options: [
            .repeatable(
                "--mock", "KEY=VARIANT",
                help: """
                    use that variant of a mocked service, e.g. --mock characters.page=failing
                    (`solo` only — `run` uses the app's real services)
                    """),
            open,
            .value("--ui", "MODE", help: "terminal (default on a terminal), text or json, as for `run`"),
            .value(
                "--settle-timeout", "SECONDS", help: "how long each event waits for the app to settle, as for `run`"),
            .repeatable(
                "--plugins", "DIR",
                help: """
                    look for lib<FEATURE>.so in DIR; one found there wins over the
                    library beside this executable
                    """),
            .flag("--no-build", help: "do not build the feature's library first"),
            noProbe, isolation, allowUnsandboxed, allow, grant,
            .flag("--strict", help: "refuse the feature if it declares a capability --allow does not name"),
            .flag(
                "--watch",
                help: """
                    rebuild and hot-swap the feature when its sources or library change (the
                    sources of the repository whose .build the library lies in, or those of
                    a package of its own, `microapp new NAME --package DIR`, that SwiftPM built)
                    """),
        ],
        discussion: """
            Runs one feature alone: only lib<FEATURE>.so is loaded (run from the repository, only that library is
            built first), and every requirement is met by the mocks the feature ships (`static func mocks()`).
            FEATURE is a folder in Plugins/, a feature id or a display name, in any case.
            The header says `solo · mocks`. A route into a feature that is not loaded shows a stub screen
            (`→ would open characters://detail/2 (Characters is not loaded)`) with Back; a guarded route opened
            signed out, with no sign-in feature loaded, shows the stub of the sign-in route. Only the loaded
            feature's tab is shown (while its mock session is signed in).
            """,
        epilogue: """
            Exit 1: unknown feature, or a --mock key or variant the mocks do not have (the list is printed).
            Exit 2: a requirement without a mock (named, with how to add it), or the library does not load.
            """)

    static let preview = CommandSpec(
        "microapp preview", summary: "draw each screen of a feature in each state, without running the app",
        operands: [.required("FEATURE"), .optional("ROUTE")],
        options: [
            .value("--state", "STATE", help: "view, loading, alert, error or all (the default)"),
            .value("--ui", "MODE", help: "text (the default) or json"),
            .value("--output", "DIR", help: "write one NAME.txt per preview into DIR instead"),
            .repeatable("--plugins", "DIR", help: "look for lib<FEATURE>.so in DIR"),
            .flag("--no-build", help: "do not build the feature's library first"),
        ],
        discussion: """
            Draws the screens a feature previews (its `static func previews()`, usually made with RootDriver
            over its mocks), each in its state, without running the app: as plain text (a blank line between
            screens; the header says `preview · STATE`) or as one JSON frame line each, with `name`, `state` and
            `variant` fields. ROUTE is a URL (characters://detail/2) or one of the feature's patterns.
            --output DIR writes one NAME.txt per preview (NAME = path.state[.variant]), removing other .txt files
            there when every preview is written: the golden files in Plugins/FEATURE/Previews are written this way
            by scripts/update-previews.
            Exit 1 when the feature has no previews (add `previews()` beside its mocks); 2 when they fail.
            """)

    static let new = CommandSpec(
        "microapp new",
        summary: "scaffold Plugins/NAME (or a package of its own): a feature, its mocks, previews, a test",
        operands: [.required("NAME")],
        options: [
            .value(
                "--package", "DIR",
                help: """
                    write a standalone SwiftPM package to DIR instead (a new or empty folder,
                    anywhere): `swift build` there makes lib<NAME>.so; the SDK is installed first
                    (see `microapp sdk`)
                    """)
        ],
        discussion: """
            Scaffolds Plugins/NAME in the repository (the current folder or above, else the one this executable
            was built in): a feature with id `name` (lower case), one screen `name://home` with a view model, a
            service `name.greeting` that the feature provides to the app and uses itself, mocks for it (default,
            slow, failing), previews and their golden files, the C entry, and a test with MicroappTesting. Then
            `microapp --open name://home` runs it in the app, `microapp solo NAME` alone, and `swift test` tests it.
            Its name is added to the feature list in Package.swift, so SwiftPM sees it at the next build (and
            `microapp remove NAME` takes both away again).
            With --package DIR the same feature is a package of its own (Sources/NAME, Sources/NAMEPlugin,
            Tests/NAMETests, Previews) that depends on the SDK installed by `microapp sdk --install`; run it with
            `microapp --plugins DIR/.build/debug` (also solo, preview and --watch).
            NAME must be a Swift identifier (UpperCamelCase recommended): no keywords, no leading digit, only
            A-Z, a-z, 0-9 and _, and no name already taken. Exit 1, with the reason, when it is refused.
            """)

    static let remove = CommandSpec(
        "microapp remove",
        summary: "take a feature out of the repository: its line in Package.swift, Plugins/NAME, its libraries",
        operands: [.required("NAME")],
        options: [
            .flag(
                "--yes",
                help: """
                    delete Plugins/NAME even though it holds files (without it, remove says what it would
                    delete and deletes nothing)
                    """)
        ],
        discussion: """
            Undoes `microapp new NAME` in the repository (the current folder or above, else the one this executable
            was built in): takes "NAME", out of the feature list in Package.swift (between
            `// microapp: features begin` and `// microapp: features end`), deletes Plugins/NAME and the lib<NAME>.so
            files built from it in .build. Package.swift's contents change, so the next `swift build` or `swift test`
            sees the feature gone without purging SwiftPM's cache. A folder holding files is deleted only with --yes:
            work in it that is not committed cannot be brought back. Exit 1, deleting nothing, when NAME is neither
            listed nor a folder in Plugins/, or when --yes is needed.
            """)

    static let sdk = CommandSpec(
        "microapp sdk", summary: "print where this host's SDK is installed for features in packages of their own",
        options: [
            .flag(
                "--install", help: "write it there (MicroappSDK and MicroappTesting, as this host was built)")
        ],
        discussion: """
            Prints the folder that holds this host's SDK as two SwiftPM packages, MicroappSDK and
            MicroappTesting: $MICROAPP_SDK when set, else $XDG_DATA_HOME/microapp/sdk/MAJOR.MINOR (else
            ~/.local/share/…). A package that `microapp new NAME --package DIR` makes depends on them there,
            so it builds in any folder and from a git clone. --install writes the SDK sources this host was
            built from (nothing when they are there already); `microapp new NAME --package DIR` does it too.
            Exit 1 when the SDK is not there, or differs from this host's (run with --install).
            """)

    static let lock = CommandSpec(
        "microapp lock", summary: "write DIR/plugins.lock (SHA-256 per library); then only those load",
        operands: [.optional("DIR")],
        options: [
            noBuild, probeUnsandboxed,
            .value(
                "--isolation", "MODE",
                help: """
                    write this setting (process or none) into every library's entry: where it runs
                    under --isolation auto (without it, entries keep the setting they had)
                    """),
        ],
        discussion: """
            Writes DIR/plugins.lock (default: the folder of this executable) with the SHA-256 of each library in
            DIR. While it exists, a library in DIR that is not in it or does not match is refused; run
            `microapp lock` again after rebuilding, or delete the file. Each library is read once into a private
            copy, which is hashed and examined in a sandboxed child process (as `microapp probe` does): no code
            of the libraries runs in this process. Exit 2, writing nothing, when a library in DIR does not load
            (also when this kernel lacks a sandbox mechanism, unless --allow-unsandboxed).
            """)

    static let graph = CommandSpec(
        "microapp graph", summary: "who needs what from whom; missing providers and cycles marked",
        options: [
            .value(
                "--format", "FORMAT",
                help: """
                    text: a tree (the default)
                    dot: Graphviz (`microapp graph --format dot | dot -Tsvg > graph.svg`)
                    json: one object per feature (fields in the README, "Inspect commands' JSON")
                    """),
            plugins, only, noBuild, noProbe, allowUnsandboxed, grant,
        ],
        discussion: """
            Loads the plugins as `run` does and shows who needs what from whom: each feature, the services it
            provides, and each of its requirements with its provider (host, a feature, or nobody). A missing
            provider, a wrong type or access, a requirement not granted, and a cycle are marked.
            Exit 2 when a required edge is not ok.
            """)

    static let keys = CommandSpec(
        "microapp keys", summary: "every service and shared state the host offers: types, access, what each is for",
        options: [json, plugins, only, noBuild, noProbe, allowUnsandboxed, grant],
        discussion: """
            Lists what a feature can ask for: each key the host's container offers and each service a loaded
            feature provides, with its access (service, read-only or read-write state), its type (a service's
            request → response), its provider (host or a feature id), its one-line summary (from the key's
            `described(_:)`), who may use it (its grant rule) and the features that use it. A feature's requirement must name the same key and
            type. --json writes one object per key (fields in the README, "Inspect commands' JSON").
            """)

    static let help = CommandSpec(
        "microapp help", summary: "the help of one command (same as `microapp COMMAND --help`)",
        operands: [.optional("COMMAND")],
        discussion: """
            Prints the help of COMMAND (as `microapp COMMAND --help` does), or the overview of every command.
            """)
}
