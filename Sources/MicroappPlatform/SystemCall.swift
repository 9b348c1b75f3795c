import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// A system call that failed: which call, on what, and the C library's error number.
public struct SystemCallError: Error, Sendable, Equatable, ProblemDescribing {
    /// The call, as its manual page names it (`open`, `posix_spawn`).
    public var call: String
    /// The file or program it was about, when there is one.
    public var path: String?
    /// The error number it failed with.
    public var errno: Int32

    /// Creates the error for `call` on `path` failing with `errno`.
    public init(call: String, path: String? = nil, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    /// A `system-call` problem: the call and the C library's words for the error, with a fix for the usual causes.
    public var problem: Problem {
        Problem(
            code: .systemCall, subject: path ?? "", reason: "\(call) failed: \(words) (errno \(errno))", fix: fix)
    }

    /// The C library's words for the error (`Permission denied`).
    public var words: String { strerror(errno).map { String(cString: $0) } ?? "error \(errno)" }

    private var fix: String {
        switch errno {
        case ENOENT: "check that \(path ?? "the file") exists (and, for a program, that it is on PATH)"
        case EACCES, EPERM: "check the permissions of \(path ?? "the file") and the folders above it"
        case EMFILE, ENFILE: "too many open files: raise the limit (`ulimit -n`) or end other programs"
        case ENOMEM, EAGAIN: "the system is short of memory or processes: end other programs and try again"
        default: "see the reason above; try again, and report it if it persists"
        }
    }
}

/// How the platform layer calls C: each call retried while a signal interrupts it (EINTR), and a failure turned
/// into a `SystemCallError` that names the call.
public enum SystemCall {
    /// Calls `body`, which returns -1 and sets `errno` on failure, until it is not interrupted; answers its result.
    @discardableResult
    public static func run<Result: BinaryInteger>(
        _ call: String, path: String? = nil, _ body: () -> Result
    ) throws(SystemCallError) -> Result {
        while true {
            let result = body()
            guard result == -1 else { return result }
            let code = Glibc.errno
            guard code == EINTR else { throw SystemCallError(call: call, path: path, errno: code) }
        }
    }

    /// Calls `body`, which returns 0 or an error number (the `posix_spawn` family), until it is not interrupted.
    public static func status(_ call: String, path: String? = nil, _ body: () -> Int32) throws(SystemCallError) {
        while true {
            let code = body()
            if code == 0 { return }
            guard code == EINTR else { throw SystemCallError(call: call, path: path, errno: code) }
        }
    }
}
