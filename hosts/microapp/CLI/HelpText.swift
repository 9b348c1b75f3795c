/// What `microapp --help` and `microapp COMMAND --help` print.
enum HelpText {
    static let version = "microapp 0.1.0 (entry ABI 1)"

    static let overview = """
        microapp — run feature plugins (shared libraries) together as one app.

        USAGE
          microapp [run] [options]        run the app with every plugin it finds (the default command)
          microapp routes [--json]        list the routes of the plugins, their owners and guards
          microapp doctor [DIR] [--json]  check a plugin folder; exit 2 if anything is wrong
          microapp probe FILE [--json]    load one library and print what it says about itself
          microapp solo FEATURE [options] run one feature alone on its own mocks (other features' routes are stubs)
          microapp preview FEATURE [ROUTE] [--state view|loading|alert|error|all] [--ui text|json]
                                          draw each screen of a feature in each state, without running the app
          microapp new NAME               scaffold Plugins/NAME: a feature, its mocks, previews and a test
          microapp lock [DIR]             write DIR/plugins.lock (SHA-256 per library); then only those load
          microapp graph [--format text|dot|json]  who needs what from whom; missing providers and cycles marked
          microapp help [COMMAND]         the help of one command (same as `microapp COMMAND --help`)
          microapp --help | --version

        RUN OPTIONS
          --plugins DIR   also load the lib<Feature>.so files in DIR (repeatable)
          --only FEATURE  run only these features (repeatable; by id, e.g. --only auth)
          --open URL      start at this route, e.g. --open characters://detail/2
          --ui MODE       terminal (default on a terminal), text, or json (one JSON event per line on stdin,
                          one JSON frame/notice/error per line on stdout)
          --settle-timeout SECONDS  with --ui json or text, each event waits until the app has settled (no
                          loading or busy screen, no redraw or swap pending), at most this long (default 10),
                          then is dropped with a `not-settled` error
          --strict        any plugin problem is fatal (exit 2) instead of skipping that plugin
          --data DIR      where accounts, recent searches and the session live
                          (default $XDG_DATA_HOME/microapp, else ~/.local/share/microapp)
          --characters-url URL  read characters from the Rick and Morty API at URL instead of the bundled
                          catalog (e.g. https://rickandmortyapi.com/api)
          --no-build      do not rebuild stale plugin libraries first
          --no-probe      load new libraries without trying them in a child process first (faster, unsafe)
          --no-supervise  run the app in this process: a plugin that crashes takes the app down with it
          --watch         hot swap: a new lib<Feature>.so in a plugin folder, or (from the repository) a saved
                          source of a running feature, rebuilds and swaps that feature in, keeping its state;
                          a build that fails stays out (its errors show over the screen); ctrl-r (or R) or
                          {"type":"rollback","feature":"ID"} goes back to the previous version;
                          MICROAPP_WATCH=poll polls instead of inotify (mounts whose changes it misses)

        Plugins are the lib<Feature>.so files beside this executable plus each --plugins DIR. Run from the
        repository, microapp first builds the plugin libraries that are missing or older than their sources.
        A new or changed library is first loaded in a child process; one that crashes or hangs there is refused
        (and stays refused until it changes). Verdicts are cached in $XDG_CACHE_HOME/microapp. While the app runs,
        a plugin that crashes it is turned off and the app restarts within a second on the same route, with a banner
        naming the plugin; three crashes within ten seconds stop with a report (exit 3).

        TERMINAL KEYS
          tab/↑↓ move · enter select (in a form's last field: submit) · esc back · q quit (ctrl-c in a field)
          1-9 pick a tab (alt+1-9 while a field has the keys) · : open a route by URL (ctrl-o in a field)
        Signed in, the features' tabs stand under the header; text mode lists them with their ids and JSON frames
        carry them as "tabs" ({"type":"tap","id":"tab.search"} opens one). A deep link lands with its feature's
        tab route under it, so esc goes back to the list.

        EXIT CODES
          0 ok · 1 usage or input error · 2 plugin set invalid (problems listed) · 3 a plugin crashed

        Examples:
          swift run microapp
          swift run microapp --open characters://list --ui json
          swift run microapp routes
          swift run microapp solo Characters --mock characters.page=failing
          swift run microapp preview Auth auth://sign-in --state alert
        """

    /// What `--help` prints: `microapp COMMAND --help` and `microapp help COMMAND` that command's help,
    /// `microapp --help`, `microapp help` and an unknown command the overview.
    static func text(for arguments: Arguments) -> String {
        let command =
            arguments.command == "help" && !arguments.flag("--help")
            ? arguments.operands.first : arguments.isCommandNamed ? arguments.command : nil
        return command.flatMap(forCommand) ?? overview
    }

