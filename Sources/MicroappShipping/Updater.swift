import Foundation
import MicroappCore
import MicroappLoading
import MicroappPlatform
import MicroappSDK

/// Updates one plugin folder from one channel: what `microapp update` runs, and what a running app calls to check
/// its channel. For each feature the folder runs, the newest release the channel's verified index offers that this
/// host may take (its SDK, never back, not marked bad) is downloaded file by file, bounded by the index's sizes,
/// checked against the index's hashes and the release's signed record, kept beside the running version in
/// `.versions`, and made the running one with one rename, pinned in the folder's lock (`PluginVersions.activate`).
///
/// Nothing is written before every chosen release verified: one refusal (a file whose bytes differ from the index,
/// a record signed by no trusted key) and the folder is left byte for byte as it was. Releases passed over for
/// their SDK, or for going back, are refused without stopping the others. Blocks: call it off the cooperative pool.
public struct Updater: Sendable {
    /// The channel.
    public var channel: ChannelSource
    /// The plugin folder's kept versions (and so the folder).
    public var versions: PluginVersions
    /// The person's trust list and record of channels.
    public var store: ReleaseStore
    /// The SDK this host speaks.
    public var sdk: SDKVersion
    /// How many versions older than the running one stay kept for a rollback.
    public var keep = 2
    /// The probe and its cache, which tell the feature and version of a library with no kept version (one put in
    /// the folder by hand): its manifest as the sandboxed probe read it.
    public var screening: PluginScreening
    /// The bounds of one check's downloads (its deadline, the floor on speed).
    public var limits: CheckLimits
    /// Reads the clock a check's deadline is on.
    public var clock: @Sendable () -> ContinuousClock.Instant

    /// An updater of the plugin folder `plugins` from `channel`, with the person's release files and the host's probe
    /// from `environment`.
    public init(
        channel: ChannelSource, plugins: String, environment: HostEnvironment, sdk: SDKVersion = .current,
        screening: PluginScreening? = nil
    ) {
        self.channel = channel
        self.versions = PluginVersions(plugins: plugins)
        self.store = ReleaseStore(folders: ReleaseFolders(environment: environment))
        self.sdk = sdk
        self.screening = screening ?? PluginScreening(environment: environment)
        self.limits = CheckLimits(environment: environment)
        self.clock = environment.now
    }

    /// A feature the folder runs: its id, version and library.
    public struct Feature: Sendable, Equatable {
        /// The feature's id.
        public var id: String
        /// The version running.
        public var version: Int
        /// The running library.
        public var library: PluginVersions.Running
    }

    /// The features the folder runs, by id: each library's kept version, else the manifest the probe (or its cache)
    /// read from it. A library the probe refuses is left out.
    public func features() -> [String: Feature] {
        var screening = screening
        var found: [String: Feature] = [:]
        for library in versions.running() {
            if let kept = library.version {
                found[kept.feature] = Feature(id: kept.feature, version: kept.version, library: library)
            } else if case .success(let copy) = LibraryCopy.make(library.path),
                let manifest = screening.screen(copy).description?.manifest
            {
                found[manifest.id] = Feature(id: manifest.id, version: manifest.version, library: library)
            }
        }
        screening.cache.save()
        return found
    }

    /// Checks the channel at `now` and installs what is newer, every download within `budget` (nil: a check of its
    /// own, starting now); the report says what moved and what was refused.
    public func update(now: Date, within budget: CheckBudget? = nil) -> UpdateReport {
        let budget = budget ?? CheckBudget(limits, clock: clock)
        guard Files.isDirectory(versions.plugins) else {
            return UpdateReport(
                refusing: Problem(
                    code: .noPluginFolder, subject: versions.plugins, reason: "there is no such folder",
                    fix: "name the app's plugin folder with --plugins DIR"))
        }
        // The folder itself is the lock between two updates: a refused update leaves no file behind.
        return FileLock.withExclusiveFolderLock(versions.plugins) { () -> UpdateReport? in
            var report = UpdateReport()
            run(now: now, within: budget, into: &report)
            return report
        }
            ?? UpdateReport(
                refusing: Problem(
                    code: .updateBusy, subject: versions.plugins, reason: "another update of this folder is running",
                    fix: "wait for it to finish, then update again"))
    }

