import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the driver fuzzes.
enum Target: String, CaseIterable {
    case manifest
    case routes
    /// Frame bodies of the host↔child feature protocol, as a hostile child could send them.
    case frames
}

/// One kind of violation seen during a run: how often, and the smallest input that showed it.
struct Finding {
    var count = 0
    var input: FuzzInput
    var detail: String
    var index: Int
}

/// An input of either target, as the driver stores, minimizes and prints it.
enum FuzzInput: Codable {
    case manifest(String)
    case routes(RouteInvariants.Input)
    case frames(String)

    /// Size for choosing the smallest example: Unicode scalars in all strings.
    var size: Int {
        switch self {
        case .manifest(let text), .frames(let text): text.unicodeScalars.count
        case .routes(let input):
            (input.patterns + input.values + input.urls).reduce(0) { $0 + $1.unicodeScalars.count + 1 }
        }
    }

    /// The violations this input shows (a crash never returns).
    func check() -> [Violation] {
        switch self {
        case .manifest(let text): ManifestInvariants.check(text)
        case .routes(let input): RouteInvariants.check(input)
        case .frames(let text): ProtocolInvariants.check(text)
        }
    }

    /// Swift source that recreates the input.
    var swiftLiteral: String {
        switch self {
        case .manifest(let text), .frames(let text): escaped(text)
        case .routes(let input):
            [("patterns", input.patterns), ("values", input.values), ("urls", input.urls)]
                .map { "\($0.0): [\($0.1.map(escaped).joined(separator: ", "))]" }
                .joined(separator: ", ")
        }
    }

    /// Smaller inputs that keep `fails`: whole strings dropped first, then stretches of Unicode scalars.
    func minimized(while fails: (FuzzInput) -> Bool) -> FuzzInput {
        switch self {
        case .manifest(let text):
            return .manifest(shrink(text) { fails(.manifest($0)) })
        case .frames(let text):
            return .frames(shrink(text) { fails(.frames($0)) })
        case .routes(var input):
            // Dropping strings, then shrinking what is left, until neither helps (a shrunk string may be droppable).
            var size = Int.max
            while FuzzInput.routes(input).size < size {
                size = FuzzInput.routes(input).size
                input = Self.minimizedOnce(input, while: fails)
            }
            return .routes(input)
        }
    }

    /// One pass: each string dropped if the failure stays without it, then each remaining string shrunk.
    private static func minimizedOnce(
        _ start: RouteInvariants.Input, while fails: (FuzzInput) -> Bool
    ) -> RouteInvariants.Input {
        var input = start
        let lists = [\RouteInvariants.Input.patterns, \.values, \.urls]
        for list in lists {
            for index in input[keyPath: list].indices.reversed() {
                var trial = input
                trial[keyPath: list].remove(at: index)
                if fails(.routes(trial)) { input = trial }
            }
        }
        for list in lists {
            for index in input[keyPath: list].indices {
                input[keyPath: list][index] = shrink(input[keyPath: list][index]) { candidate in
                    var trial = input
                    trial[keyPath: list][index] = candidate
                    return fails(.routes(trial))
                }
            }
        }
        return input
    }
}

/// Removes stretches of scalars from `text` (halves, quarters, … single scalars) as long as `fails` holds.
func shrink(_ text: String, _ fails: (String) -> Bool) -> String {
    var scalars = Array(text.unicodeScalars)
    var chunk = max(1, scalars.count / 2)
    while chunk >= 1 {
        var start = 0
        var removed = false
        while start < scalars.count {
            var trial = scalars
            trial.removeSubrange(start..<min(scalars.count, start + chunk))
            var candidate = ""
            candidate.unicodeScalars.append(contentsOf: trial)
            if fails(candidate) {
                scalars = trial
                removed = true
            } else {
                start += chunk
            }
        }
        if !removed { chunk /= 2 }
    }
    var result = ""
    result.unicodeScalars.append(contentsOf: scalars)
    return result
}

// MARK: Crash reporting

/// What the driver is running now, for the crash message (read in a signal handler: plain integers only).
nonisolated(unsafe) private var currentTarget = 0
nonisolated(unsafe) private var currentIndex = 0
nonisolated(unsafe) private var currentSeed: UInt64 = 0
nonisolated(unsafe) private var messageBuffer: UnsafeMutablePointer<UInt8>?
/// The handlers found before ours, by signal number (a plain buffer: no Swift collection is touched in the handler).
nonisolated(unsafe) private var previousActions: UnsafeMutablePointer<sigaction>?
private let crashSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE]

/// Records which input runs now, so a crash can name it.
func markCurrent(_ target: Target, index: Int, seed: UInt64) {
    currentTarget = Target.allCases.firstIndex(of: target) ?? 0
    currentIndex = index
    currentSeed = seed
}

/// On a crash, prints which input it was and how to run it again, then lets the previous handler (Swift's
/// backtracer) or the default action finish the process.
func installCrashReporter() {
    messageBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    previous.initialize(repeating: sigaction(), count: 65)
    previousActions = previous
    for signal in crashSignals {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            guard let buffer = messageBuffer else { return }
            var length = 0
            func append(_ text: StaticString) {
                text.withUTF8Buffer { bytes in
                    for byte in bytes where length < 255 {
                        buffer[length] = byte
                        length += 1
                    }
                }
            }
            func append(_ number: UInt64) {
                var digits:
                    (
                        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
                    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                var count = 0
                var rest = number
                withUnsafeMutableBytes(of: &digits) { digits in
                    repeat {
                        digits[count] = UInt8(48 + rest % 10)
                        rest /= 10
                        count += 1
                    } while rest > 0
                    while count > 0 && length < 255 {
                        count -= 1
                        buffer[length] = digits[count]
                        length += 1
                    }
                }
            }
            append("\nmicroapp-fuzz: CRASH on ")
            append(currentTarget == 0 ? "manifest" : currentTarget == 1 ? "routes" : "frames")
            append(" input #")
            append(UInt64(currentIndex))
            append(" — run it again with: microapp-fuzz ")
            append(currentTarget == 0 ? "manifest" : currentTarget == 1 ? "routes" : "frames")
            append(" --seed ")
            append(currentSeed)
            append(" --index ")
            append(UInt64(currentIndex))
            append("\n")
            _ = write(2, buffer, length)
            // Back to the handler before ours (Swift's backtracer), which gets the signal again as soon as this
            // handler returns.
            if let previous = previousActions, signal >= 0 && signal < 65 {
                sigaction(signal, previous + Int(signal), nil)
            } else {
                Glibc.signal(signal, SIG_DFL)
            }
            raise(signal)
        }
        sigaction(signal, nil, previous + Int(signal))
        sigaction(signal, &action, nil)
    }
}
