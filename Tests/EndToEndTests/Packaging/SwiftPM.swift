import Foundation

/// `swift` run on a package outside this repository (never on the repository's own `.build`: this test run holds its
/// lock), for the suites whose claim is that such a package builds with SwiftPM.
enum SwiftPM {
    /// Options for a fixture build whose claim is that the package compiles, links and runs, not that it can be
    /// debugged or indexed: no index store, no debug information (about a fifth less CPU for a clean build of the
    /// engine). Not for a package that a `microapp` under test builds again itself: a build with other options would
    /// rebuild every module.
    static let fixtureOptions = ["--disable-index-store", "-Xswiftc", "-gnone"]

    /// Runs `swift ARGUMENTS` in `folder` at the lowest priority (the tests that drive apps keep the CPU first),
    /// stopped after `timeout`; returns its status and output.
    static func run(_ arguments: [String], in folder: URL, timeout: Duration) async throws -> (Int32, String) {
        let (status, out, err) = try await runToEnd(
            ["timeout", "--kill-after=10", "\(timeout.components.seconds)", "nice", "-n", "19", "swift"] + arguments,
            executable: "/usr/bin/env", in: folder)
        if status == 124 { throw AppProcessError("`swift \(arguments.joined(separator: " "))` took over \(timeout)") }
        return (status, out + err)
    }
}
