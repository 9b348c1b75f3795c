/// Every code a person may see, named once with what it means: a `Problem`'s, and a notice's (the terminal's footer,
/// `{"type":"error"|"notice","code":…}` lines). Sections follow docs/troubleshooting.md, which `ProblemCatalogueTests`
/// checks against this table: every code documented, no documented code unknown, and no code spelled as a string
/// anywhere else in the package. To add a code: a `static let` here with its one-line meaning, and its row in the docs.
/// A host adds codes of its own the same way, in an extension of its own.
extension Problem.Code {
    // MARK: Loading a library

    /// No file at that path, no running feature of that id (a swap), or no route that matches the URL.
    public static let notFound: Self = "not-found"
    /// Not an ELF shared object for this machine: an executable, a truncated or foreign file, not a regular file.
    public static let notSharedObject: Self = "not-shared-object"
    /// The library, or its folder, is writable by group or others, or owned by another user.
    public static let unsafePermissions: Self = "unsafe-permissions"
    /// `dlopen` failed, or the library could not be read or copied, or its feature host could not start.
    public static let loadFailed: Self = "load-failed"
    /// The library exports no `microapp_entry`.
    public static let noEntrySymbol: Self = "no-entry-symbol"
    /// `microapp_entry` returned null.
    public static let nullDescriptor: Self = "null-descriptor"
    /// The descriptor is of another ABI major.
    public static let abiMismatch: Self = "abi-mismatch"
    /// The descriptor is shorter than the frozen 1.0 layout.
    public static let shortDescriptor: Self = "short-descriptor"
    /// Built against another SDK major or a newer minor, or needs two SDK versions at once.
    public static let sdkMismatch: Self = "sdk-mismatch"
    /// The manifest does not decode, breaks a rule, or a new build changed its id.
    public static let badManifest: Self = "bad-manifest"
    /// Registration returned an error or registered no feature.
    public static let registerFailed: Self = "register-failed"
    /// An isolated child did not register within its time.
    public static let registerHung: Self = "register-hung"
    /// Loading the library crashed the sandboxed probe process.
    public static let probeCrashed: Self = "probe-crashed"
    /// The probe did not answer within its time.
    public static let probeHung: Self = "probe-hung"
    /// The probe process could not start or gave no verdict.
    public static let probeFailed: Self = "probe-failed"
    /// This kernel lacks part of the sandbox (Landlock, seccomp) needed to probe or isolate a library.
    public static let sandboxMissing: Self = "sandbox-missing"
    /// Isolated children run without a PID namespace and /proc of their own (warning).
    public static let namespacesMissing: Self = "namespaces-missing"
    /// A library in the build folder whose `Plugins/<Name>` folder is gone was not loaded (notice).
    public static let skippedLibraries: Self = "skipped-libraries"

    // MARK: Trust and the plugin lock

    /// A folder's `plugins.lock` does not pin this library's bytes.
    public static let lockMismatch: Self = "lock-mismatch"
    /// A folder that had a lock has none any more (warning).
    public static let lockMissing: Self = "lock-missing"
    /// The probe cache or a `plugins.lock` is writable by others or not yours, so it is ignored (warning).
    public static let untrustedFile: Self = "untrusted-file"
    /// `microapp lock` could not write the folder's `plugins.lock`.
    public static let lockNotWritten: Self = "lock-not-written"
    /// `microapp lock` could not remember the folder as locked.
    public static let lockHistoryNotWritten: Self = "lock-history-not-written"

    // MARK: Resolving the set