    private func run(now: Date, within budget: CheckBudget, into report: inout UpdateReport) {
        // The lock is read before anything is fetched or written: a damaged one would refuse the install after
        // `.versions` had been written.
        do {
            _ = try PluginLock.load(in: versions.plugins)
        } catch {
            report.refused.append(error)
            return
        }
        var trust: TrustList
        var seen: SeenVersions
        switch (store.trustList(), store.seenVersions()) {
        case (.success(let list), .success(let record)): (trust, seen) = (list, record)
        case (.failure(let problem), _), (_, .failure(let problem)):
            report.refused.append(problem)
            return
        }
        let fetched: (index: Data, signature: Data)
        switch channel.index(within: budget) {
        case .success(let found): fetched = found
        case .failure(let problem):
            report.refused.append(problem)
            return
        }
        trust = followingRotations(trust, signature: fetched.signature, within: budget, into: &report)
        var verification = ChannelVerification(channel: channel.name, trust: trust, seen: seen, sdk: sdk)
        let verified: VerifiedIndex
        switch verification.verifyIndex(fetched.index, signature: fetched.signature, now: now) {
        case .success(let index): verified = index
        case .failure(let problem):
            report.refused.append(problem)
            return
        }
        let names = verified.recordNames(channel: channel.name)
        verification.recordNames = names
        for name in names { seen = seen.seeing(index: verified.index.version, from: name) }
        defer { if let problem = store.save(seen) { report.refused.append(problem) } }

        let running = features()
        var offered = verified.index
        for (feature, entries) in offered.features {
            let marks: BadVersions
            switch versions.marks(of: feature) {
            case .success(let read): marks = read
            case .failure(let problem):
                // Nothing of a feature whose marks cannot be read is installed: any version may be one marked bad.
                if running[feature] != nil { report.refused.append(problem) }
                offered.features[feature] = []
                continue
            }
            offered.features[feature] = entries.filter { entry in
                guard let mark = marks.mark(of: entry.version) else { return true }
                if let installed = running[feature]?.version, entry.version > installed {
                    report.skipped.append(
                        Problem(
                            code: .markedBad, subject: "\(feature) \(entry.version)",
                            reason: "this plugin folder marked it bad: \(mark.reason)",
                            fix: "nothing to do: a later version is installed when the channel has one"))
                }
                return false
            }
        }
        let choice = verification.updates(
            in: offered, installed: running.mapValues(\.version), signedBy: verified.signer)
        report.refused += choice.refused

        var downloaded: [(Feature, InstalledVersion, [(String, Data)])] = []
        for feature in choice.updates.keys.sorted() {
            switch download(
                choice.updates[feature]!, of: running[feature]!, trust: trust, verification, now: now, within: budget)
            {
            case .success(let release): downloaded.append(release)
            case .failure(let problem): report.refused.append(problem)
            }
        }
        // All or nothing: one release refused and the folder stays as it was.
        guard downloaded.count == choice.updates.count else { return }
        for (feature, record, files) in downloaded {
            switch install(record, files: files, replacing: feature, now: now) {
            case .success(let installed):
                report.installed.append(installed)
                for name in names { seen = seen.accepting(record.feature, version: record.version, from: name) }
            case .failure(let problem): report.refused.append(problem)
            }
        }
    }

    /// `trust` after the channel's key rotations, when the index is signed by a key it does not trust: each
    /// announcement signed by a trusted key hands that name (and its feature ids) to the new key, saved in the
    /// person's list and told in the report. A channel without rotations leaves `trust` as it is.
    private func followingRotations(
        _ trust: TrustList, signature: Data, within budget: CheckBudget, into report: inout UpdateReport
    ) -> TrustList {
        guard let signer = try? SignatureFile.decode(signature, subject: "").get(), trust.trusted(signer.key) == nil,
            case .success(let bytes) = channel.rotations(within: budget), let file = RotationFile.decode(bytes)
        else { return trust }
        let (rotated, notes) = trust.following(file)
        guard !notes.isEmpty else { return trust }
        if let problem = store.save(rotated) {
            report.refused.append(problem)
            return trust
        }
        report.notes += notes
        return rotated
    }

