import CPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// A process that must not outlive its parent (the supervised app process): the kernel sends it SIGTERM when the
/// parent ends (PR_SET_PDEATHSIG, through a C shim: prctl is variadic).
package enum ParentDeath {
    /// How asking went.
    package enum Outcome: Equatable {
        /// SIGTERM arrives when the parent ends.
        case armed
        /// The parent had already ended when asked: the process is to end now.
        case parentGone
        /// The kernel refused; why.
        case failed(String)
    }

    /// Asks the kernel to send this process SIGTERM when its parent ends. The parent's pid is read before the request,
    /// so that one ending in between is noticed by the shim's second look (one that ended before is not).
    package static func arm() -> Outcome {
        let parent = getppid()
        switch microapp_end_with_parent(parent, SIGTERM) {
        case 0: return .armed
        case 1: return .parentGone
        default: return .failed(String(cString: strerror(errno)))
        }
    }

    /// Ends this process at once with `status`, running no exit handlers (the parent is gone or cannot be followed).
    package static func endNow(_ status: Int32) -> Never { _exit(status) }
}
