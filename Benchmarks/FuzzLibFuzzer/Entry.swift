// libFuzzer entry points for the invariants of Benchmarks/Fuzz/Invariants.swift. Not a SwiftPM target:
// `scripts/fuzz` compiles this file with Invariants.swift and the SDK and engine sources, all instrumented
// (`swiftc -sanitize=fuzzer`), once with `-D FUZZ_ROUTES` and once without (the manifest decoder).
//
// A violated invariant traps, so libFuzzer saves the input as a crash file like any crash. Kinds of violation
// listed in MICROAPP_FUZZ_IGNORE (separated by `|`, each matched as a substring of the kind) are skipped, so a
// known, reported bug does not stop the search for others.
import Foundation

/// Kinds of violation not to stop on.
private let ignored: [String] = (ProcessInfo.processInfo.environment["MICROAPP_FUZZ_IGNORE"] ?? "")
    .split(separator: "|").map(String.init)

private func report(_ violations: [Violation]) {
    for violation in violations where !ignored.contains(where: { violation.kind.contains($0) }) {
        fatalError("invariant broken — \(violation.kind): \(violation.detail)")
    }
}

#if FUZZ_ROUTES
    /// The input's lines: the first two are patterns, the third a URL, the rest parameter values.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzRoutes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let patterns = Array(lines.prefix(2))
        report(
            RouteInvariants.check(
                RouteInvariants.Input(
                    patterns: patterns, values: Array(lines.dropFirst(3)) + ["1"],
                    urls: Array(lines.dropFirst(2).prefix(1)) + patterns)))
        return 0
    }
#else
    /// The input is the manifest's bytes, as the loader hands them to the decoder (invalid UTF-8 and all).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        report(ManifestInvariants.check(utf8: Array(UnsafeBufferPointer(start: data, count: size))))
        return 0
    }
#endif