    /// Downloads and verifies every file of `entry`, a release replacing `feature`: the files as the index lists
    /// them, the record signed by a trusted key and saying what the index says, the library named as the running one.
    private func download(
        _ entry: ChannelIndex.Entry, of feature: Feature, trust: TrustList, _ verification: ChannelVerification,
        now: Date, within budget: CheckBudget
    ) -> Result<(Feature, InstalledVersion, [(String, Data)]), Problem> {
        var files: [String: Data] = [:]
        for file in entry.files {
            switch channel.file(file, within: budget) {
            case .success(let bytes): files[(file.path as NSString).lastPathComponent] = bytes
            case .failure(let problem): return .failure(problem)
            }
        }
        let recordPath = ChannelLayout.folder(feature: feature.id, version: entry.version) + "/" + ReleaseLayout.record
        guard let recordBytes = files[ReleaseLayout.record], let signature = files[ReleaseLayout.signature],
            entry.library != nil
        else {
            return .failure(
                Problem(
                    code: .releaseIncomplete, subject: channel.location(of: recordPath),
                    reason: "the index lists no signed record or no library for \(feature.id) \(entry.version)",
                    fix: "tell the publisher; publishing the release again lists all its files"))
        }
        let release: SignedRelease
        switch SignedRelease.verify(
            recordBytes: recordBytes, signatureBytes: signature, subject: channel.location(of: recordPath),
            trust: trust)
        {
        case .success(let (verified, signer)):
            // The record's own signer too: an index key in scope does not lend its scope to another key's record.
            if let problem = signer.scopeProblem(feature.id, subject: channel.location(of: recordPath)) {
                return .failure(problem)
            }
            release = verified
        case .failure(let problem): return .failure(problem)
        }
        if let problem = verification.checkRecord(release.record, against: entry, of: feature.id) {
            return .failure(problem)
        }
        let name = (feature.library.path as NSString).lastPathComponent
        guard release.record.library.path == name else {
            return .failure(
                Problem(
                    code: .releaseRenamed, subject: "\(feature.id) \(entry.version)",
                    reason:
                        "its library is \(release.record.library.path), and this folder runs \(feature.id) as \(name)",
                    fix: "install it by hand: remove \(feature.library.path) and copy the new library in"))
        }
        let record = InstalledVersion(
            feature: feature.id, version: entry.version, library: release.record.library, channel: channel.name,
            installed: now)
        // checkRecord matched the index's library to the record's, whose name is the running library's.
        return .success((feature, record, files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// Keeps the running version when it was not kept yet, keeps `record` with its files, makes it the running one
    /// and prunes versions past `keep`.
    private func install(
        _ record: InstalledVersion, files: [(String, Data)], replacing feature: Feature, now: Date
    ) -> Result<UpdateReport.Installed, Problem> {
        var previous = feature.library.version
        if previous == nil, let bytes = Files.contents(feature.library.path) {
            let name = (feature.library.path as NSString).lastPathComponent
            let kept = InstalledVersion(
                feature: feature.id, version: feature.version, library: FileEntry(path: name, bytes: bytes),
                channel: nil, installed: now)
            if let problem = versions.keep(kept, files: [(name, bytes)]) { return .failure(problem) }
            previous = kept
        }
        if let problem = versions.keep(record, files: files) { return .failure(problem) }
        if let problem = versions.activate(record) { return .failure(problem) }
        versions.prune(record.feature, keeping: keep, running: record.version)
        return .success(
            UpdateReport.Installed(
                feature: record.feature, from: feature.version, to: record.version, library: feature.library.path,
                previous: previous.map(versions.library)))
    }
}

extension UpdateReport {
    /// A report of `problem` alone.
    init(refusing problem: Problem) {
        self.init()
        refused = [problem]
    }
}
