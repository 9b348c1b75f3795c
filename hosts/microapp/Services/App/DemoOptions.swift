import CommandLineSpec

/// The demo app's own options of `microapp run`, which its composition root adds to the generic tool
/// (`HostConfiguration.options`) and its services read: where its data lives, where its characters come from.
public enum DemoOptions {
    /// `--data DIR`: where accounts, recent searches and the session live.
    public static let data = OptionSpec.value(
        "--data", "DIR", .text,
        help: """
            where accounts, recent searches and the session live
            (default $XDG_DATA_HOME/microapp, else ~/.local/share/microapp)
            """)

    /// `--characters-url URL`: the Rick and Morty API to read characters from instead of the bundled catalog.
    public static let charactersURL = OptionSpec.value(
        "--characters-url", "URL", .text,
        help: """
            read characters from the Rick and Morty API at URL instead of the bundled
            catalog (e.g. https://rickandmortyapi.com/api)
            """)

    /// Both, in the order `run --help` lists them.
    public static let all: [Option] = [data.option, charactersURL.option]
}
