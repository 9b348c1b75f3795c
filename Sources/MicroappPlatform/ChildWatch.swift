import Dispatch
import MicroappCore

#if canImport(Glibc)
    import Glibc
#endif

/// What one thread watches of an isolated child in one `poll`: its protocol socket (messages to the main actor), its
/// standard output and error pipes (lines to the main actor, the last lines of stderr kept for the stop report) and
/// a descriptor readable once it ended (`IsolatedChild.IsolatedProcess.endDescriptor`).
struct ChildWatch {
    private var inbound: FeatureChannel.Inbound?
    /// Standard output and error, nil once closed here.
    private var pipes: [Int32?]
    /// Each pipe's bytes after its last newline.
    private var pending: [[UInt8]] = [[], []]
    private var end: Int32?
    private let line: @MainActor (String, Bool) -> Void
    private var tail: [String] = []
    private var chunk = [UInt8](repeating: 0, count: 16_384)

    init(
        inbound: FeatureChannel.Inbound, outputs: [Int32], end: Int32, line: @escaping @MainActor (String, Bool) -> Void
    ) {
        self.inbound = inbound
        pipes = outputs
        self.end = end
        self.line = line
    }

    /// Serves the socket and the pipes until the end descriptor is readable; then answers `wait` (which does not
    /// wait by then).
    mutating func untilEnded(_ wait: () -> ChildProcess.Termination) -> ChildProcess.Termination {
        while end != nil && step(until: nil) {}
        return wait()
    }

    /// Serves the socket and the pipes until stderr closed or `deadline` passed; the last lines it held.
    mutating func stderrTail(waiting deadline: ContinuousClock.Instant) -> [String] {
        while pipes[1] != nil && step(until: deadline) {}
        return tail
    }

    /// Serves the socket and the pipes until each closed.
    mutating func drain() {
        while step(until: nil) {}
    }

    /// Waits (until `deadline`, if given) for any descriptor watched and serves those ready; false when none is left to
    /// watch or the deadline passed.
    private mutating func step(until deadline: ContinuousClock.Instant?) -> Bool {
        var watched = pipes.compactMap { $0 } + [inbound?.descriptor, end].compactMap { $0 }
        guard !watched.isEmpty else { return false }
        var entries = watched.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let timeout = deadline.map { Int32(clamping: max(.zero, $0 - .now).wholeMilliseconds + 1) } ?? -1
        let ready = poll(&entries, nfds_t(entries.count), timeout)
        if ready < 0 && errno == EINTR { return true }
        guard ready > 0 else { return false }
        watched = entries.filter { $0.revents != 0 }.map(\.fd)
        for descriptor in watched {
            if descriptor == end {
                end = nil
            } else if descriptor == inbound?.descriptor {
                if inbound?.read() == false { inbound = nil }
            } else if let index = pipes.firstIndex(of: descriptor), !read(pipe: index) {
                close(descriptor)
                pipes[index] = nil
            }
        }
        return true
    }

    /// Reads once from pipe `index` and hands on each whole line (at most `FeatureWire.maximumLine` bytes); false at
    /// its end, when what was left without a newline went out too.
    private mutating func read(pipe index: Int) -> Bool {
        guard let descriptor = pipes[index] else { return false }
        let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return true }
        guard count > 0 else {
            if !pending[index].isEmpty { deliver(pending[index][...], pipe: index) }
            pending[index] = []
            return false
        }
        pending[index].append(contentsOf: chunk[..<count])
        while let newline = pending[index].firstIndex(of: 0x0A) {
            deliver(pending[index][..<newline].prefix(FeatureWire.maximumLine), pipe: index)
            pending[index].removeSubrange(...newline)
        }
        if pending[index].count > FeatureWire.maximumLine {
            deliver(pending[index].prefix(FeatureWire.maximumLine), pipe: index)
            pending[index].removeAll()
        }
        return true
    }

    private mutating func deliver(_ bytes: ArraySlice<UInt8>, pipe index: Int) {
        let text = String(decoding: bytes, as: UTF8.self).withoutEscapeSequences
        let isError = index == 1
        if isError {
            tail.append(text)
            if tail.count > IsolatedChild.tailLength { tail.removeFirst() }
        }
        DispatchQueue.main.async { [line] in MainActor.assumeIsolated { line(text, isError) } }
    }
}