    /// Two libraries with the same feature id.
    public static let duplicateFeature: Self = "duplicate-feature"
    /// Two features declare routes that match the same URLs, or a swap changed the routes.
    public static let routeConflict: Self = "route-conflict"
    /// A route scheme another feature (or the host) owns.
    public static let schemeTaken: Self = "scheme-taken"
    /// A display name or tab title another feature (or the host) owns.
    public static let nameTaken: Self = "name-taken"
    /// A display name or tab title that looks like one another keeps, or cannot be read.
    public static let nameConfusable: Self = "name-confusable"
    /// A required key nobody offers.
    public static let missingRequirement: Self = "missing-requirement"
    /// Requirement and offer disagree on the type's name.
    public static let wrongType: Self = "wrong-type"
    /// Requirement and offer disagree on the JSON shape.
    public static let wrongShape: Self = "wrong-shape"
    /// A requirement asks for write access to a value offered read-only.
    public static let wrongAccess: Self = "wrong-access"
    /// A second read-write owner of a state.
    public static let secondOwner: Self = "second-owner"
    /// A second sign-in route.
    public static let secondSignIn: Self = "second-sign-in"
    /// Two providers of a key.
    public static let duplicateProvider: Self = "duplicate-provider"
    /// Services that need each other.
    public static let cycle: Self = "dependency-cycle"
    /// The provider of a key was refused.
    public static let providerDisabled: Self = "provider-disabled"
    /// The feature asks for a key the host does not grant it.
    public static let notGranted: Self = "not-granted"
    /// A capability this host does not know.
    public static let unknownCapability: Self = "unknown-capability"
    /// A capability the host does not allow.
    public static let capabilityNotAllowed: Self = "capability-not-allowed"
    /// `solo --mock KEY=VARIANT` names no such key or variant.
    public static let mockChoice: Self = "mock-choice"
    /// A feature asked its container for a key it was not given.
    public static let dependency: Self = "dependency"
    /// The feature's `makeRoot`/`provide` threw, or a new version could not start or take the state.
    public static let startFailed: Self = "start-failed"
    /// No feature is left to run (exit 2).
    public static let nothingToRun: Self = "nothing-to-run"

    // MARK: While the app runs

    /// An in-process plugin crashed or hung the app; the supervisor restarted it without that plugin.
    public static let pluginCrashed: Self = "plugin-crashed"
    /// The app crashed outside any plugin, so the supervisor cannot leave one out.
    public static let appCrashed: Self = "app-crashed"
    /// The supervisor could not start the app's process.
    public static let appNotStarted: Self = "app-not-started"
    /// The supervisor could not make its private folder in the temporary folder.
    public static let noTemporaryFolder: Self = "no-temporary-folder"
    /// The supervised app could not ask the kernel to end it with its supervisor.
    public static let noParentDeathSignal: Self = "no-parent-death-signal"
    /// An isolated feature's child crashed.
    public static let featureCrashed: Self = "feature-crashed"
    /// An isolated feature's child exited.
    public static let featureExited: Self = "feature-exited"
    /// An isolated feature's child was killed (by a signal, or out of memory).
    public static let featureKilled: Self = "feature-killed"
    /// An isolated feature's child stopped answering within the feature deadline.
    public static let featureHung: Self = "feature-hung"
    /// An isolated child broke a protocol rule and was cut off.
    public static let featureProtocol: Self = "feature-protocol"
    /// A feature stopped too often, or was turned off: it stays off for this run.
    public static let featureOff: Self = "feature-off"
    /// A stopped feature could not start again.
    public static let restartFailed: Self = "restart-failed"
    /// A route leads to a feature that was refused at start.
    public static let featureDisabled: Self = "feature-disabled"
    /// A feature tried to move the person while not on top or outside the time after their action.
    public static let navigationRefused: Self = "navigation-refused"
    /// A scripted event waited longer than `--settle-timeout` for the app to settle.
    public static let notSettled: Self = "not-settled"
    /// A scripted `tap`, `input` or `select` named what the latest frame does not show.
    public static let notOnScreen: Self = "not-on-screen"
    /// A route answered with its error screen.
    public static let screenError: Self = "screen-error"
    /// An input line or posted body is not one event.
    public static let badEvent: Self = "bad-event"
    /// microapp could not write a `--json` line (exit 70).
    public static let outputFailed: Self = "output-failed"
    /// A system call failed; the message names the call, the file and errno.
    public static let systemCall: Self = "system-call"

