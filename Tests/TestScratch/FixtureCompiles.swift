import Foundation

// Fixture compiles of one test process: each distinct fixture compiled once, and at most a core's worth of compilers
// at a time. A full run once had 43 compilers running at once on two cores (SandboxTests' parametrized cases each
// compiling the same attacker, loader suites their libraries): the test process's own threads then got a sliver of
// the CPU, and tests that wait on the cooperative pool (Search's, the hang diagnosis's) ran out their 30 s limits.

/// Values made at most once per key in this process: the first caller of a key makes it, a concurrent caller of the
/// same key waits for that (blocking: call it off the cooperative pool), and every later caller gets the same value
/// or the same error.
public final class MadeOnce<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    private final class Entry: @unchecked Sendable {
        let lock = NSLock()
        var outcome: Result<Value, any Error>?
    }

    /// An empty record.
    public init() {}

    /// The value for `key`, made by `make` the first time it is asked for.
    public func value(for key: String, make: () throws -> Value) throws -> Value {
        lock.lock()
        let entry = entries[key] ?? Entry()
        entries[key] = entry
        lock.unlock()
        entry.lock.lock()
        defer { entry.lock.unlock() }
        if entry.outcome == nil { entry.outcome = Result { try make() } }
        return try entry.outcome!.get()
    }
}

/// Compilers started by tests: at most one per core at a time (the rest wait their turn, off the cooperative pool).
public enum CompilerSlots {
    private static let slots = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount))

    /// Runs `compile` (a compiler process started and waited for) once a slot is free.
    public static func run<T>(_ compile: () throws -> T) rethrows -> T {
        slots.wait()
        defer { slots.signal() }
        return try compile()
    }
}