    /// The help of one command, or nil for a word that is not one.
    static func forCommand(_ command: String) -> String? {
        switch command {
        case "run":
            return
                "usage: microapp run [--plugins DIR]... [--only FEATURE]... [--open URL] [--ui terminal|text|json] [--strict] [--watch]\n\n"
                + overview
        case "routes":
            return """
                usage: microapp routes [--plugins DIR]... [--json]

                Lists every route of the plugins that load: pattern, owning feature, and guards
                (session = needs a signed-in person; sign-in = where signed-out people are sent).
                """
        case "doctor":
            return """
                usage: microapp doctor [DIR] [--json]

                Loads every plugin in DIR (default: the plugins beside this executable), resolves them together,
                and prints one row per library: feature, version, file, verdict and reason. Exit 2 if any is bad.
                """
        case "solo":
            return """
                usage: microapp solo FEATURE [--open URL] [--ui terminal|text|json] [--mock KEY=VARIANT]... [--plugins DIR]... [--watch] [--settle-timeout SECONDS]

                Runs one feature alone: only lib<FEATURE>.so is loaded (run from the repository, only that library is
                built first), and every requirement is met by the mocks the feature ships (`static func mocks()`).
                FEATURE is a folder in Plugins/, a feature id or a display name, in any case.
                The header says `solo · mocks`. A route into a feature that is not loaded shows a stub screen
                (`→ would open characters://detail/2 (Characters is not loaded)`) with Back; a guarded route opened
                signed out, with no sign-in feature loaded, shows the stub of the sign-in route. Only the loaded
                feature's tab is shown (while its mock session is signed in).

                  --mock KEY=VARIANT  use that variant of a mocked service, e.g. --mock characters.page=failing
                                      (repeatable; `solo` only — `run` uses the app's real services)
                  --open URL          start at this route
                  --ui MODE           terminal (default on a terminal), text or json, as for `run`
                  --settle-timeout SECONDS  how long each event waits for the app to settle, as for `run`
                  --plugins DIR       look for lib<FEATURE>.so in DIR (repeatable); one found there wins over the
                                      library beside this executable
                  --no-build          do not build the feature's library first
                  --watch             rebuild and hot-swap the feature when its sources or library change (the
                                      sources of the repository whose .build the library lies in)

                Exit 1: unknown feature, or a --mock key or variant the mocks do not have (the list is printed).
                Exit 2: a requirement without a mock (named, with how to add it), or the library does not load.
                """
        case "preview":
            return """
                usage: microapp preview FEATURE [ROUTE] [--state view|loading|alert|error|all] [--ui text|json] [--output DIR]

                Draws the screens a feature previews (its `static func previews()`, usually made with PreviewSession
                over its mocks), each in its state, without running the app: as plain text (a blank line between
                screens; the header says `preview · STATE`) or as one JSON frame line each, with `name`, `state` and
                `variant` fields. ROUTE is a URL (characters://detail/2) or one of the feature's patterns.
                --state defaults to all. --output DIR writes one NAME.txt per preview (NAME = path.state[.variant])
                instead, removing other .txt files there when every preview is written: the golden files in
                Plugins/FEATURE/Previews are written this way by scripts/update-previews.
                Exit 1 when the feature has no previews (add `previews()` beside its mocks); 2 when they fail.
                """
        case "new":
            return """
                usage: microapp new NAME

                Scaffolds Plugins/NAME in the repository (the current folder or above, else the one this executable
                was built in): a feature with id `name` (lower case), one screen `name://home` with a view model, a
                service `name.greeting` that the feature provides to the app and uses itself, mocks for it (default,
                slow, failing), previews and their golden files, the C entry, and a test with MicroappTesting. Then
                `microapp --open name://home` runs it in the app, `microapp solo NAME` alone, and `swift test` tests it.
                NAME must be a Swift identifier (UpperCamelCase recommended): no keywords, no leading digit, only
                A-Z, a-z, 0-9 and _, and no name already taken. Exit 1, with the reason, when it is refused.
                """
        case "probe":
            return """
                usage: microapp probe FILE [--json]

                Loads one library, checks its entry (ABI version, size, SDK fingerprint, manifest) and prints
                its manifest. Exit 0 if it is usable, 2 if not.
                """
        case "graph":
            return """
                usage: microapp graph [--format text|dot|json] [--plugins DIR]... [--only FEATURE]...

                Loads the plugins as `run` does and shows who needs what from whom: each feature, the services it
                provides, and each of its requirements with its provider (host, a feature, or nobody). A missing
                provider, a wrong type or access, and a cycle are marked.
                  --format text   a tree (the default)
                  --format dot    Graphviz (`microapp graph --format dot | dot -Tsvg > graph.svg`)
                  --format json   one object per feature (fields in the README, "Inspect commands' --json")
                Exit 2 when a required edge is not ok.
                """
        case "lock":
            return """
                usage: microapp lock [DIR]

                Writes DIR/plugins.lock (default: the folder of this executable) with the SHA-256 of each library in
                DIR. While it exists, a library in DIR that is not in it or does not match is refused; run
                `microapp lock` again after rebuilding, or delete the file. Exit 2, writing nothing, when a library
                in DIR does not load.
                """
        case "help":
            return """
                usage: microapp help [COMMAND]

                Prints the help of COMMAND (as `microapp COMMAND --help` does), or the overview of every command.
                """
        default:
            return nil
        }
    }
}