    // MARK: Building and hot swap

    /// The saved source, or the package a release builds, does not compile.
    public static let buildFailed: Self = "build-failed"
    /// `swift build` could not be started.
    public static let buildNotStarted: Self = "build-not-started"
    /// The new version's `restore(from:)` threw, so it started with fresh screens.
    public static let stateReset: Self = "state-reset"
    /// The previous version could not start again.
    public static let rollbackFailed: Self = "rollback-failed"
    /// There is no previous version to roll back to.
    public static let noPreviousVersion: Self = "no-previous-version"
    /// A `Plugins/<Name>` folder the feature list in `Package.swift` does not name.
    public static let featureNotListed: Self = "feature-not-listed"
    /// The feature list in `Package.swift` names a `Plugins/<Name>` folder that is gone.
    public static let featureFolderMissing: Self = "feature-folder-missing"
    /// A feature's previews failed.
    public static let previewsFailed: Self = "previews-failed"
    /// `preview --ui web --watch` shows no feature built from sources it can rebuild.
    public static let notWatching: Self = "not-watching"
    /// The feature has no previews.
    public static let noPreviews: Self = "no-previews"
    /// Two previews of a feature have the same name.
    public static let previewNameClash: Self = "preview-name-clash"
    /// The previews could not be written to their folder.
    public static let previewsNotWritten: Self = "previews-not-written"
    /// `microapp sdk` found no SDK installed where the environment names.
    public static let sdkMissing: Self = "sdk-missing"
    /// `microapp sdk` found the installed SDK older than the checkout's.
    public static let sdkStale: Self = "sdk-stale"

    // MARK: Updates and channels

