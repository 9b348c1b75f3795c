import MicroappCore
import TestScratch
import Testing

@Suite("Where each feature runs: the isolation decision")
struct IsolationDecisionTests {
    typealias Row = (IsolationChoice, LibraryTrust.Origin, LibraryTrust.Lock, Isolation, String)

    static let table: [Row] = [
        (.auto, .repository, .absent, .inProcess, "built in this repository's own build folder"),
        (.auto, .repository, .pinned(setting: nil), .inProcess, "built in this repository's own build folder"),
        (.auto, .repository, .pinned(setting: .process), .process, "plugins.lock sets isolation process"),
        (
            .auto, .repository, .untrusted("it is writable by its group"), .process,
            "plugins.lock is ignored (it is writable by its group)"
        ),
        (.auto, .pluginsFolder("/opt/extra"), .absent, .process, "from the plugin folder /opt/extra"),
        (.auto, .pluginsFolder("/opt/extra"), .pinned(setting: nil), .process, "from the plugin folder /opt/extra"),
        (
            .auto, .pluginsFolder("/opt/extra"), .pinned(setting: .inProcess), .inProcess,
            "plugins.lock sets isolation none"
        ),
        (
            .auto, .pluginsFolder("/opt/extra"), .untrusted("it belongs to uid 1001"), .process,
            "plugins.lock is ignored (it belongs to uid 1001)"
        ),
        (.auto, .besideHost, .absent, .process, "not pinned by a plugins.lock"),
        (.auto, .besideHost, .pinned(setting: nil), .inProcess, "pinned by plugins.lock"),
        (.process, .repository, .absent, .process, "--isolation process"),
        (.process, .besideHost, .pinned(setting: .inProcess), .process, "--isolation process"),
        (.inProcess, .pluginsFolder("/opt/extra"), .absent, .inProcess, "--isolation none"),
        (
            .inProcess, .pluginsFolder("/opt/extra"), .untrusted("it is writable by everyone"), .inProcess,
            "--isolation none"
        ),
        (.inProcess, .besideHost, .pinned(setting: .process), .inProcess, "--isolation none"),
    ]

    @Test("each choice, origin and lock gives one mode and the reason for it", .offThePool, arguments: table.indices)
    func decision(row: Int) {
        let (choice, origin, lock, mode, reason) = Self.table[row]
        let decided = IsolationDecision.decide(choice, for: LibraryTrust(origin: origin, lock: lock))
        #expect(decided == IsolationDecision(mode, reason: reason), "row \(row)")
    }

    @Test(
        "under auto, a library the repository did not build runs in-process only when a trusted lock says so",
        .offThePool)
    func onlyTrustRunsForeignCodeInProcess() {
        let foreign: [LibraryTrust.Origin] = [.pluginsFolder("/x"), .besideHost]
        let locks: [LibraryTrust.Lock] = [.absent, .untrusted("group-writable"), .pinned(setting: .process)]
        for origin in foreign {
            for lock in locks {
                #expect(IsolationDecision.decide(.auto, for: LibraryTrust(origin: origin, lock: lock)).mode == .process)
            }
        }
    }
}

@Suite("How far the host trusts a library: from its origin and its folder's lock")
struct FeatureTrustTests {
    @Test(
        "the repository's build is own, a trusted lock pins, anything else or an ignored lock anywhere is untrusted",
        .offThePool,
        arguments: [
            (LibraryTrust.Origin.repository, LibraryTrust.Lock.absent, FeatureTrust.own),
            (.repository, .pinned(setting: .process), .own),
            (.repository, .untrusted("it is writable by its group"), .untrusted),
            (.besideHost, .absent, .untrusted),
            (.besideHost, .pinned(setting: nil), .pinned),
            (.pluginsFolder("/opt/extra"), .absent, .untrusted),
            (.pluginsFolder("/opt/extra"), .pinned(setting: .inProcess), .pinned),
            (.pluginsFolder("/opt/extra"), .untrusted("it belongs to uid 1001"), .untrusted),
        ])
    func level(origin: LibraryTrust.Origin, lock: LibraryTrust.Lock, expected: FeatureTrust) {
        #expect(LibraryTrust(origin: origin, lock: lock).level == expected)
    }

    @Test("trust is ordered from untrusted to the repository's own", .offThePool)
    func order() {
        #expect(FeatureTrust.untrusted < .pinned && FeatureTrust.pinned < .own)
        #expect(FeatureTrust.allCases.sorted() == [.untrusted, .pinned, .own])
    }
}
