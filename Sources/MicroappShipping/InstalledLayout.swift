import Foundation
import MicroappCore
import MicroappPlatform

/// The folders of an installed app under its prefix, as `microapp install` and `microapp bundle` lay them out:
/// `bin/<host>` (its RUNPATH `$ORIGIN/../lib`), `lib/` (the SDK and the Swift runtime libraries the host and its
/// plugins need), `plugins/` (the feature libraries and their `plugins.lock`), and `install.json`, the record that
/// marks the folder as an install (a later install may replace it; nothing else is ever replaced).
package struct InstalledLayout: Sendable, Equatable {
    /// The prefix, absolute.
    package let prefix: String

    /// The layout under `prefix`.
    package init(prefix: String) { self.prefix = prefix }

    /// The record's file name in the prefix.
    package static let recordName = "install.json"
    /// The folder names under the prefix.
    package static let binFolder = "bin"
    package static let libFolder = "lib"
    package static let pluginsFolder = "plugins"

    /// `<prefix>/bin`.
    package var bin: String { prefix + "/" + Self.binFolder }
    /// `<prefix>/lib`.
    package var lib: String { prefix + "/" + Self.libFolder }
    /// `<prefix>/plugins`.
    package var plugins: String { prefix + "/" + Self.pluginsFolder }
    /// `<prefix>/install.json`.
    package var record: String { prefix + "/" + Self.recordName }

    /// The RUNPATH each folder's ELF files get: the runtime in `lib/`, found from wherever the file is.
    package static func runpath(inFolder folder: String) -> String {
        folder == libFolder ? "$ORIGIN" : "$ORIGIN/../lib"
    }

    /// The install an executable in `folder` belongs to: `folder` is its `bin/` and the prefix above it has the
    /// record and a plugin folder. Nil for any other executable (a build folder's, a host copied anywhere else).
    package static func containing(executableFolder folder: URL) -> InstalledLayout? {
        guard folder.lastPathComponent == binFolder else { return nil }
        let layout = InstalledLayout(prefix: folder.deletingLastPathComponent().path)
        guard FileFacts.kind(of: layout.record) == .file, FileFacts.kind(of: layout.plugins) == .folder else {
            return nil
        }
        return layout
    }
}

/// `install.json`: what an install holds, written last, so that a folder with it is a whole install.
package struct InstallRecord: Codable, Sendable, Equatable {
    /// One installed file.
    package struct File: Codable, Sendable, Equatable {
        /// Its path under the prefix (`lib/libswiftCore.so`).
        package var path: String
        /// Its size in bytes.
        package var size: Int
        /// Where it was copied from.
        package var source: String
    }

    /// What the file is, so that a folder is recognized as an install by its record, not by its name.
    package var format = InstallRecord.formatName
    /// The format's version.
    package var formatVersion = 1
    /// The host executable's name in `bin/` (`microapp`, or a team's own host).
    package var host: String
    /// The host's `--version` line.
    package var hostVersion: String
    /// The configuration its files were built in (`release`, `debug`).
    package var configuration: String
    /// When it was installed (ISO 8601).
    package var installed: String
    /// Every file, under the prefix.
    package var files: [File]
    /// The libraries the install takes from the system (`libsqlite3.so.0`): not copied, found by the system's linker.
    package var system: [String]

    /// A record of `files` installed from `host` (`hostVersion`, built in `configuration`) at `installed`, taking
    /// `system` from the system.
    package init(
        host: String, hostVersion: String, configuration: String, installed: String, files: [File], system: [String]
    ) {
        self.host = host
        self.hostVersion = hostVersion
        self.configuration = configuration
        self.installed = installed
        self.files = files
        self.system = system
    }

    /// The `format` every record has.
    package static let formatName = "microapp-install"

    /// The total size of the files, in bytes.
    package var size: Int { files.reduce(0) { $0 + $1.size } }

    /// The record at `path`, nil when there is none or it is not an install's.
    package static func load(_ path: String) -> InstallRecord? {
        guard let data = Files.contents(path),
            let record = try? JSONDecoder().decode(InstallRecord.self, from: data), record.format == formatName
        else { return nil }
        return record
    }

    /// The record as written: sorted keys, indented, a final newline.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)) ?? Data()) + Data("\n".utf8)
    }
}
