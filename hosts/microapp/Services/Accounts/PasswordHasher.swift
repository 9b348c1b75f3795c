import CCrypt

#if canImport(Glibc)
    import Glibc
#endif

/// Hashes passwords with libcrypt (`crypt_r`): yescrypt (`$y$`) where the system's libcrypt has it, else
/// SHA-512 crypt (`$6$`), with a salt from the system's random source. Clear passwords are never kept.
public struct PasswordHasher: Sendable {
    /// A crypt method, named by the prefix of the hashes it writes.
    public enum Method: String, Sendable, CaseIterable {
        /// yescrypt, libxcrypt's default and strongest.
        case yescrypt = "$y$"
        /// SHA-512 crypt, for systems without yescrypt.
        case sha512 = "$6$"
    }

    /// The longest password libcrypt accepts, in bytes (`CRYPT_MAX_PASSPHRASE_SIZE`).
    public static let maximumBytes = 512

    /// The method new hashes use.
    public let method: Method

    /// Uses yescrypt when this machine's libcrypt supports it, else SHA-512 crypt.
    public init() {
        method = Method.allCases.first { crypt_checksalt($0.rawValue) == CRYPT_SALT_OK } ?? .sha512
    }

    /// Uses `method`.
    public init(method: Method) { self.method = method }

    /// The crypt string for `password` (method, cost, salt and hash), nil when libcrypt refuses the password
    /// (longer than `maximumBytes`, or it contains a NUL) or the system gives no random bytes.
    public func hash(_ password: String) -> String? {
        guard Self.isAcceptable(password), let salt = salt() else { return nil }
        return Self.crypt(password, setting: salt)
    }

    /// Whether `password` hashes to `stored`, compared over the whole crypt output in constant time.
    public func verify(_ password: String, against stored: String) -> Bool {
        guard Self.isAcceptable(password), let computed = Self.crypt(password, setting: stored) else { return false }
        return Self.constantTimeEqual(Array(computed.utf8), Array(stored.utf8))
    }

    /// A hash of no one's password, verified against when an email is unknown, so that answering takes as long
    /// as for a known email.
    public static let decoy: String = PasswordHasher().hash(String(UInt64.random(in: .min ... .max))) ?? "*"

    /// Whether libcrypt can take `password` at all.
    static func isAcceptable(_ password: String) -> Bool {
        password.utf8.count <= maximumBytes && !password.utf8.contains(0)
    }

    private func salt() -> String? {
        var random = [UInt8](repeating: 0, count: 16)
        guard SystemRandom.fill(&random) else { return nil }
        defer { explicit_bzero(&random, random.count) }
        var output = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let made = random.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { bytes in
                crypt_gensalt_rn(
                    method.rawValue, 0, bytes.baseAddress, Int32(bytes.count), &output, Int32(output.count))
            }
        }
        guard made != nil else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `crypt_r(password, setting)`; nil when libcrypt answers a failure token (`*0`, `*1`) or nothing.
    private static func crypt(_ password: String, setting: String) -> String? {
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        let size = MemoryLayout<crypt_data>.size
        memset(data, 0, size)
        defer {
            explicit_bzero(data, size)  // crypt_data held the password and intermediate state
            data.deallocate()
        }
        guard let result = crypt_r(password, setting, data), result.pointee != 0 else { return nil }
        let text = String(cString: result)
        return text.hasPrefix("*") ? nil : text
    }

    private static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}

/// Random bytes from the kernel: `getentropy` (getrandom underneath), or `/dev/urandom` where that fails.
enum SystemRandom {
    /// Fills `bytes` (at most 256); false when the system has no random source to give.
    static func fill(_ bytes: inout [UInt8]) -> Bool {
        let count = bytes.count
        guard count <= 256 else { return false }
        if bytes.withUnsafeMutableBytes({ getentropy($0.baseAddress, count) }) == 0 { return true }
        let file = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return false }
        defer { close(file) }
        var filled = 0
        return bytes.withUnsafeMutableBytes { buffer -> Bool in
            while filled < count {
                let got = read(file, buffer.baseAddress! + filled, count - filled)
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { return false }
                filled += got
            }
            return true
        }
    }
}
