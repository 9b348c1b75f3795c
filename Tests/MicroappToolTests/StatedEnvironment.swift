import Foundation
import MicroappCore

extension HostEnvironment {
    /// An environment a test states in full: only `variables`, a home and folders that are not this machine's, and
    /// the continuous clock. What the process it runs in has set does not reach the code under test.
    static func stated(
        _ variables: [String: String] = [:], home: String = "/nonexistent/home",
        temporaryFolder: String = "/nonexistent/tmp", currentDirectory: String = "/nonexistent/here"
    ) -> HostEnvironment {
        HostEnvironment(
            variables: variables, home: home, temporaryFolder: temporaryFolder, currentDirectory: currentDirectory,
            now: { ContinuousClock().now }, date: { Date() })
    }
}
