import Foundation
import MicroappCore
import MicroappDigest
import MicroappPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// A team's release key on disk: made once, the private key written with mode 0600 from its creation (never a
/// moment readable by others) in a 0700 folder, and refused when read back if anyone else may read it — as ssh
/// refuses a private key others can read.
public enum ReleaseKeyFile {
    /// Makes a key pair named `name` in `folders`: the private key, and the public key beside it. A `key-exists`
    /// problem when the name is taken (a key is never overwritten: releases signed with it would become orphans).
    public static func generate(_ name: String, in folders: ReleaseFolders) -> Result<Ed25519.PrivateKey, Problem> {
        guard isName(name) else { return .failure(badName(name)) }
        let path = folders.privateKey(name)
        guard let key = Ed25519.PrivateKey.generate() else {
            return .failure(
                Problem(
                    code: .keyGeneration, subject: path, reason: "libcrypto could not make an Ed25519 key",
                    fix: "check that OpenSSL's libcrypto 3 is installed (Debian: libssl3), then try again"))
        }
        do throws(SystemCallError) {
            try makeFolder(folders.config, mode: 0o700)
            try makeFolder(folders.keys, mode: 0o700)
            try create(path, contents: KeyText.text(of: key) + "\n", mode: 0o600)
            try create(folders.publicKey(name), contents: KeyText.text(of: key.publicKey) + "\n", mode: 0o644)
        } catch  where error.errno == EEXIST {
            return .failure(
                Problem(
                    code: .keyExists, subject: error.path ?? path, reason: "a key named \(name) exists already",
                    fix: "use that key, or choose another name; a key is never overwritten"))
        } catch {
            return .failure(error.problem)
        }
        return .success(key)
    }

    /// The private key named `name` in `folders`; a problem when it is missing, unreadable, open to others, or not
    /// a key.
    public static func read(_ name: String, in folders: ReleaseFolders) -> Result<Ed25519.PrivateKey, Problem> {
        guard isName(name) else { return .failure(badName(name)) }
        let path = folders.privateKey(name)
        let descriptor = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                return .failure(
                    Problem(
                        code: .noKey, subject: path, reason: "there is no key named \(name)",
                        fix: "make one with `microapp keygen --name \(name)`"))
            }
            return .failure(SystemCallError(call: "open", path: path, errno: code).problem)
        }
        defer { _ = close(descriptor) }
        var facts = stat()
        guard fstat(descriptor, &facts) == 0, facts.st_mode & S_IFMT == S_IFREG, facts.st_size < 4096 else {
            return .failure(notAKey(path))
        }
        guard facts.st_mode & 0o077 == 0, facts.st_uid == getuid() else {
            return .failure(
                Problem(
                    code: .keyOpenToOthers, subject: path,
                    reason:
                        "the private key is readable or writable by others (mode \(String(facts.st_mode & 0o777, radix: 8))) or not yours",
                    fix: "make it yours alone with `chmod 600 \(path)`; if others may have read it, make a new key"))
        }
        var bytes = [UInt8](repeating: 0, count: Int(facts.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count == bytes.count, let key = KeyText.privateKey(String(decoding: bytes, as: UTF8.self)) else {
            return .failure(notAKey(path))
        }
        return .success(key)
    }

    /// Whether `name` can name a key file: letters, digits, `-`, `_` and `.`, not starting with a dot.
    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
            }
    }

    private static func badName(_ name: String) -> Problem {
        Problem(
            code: .badKeyName, subject: "'\(name)'", reason: "a key's name is letters, digits, '-', '_' and '.'",
            fix: "choose a name such as `team` or `acme-release`")
    }

    private static func notAKey(_ path: String) -> Problem {
        Problem(
            code: .badKey, subject: path, reason: "it is not a private key file (one line, ed25519-private:<base64>)",
            fix: "restore it from your backup, or make a new key with `microapp keygen`")
    }

    static func makeFolder(_ path: String, mode: mode_t) throws(SystemCallError) {
        // The folders above (`~/.config`) are ordinary ones; only the last is made with `mode`.
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemCallError(call: "mkdir", path: path, errno: errno) }
    }

    private static func create(_ path: String, contents: String, mode: mode_t) throws(SystemCallError) {
        let descriptor = try SystemCall.run("open", path: path) {
            Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let failure = written == bytes.count ? 0 : (errno == 0 ? EIO : errno)
        if close(descriptor) != 0 || failure != 0 {
            unlink(path)
            throw SystemCallError(call: "write", path: path, errno: failure == 0 ? EIO : failure)
        }
    }
}
