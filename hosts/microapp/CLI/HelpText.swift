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
          microapp --help | --version

        RUN OPTIONS
          --plugins DIR   also load the lib<Feature>.so files in DIR (repeatable)
          --only FEATURE  run only these features (repeatable; by id, e.g. --only auth)
          --open URL      start at this route, e.g. --open characters://detail/2
          --ui MODE       terminal (default on a terminal), text, or json (one JSON event per line on stdin,
                          one JSON frame/notice/error per line on stdout)
          --strict        any plugin problem is fatal (exit 2) instead of skipping that plugin
          --no-build      do not rebuild stale plugin libraries first

        Plugins are the lib<Feature>.so files beside this executable plus each --plugins DIR. Run from the
        repository, microapp first builds the plugin libraries that are missing or older than their sources.

        EXIT CODES
          0 ok · 1 usage or input error · 2 plugin set invalid (problems listed) · 3 a plugin crashed

        Examples:
          swift run microapp
          swift run microapp --open characters://list --ui json
          swift run microapp routes
        """

    static func forCommand(_ command: String) -> String? {
        switch command {
        case "run":
            return "usage: microapp run [--plugins DIR]... [--only FEATURE]... [--open URL] [--ui terminal|text|json] [--strict]\n\n"
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
        case "probe":
            return """
                usage: microapp probe FILE [--json]

                Loads one library, checks its entry (ABI version, size, SDK fingerprint, manifest) and prints
                its manifest. Exit 0 if it is usable, 2 if not.
                """
        default:
            return nil
        }
    }
}