    /// A version from the channel failed its canary window: the one before runs again, the new one is bad.
    public static let updateRolledBack: Self = "update-rolled-back"
    /// The app ended inside a new version's canary window without that version crashing it (notice).
    public static let canaryCutShort: Self = "canary-cut-short"
    /// A check of the channel was refused: nothing changed.
    public static let updateRefused: Self = "update-refused"
    /// A check of the channel could not run: nothing changed.
    public static let updateCheckFailed: Self = "update-check-failed"
    /// A version that failed its canary could not be marked bad in its plugin folder.
    public static let updateRejectFailed: Self = "update-reject-failed"
    /// A `check-updates` event reached an app that follows no channel.
    public static let noChannel: Self = "no-channel"
    /// SIGUSR1 cannot be set up to ask for a check.
    public static let noUpdateSignal: Self = "no-update-signal"
    /// Another update of the same plugin folder is running.
    public static let updateBusy: Self = "update-busy"
    /// The plugin folder's lock, versions or update lock could not be written.
    public static let updateWrite: Self = "update-write"
    /// The plugin folder to update does not exist.
    public static let noPluginFolder: Self = "no-plugin-folder"
    /// `rollback` or `versions` names a feature the plugin folder does not run.
    public static let noSuchFeature: Self = "no-such-feature"
    /// No kept version to roll back to, or not the one asked for.
    public static let noRollback: Self = "no-rollback"
    /// A release this plugin folder marked bad is not installed again.
    public static let markedBad: Self = "marked-bad"
    /// The index lists no signed record or no library for a release.
    public static let releaseIncomplete: Self = "release-incomplete"
    /// A release renames the feature's library, which an update does not do.
    public static let releaseRenamed: Self = "release-renamed"
    /// A library's private copy changed between its check and its release.
    public static let releaseLibraryChanged: Self = "release-library-changed"
    /// A kept version's signed record no longer verifies against your trust list.
    public static let versionUntrusted: Self = "version-untrusted"
    /// A plugin folder's record of versions marked bad cannot be read.
    public static let badVersionsDamaged: Self = "bad-versions-damaged"
    /// A kept version's bytes are not the ones installed.
    public static let keptVersionDamaged: Self = "kept-version-damaged"
    /// Your trust list or the record of what each channel was seen at cannot be read or written.
    public static let badReleaseFile: Self = "bad-release-file"
    /// The channel's server sent a file compressed.
    public static let channelContentCoding: Self = "channel-content-coding"
    /// A download averaged too few bytes a second once past its grace.
    public static let channelTooSlow: Self = "channel-too-slow"
    /// The whole check passed its deadline.
    public static let channelDeadline: Self = "channel-deadline"
    /// The channel has no such file.
    public static let channelMissingFile: Self = "channel-missing-file"
    /// The channel's server answered another HTTP status than 200.
    public static let channelHttpStatus: Self = "channel-http-status"
    /// The channel's server went quiet.
    public static let channelTimeout: Self = "channel-timeout"
    /// The channel cannot be fetched.
    public static let channelUnreachable: Self = "channel-unreachable"
    /// An `https://` channel's certificate did not verify against the system's store and any named authority file.
    public static let channelCertificate: Self = "channel-certificate"
    /// The authority file or folder `SSL_CERT_FILE`, `CURL_CA_BUNDLE` or `SSL_CERT_DIR` names cannot be read.
    public static let channelCertificateFile: Self = "channel-certificate-file"
    /// A channel's file is larger than such a file may be.
    public static let channelFileTooLarge: Self = "channel-file-too-large"
    /// A signed document (release record, index, key rotations) whose signature or contents cannot be read.
    public static let badDocument: Self = "bad-signed-document"
    /// Signed by a key you do not trust.
    public static let untrustedKey: Self = "untrusted-key"
    /// The index's signature does not verify against the key it names.
    public static let indexSignature: Self = "index-signature"
    /// A release record's signature does not verify against the key it names.
    public static let releaseSignature: Self = "release-signature"
    /// The index is past its expiry.
    public static let indexExpired: Self = "index-expired"
    /// The index expires further ahead than a host accepts.
    public static let indexExpiryTooFar: Self = "index-expiry-too-far"
    /// The index's version is lower than one seen before from the same channel.
    public static let indexRollback: Self = "index-rollback"
    /// A release older than one seen before of the same feature from the same channel.
    public static let releaseRollback: Self = "release-rollback"
    /// A file whose hash or size differs from what the signed document says.
    public static let fileMismatch: Self = "file-mismatch"
    /// A download ran past the size the index gives.
    public static let downloadTooLarge: Self = "download-too-large"
    /// A release built for an SDK this host does not speak, or a library that needs no single SDK version.
    public static let releaseSDK: Self = "release-sdk"
    /// A release whose version is not above the installed one.
    public static let notAnUpdate: Self = "not-an-update"
    /// A release record that does not say what the index says of it.
    public static let releaseMismatch: Self = "release-mismatch"
    /// A channel's entry or release of a feature the signing key is not trusted to sign.
    public static let keyScope: Self = "key-scope"

    // MARK: Releases and keys

    /// A release folder is there already: it is never written over.
    public static let releaseExists: Self = "release-exists"
    /// A folder without a release record and its signature.
    public static let notARelease: Self = "not-a-release"
    /// A release's files could not be written.
    public static let releaseWrite: Self = "release-write"
    /// `microapp release` found no package to build the feature from.
    public static let releaseNoPackage: Self = "release-no-package"
    /// The build succeeded but wrote no such library.
    public static let releaseNoLibrary: Self = "release-no-library"
    /// The probe found no manifest in the library to release.
    public static let releaseNoManifest: Self = "release-no-manifest"
    /// The library's manifest has no version to release.
    public static let releaseNoVersion: Self = "release-no-version"
    /// A feature id or library name cannot name a file in a release.
    public static let releaseBadName: Self = "release-bad-name"
    /// libcrypto could not make an Ed25519 key.
    public static let keyGeneration: Self = "key-generation"
    /// A key of that name exists already.
    public static let keyExists: Self = "key-exists"
    /// There is no key of that name.
    public static let noKey: Self = "no-key"
    /// A private key file others can read or write.
    public static let keyOpenToOthers: Self = "key-open-to-others"
    /// A key's name is not letters, digits, `-`, `_` and `.`.
    public static let badKeyName: Self = "bad-key-name"
    /// A file that is not a private key.
    public static let badKey: Self = "bad-key"

