import MicroappCore
import MicroappPlatform

/// `microapp lock [DIR]`: write `DIR/plugins.lock` with the SHA-256 of every usable library in DIR.
enum LockCommand {
    static func run(_ arguments: Arguments) throws(UsageError) -> ExitCode {
        let locations = PluginLocations.current()
        let folder = arguments.operands.first ?? locations.executableDirectory.path
        let (paths, leftOver) = locations.libraries(in: [folder])
        if let leftOver { Console.err(leftOver.note, label: "note") }
        let report = PluginSet.load(paths, enforcingLocks: false)
        if !report.problems.isEmpty {
            Console.report(report.problems)
            Console.err("microapp: not locking \(folder): fix the libraries above first")
            return .invalidPluginSet
        }
        guard !report.images.isEmpty else {
            throw UsageError(
                "no plugin libraries in \(folder)", fix: "build them first (`swift build`) or name another folder")
        }
        var setting: Isolation?
        if let text = arguments.value("--isolation") {
            guard let chosen = Isolation(rawValue: text) else {
                throw UsageError(
                    "--isolation \(text) is not a setting of a lock entry",
                    fix: "write --isolation process or --isolation none (auto is what an entry without it does)")
            }
            setting = chosen
        }
        // Entries keep the isolation they had, unless --isolation sets it; a lock that cannot be read keeps none.
        let previous = try? PluginLock.load(in: folder)
        do {
            try PluginLock(images: report.images, isolation: setting, keeping: previous ?? nil).write(in: folder)
        } catch {
            Console.err(
                Problem(
                    code: "lock-not-written", subject: "",
                    reason: "could not write \(folder)/\(PluginLock.fileName): \(error)",
                    fix: "check the folder's permissions")
            )
            return .usage
        }
        // So that a lock deleted later is noticed (a warning when the folder is loaded without one).
        let history = LockHistory()
        do {
            try history.record(folder)
        } catch {
            Console.err(
                Problem(
                    code: "lock-history-not-written", subject: "",
                    reason: "could not write \(history.file): \(error.localizedDescription)",
                    fix: "make its folder writable, or a deleted \(PluginLock.fileName) in \(folder) goes unnoticed"),
                label: "warning"
            )
        }
        Console.out("locked \(report.images.count) libraries in \(folder)/\(PluginLock.fileName)")
        return .ok
    }
}
