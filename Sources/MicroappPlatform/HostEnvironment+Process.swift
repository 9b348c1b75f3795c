import Foundation
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

extension HostEnvironment {
    /// This process's environment as the system gives it: `ProcessInfo`'s variables, the home folder (`$HOME` when it
    /// is an absolute path, else the password database's), `$TMPDIR` (else `/tmp`), the current directory, the
    /// continuous clock and the wall clock. The one place the package reads them; a composition root makes it once and
    /// passes it down.
    public static var process: HostEnvironment { process(variables: ProcessInfo.processInfo.environment) }

    /// This process's environment with `variables` in place of its own (none: as `env -i` starts it). Without an
    /// absolute `HOME`, the home folder, and so every XDG folder not named by its variable, is the password
    /// database's entry for this user: an installed app run from cron or `env -i` keeps its data where the person's
    /// login shell would have it.
    public static func process(variables: [String: String]) -> HostEnvironment {
        let home = variables["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? passwordHome()
        let temporary = variables["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        return HostEnvironment(
            variables: variables, home: home,
            temporaryFolder: temporary.count > 1 && temporary.hasSuffix("/") ? String(temporary.dropLast()) : temporary,
            currentDirectory: FileManager.default.currentDirectoryPath, now: { ContinuousClock().now },
            date: { Date() })
    }

    /// This user's home folder from the password database, for a process started without `HOME`.
    private static func passwordHome() -> String? {
        guard let entry = getpwuid(geteuid()), let home = entry.pointee.pw_dir else { return nil }
        return String(cString: home)
    }
}