    // MARK: Usage

    /// An unknown command or option, a missing value, an operand a command does not take (exit 1).
    public static let usage: Self = "usage"
    /// A URL or route pattern that is not `feature://path`.
    public static let badRoute: Self = "bad-route"

    // MARK: In a browser

    /// `--ui web` could not listen on 127.0.0.1:PORT.
    public static let webPort: Self = "web-port"
    /// Graphviz's `dot` could not be started, or failed to draw the graph.
    public static let graphLayout: Self = "graph-layout"

    // MARK: Installing and bundling

    /// `--prefix` (or a bundle's `-o DIR`) is in `.build`, a file, or a folder that is not an earlier install.
    public static let installPrefix: Self = "install-prefix"
    /// The build folder of `--configuration` has no host.
    public static let installNoBuild: Self = "install-no-build"
    /// A file of the install could not be copied or written.
    public static let installNotWritten: Self = "install-not-written"
    /// The finished install could not be put at the prefix.
    public static let installNotPlaced: Self = "install-not-placed"
    /// A host, SDK or plugin file is not an ELF file the linker wrote.
    public static let elfUnreadable: Self = "elf-unreadable"
    /// A file's RUNPATH cannot take `$ORIGIN/../lib` in place.
    public static let runpathNotRewritable: Self = "runpath-not-rewritable"
    /// The build has no `lib<NAME>.so`.
    public static let bundleUnknownFeature: Self = "bundle-unknown-feature"
    /// The bundle could not be packed or written.
    public static let bundleNotWritten: Self = "bundle-not-written"

    // MARK: System libraries

    /// A system library opened when first needed (libcurl, libmicrohttpd) is not installed or cannot be loaded.
    public static let systemLibraryMissing: Self = "system-library-missing"

    // MARK: Notices

    /// A route that needs a session went to sign-in first and continues after.
    public static let redirect: Self = "redirect"
    /// In solo, a route to a feature that is not loaded: where it would go.
    public static let stub: Self = "stub"
    /// The first screen: nothing to go back to.
    public static let noBack: Self = "no-back"
    /// A line an isolated feature printed.
    public static let log: Self = "log"
    /// Every feature started late (after the first frame) answered its start.
    public static let ready: Self = "ready"
    /// A stopped feature started again.
    public static let featureRestarted: Self = "feature-restarted"
    /// A new version passed its canary window.
    public static let canaryPassed: Self = "canary-passed"
    /// A check was asked for while one ran; another follows it.
    public static let updateCheckUnderWay: Self = "update-check-under-way"
    /// A check of the channel found nothing new.
    public static let updateChecked: Self = "update-checked"
    /// A check installed new versions.
    public static let updated: Self = "updated"
    /// The channel's key rotation was followed.
    public static let trustRotated: Self = "trust-rotated"
    /// `--watch` is watching these folders.
    public static let watching: Self = "watching"
    /// A save with the same bytes as last built: nothing to build.
    public static let unchanged: Self = "unchanged"
    /// A feature is being built.
    public static let building: Self = "building"
    /// A feature was built and swapped in.
    public static let built: Self = "built"
    /// The gallery drew a rebuilt feature's cards again (`preview --ui web --watch`).
    public static let previewsRedrawn: Self = "previews-redrawn"
    /// A new version of a feature took its place.
    public static let swapped: Self = "swapped"
    /// A feature went back to the version before.
    public static let rolledBack: Self = "rolled-back"
}
