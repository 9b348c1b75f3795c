import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What an isolated feature's process may do once it has applied `Sandbox.apply`: read beneath `readPaths`, write
/// beneath `writePaths`, use the network or not, and how much memory, CPU time, file size and descriptors it gets.
public struct SandboxPolicy: Sendable, Equatable {
    /// Paths it may read and map as code beneath (folders whole, files alone); each must exist.
    public var readPaths: [String]
    /// Paths it may read, write, create in and remove from (its scratch folder, `/dev/null`); each must exist.
    public var writePaths: [String]
    /// Whether TCP/UDP sockets are allowed (the `network` capability). Unix sockets never are.
    public var network: Bool
    /// Private writable memory in bytes (heap, anonymous mappings, thread stacks: RLIMIT_DATA).
    public var memoryLimit: UInt64
    /// All mappings in bytes, shared ones too (RLIMIT_AS).
    public var addressSpaceLimit: UInt64
    /// CPU time in seconds before the kernel ends the process (RLIMIT_CPU): a backstop, not the host's watchdog.
    public var cpuSeconds: UInt64
    /// The largest file it may write, in bytes (RLIMIT_FSIZE; a write past it fails with EFBIG).
    public var fileSizeLimit: UInt64
    /// How many descriptors it may hold open (RLIMIT_NOFILE).
    public var openFilesLimit: UInt64
    /// Whether a mechanism the kernel lacks (Landlock, seccomp) is skipped instead of failing (`--allow-unsandboxed`).
    public var bestEffort: Bool

    /// 1 GiB of private writable memory.
    public static let defaultMemoryLimit: UInt64 = 1 << 30
    /// 16 GiB of address space: the Swift runtime reserves far more than it uses (malloc arenas, thread stacks).
    public static let defaultAddressSpaceLimit: UInt64 = 16 << 30
    /// One hour of CPU time.
    public static let defaultCPUSeconds: UInt64 = 3600

    /// Creates a policy; limits default to the ones a feature gets.
    public init(
        readPaths: [String], writePaths: [String], network: Bool = false,
        memoryLimit: UInt64 = defaultMemoryLimit, addressSpaceLimit: UInt64 = defaultAddressSpaceLimit,
        cpuSeconds: UInt64 = defaultCPUSeconds, fileSizeLimit: UInt64 = 1 << 30, openFilesLimit: UInt64 = 1024,
        bestEffort: Bool = false
    ) {
        self.readPaths = readPaths
        self.writePaths = writePaths
        self.network = network
        self.memoryLimit = memoryLimit
        self.addressSpaceLimit = addressSpaceLimit
        self.cpuSeconds = cpuSeconds
        self.fileSizeLimit = fileSizeLimit
        self.openFilesLimit = openFilesLimit
        self.bestEffort = bestEffort
    }

    /// The policy of one isolated feature, computed in the process that will apply it: read the `library` (its
    /// private copy) and what this process's runtime maps (`runtimeReadPaths`), write beneath `scratch` only, and
    /// the network only when granted. Paths that do not exist on this machine are left out.
    public static func feature(library: String, scratch: String, network: Bool) -> SandboxPolicy {
        let runtime = templateReadPaths.withLock { $0 } ?? runtimeReadPaths(maps: Files.procText("/proc/self/maps"))
        var reads = [library] + runtime
        if network { reads += networkReadPaths }
        return SandboxPolicy(
            readPaths: existing(unique(reads)), writePaths: existing([scratch, "/dev/null"]), network: network)
    }

    /// What a process of this runtime reads after start: system libraries and data, the toolchain's runtime
    /// folder (the folder of each mapped `libswift*`, `libFoundation*`, `libdispatch`, `libBlocksRuntime`), and
    /// each other file `maps` (the text of `/proc/self/maps`) shows mapped — the executable, the SDK — alone, never
    /// its folder (the build folder holds every other plugin and the host's data).
    public static func runtimeReadPaths(maps: String) -> [String] {
        var runtimeFolders: [String] = []
        var files: [String] = []
        var seen = Set<String>()
        let (slash, space) = (UInt8(ascii: "/"), UInt8(ascii: " "))
        // Read as bytes, each mapped file once (a library has four or five lines): every isolated child and probe
        // computes this before its library loads, ≈ 3 ms a child when each line was split into Foundation strings.
        for line in maps.utf8.split(separator: UInt8(ascii: "\n")) {
            // address perms offset dev inode path: no field before the path holds a "/", and the path (which may hold
            // spaces) starts with one.
            guard let start = line.firstIndex(of: slash), start > line.startIndex,
                line[line.index(before: start)] == space
            else { continue }
            var end = line.endIndex
            while end > start, line[line.index(before: end)] == space { end = line.index(before: end) }
            let path = String(decoding: line[start..<end], as: UTF8.self)
            guard seen.insert(path).inserted, !path.hasSuffix(" (deleted)") else { continue }
            if systemFolderPrefixes.contains(where: { path.hasPrefix($0) }) { continue }
            let cut = path.lastIndex(of: "/") ?? path.startIndex
            if runtimeLibraryPrefixes.contains(where: path[path.index(after: cut)...].hasPrefix) {
                runtimeFolders.append(cut == path.startIndex ? "/" : String(path[..<cut]))
            } else {
                files.append(path)
            }
        }
        return unique(systemFolders + systemFiles + runtimeFolders + files)
    }

    /// System libraries, the dynamic linker's cache, time zones, CPU counts, `/proc` and randomness. Not `/etc`
    /// (passwd, host keys), not `/home`, not `/dev/zero` (a shared mapping of it is shared anonymous memory, which
    /// the data limit does not count; nothing of the runtime opens it).
    ///
    /// `/proc` whole, because Dispatch's worker monitor reads `/proc/<thread id>/stat` of threads that do not exist
    /// yet when the sandbox is applied, and traps when it cannot (Swift concurrency then dies within a second). What
    /// that opens is what any local user sees with `ps` (command lines, states): Landlock's ptrace scoping, with
    /// every capability dropped, denies the entries that need ptrace access — another process's `environ`, `maps`,
    /// `mem`, `fd`, `cwd`, `root` — and writing is not allowed anywhere beneath `/proc`.
    static let systemFolders = ["/usr/lib", "/usr/lib64", "/lib", "/lib64"]
    private static let systemFolderPrefixes = systemFolders.map { $0 + "/" }
    static let systemFiles = [
        "/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo", "/sys/devices/system/cpu", "/proc",
        "/dev/urandom", "/dev/random",
    ]
    /// Name lookup and TLS: read only with the network capability.
    static let networkReadPaths = [
        "/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/services",
        "/etc/protocols", "/etc/ssl", "/etc/ca-certificates", "/usr/share/ca-certificates",
    ]
    static let runtimeLibraryPrefixes = [
        "libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "lib_Foundation",
    ]

    /// The runtime paths of the template this process was forked from (`prepareForkTemplate`); nil in any other.
    private static let templateReadPaths = Mutex<[String]?>(nil)

    /// In the template isolated children and probes are forked from, once before its first fork: maps the toolchain's
    /// `libswiftSwiftOnoneSupport` beside the runtime (every debug build of a feature needs it, and each child mapped
    /// and relocated it again), then keeps this process's `runtimeReadPaths`, which are each forked child's until it
    /// loads its library, so that `feature` does not read and split the child's own `/proc/self/maps`.
    package static func prepareForkTemplate() {
        let core = Files.procText("/proc/self/maps").split(separator: "\n").lazy
            .compactMap { line in line.firstIndex(of: "/").map { line[$0...] } }
            .first { $0.hasSuffix("/libswiftCore.so") }
        if let core {
            _ = DynamicLibrary.map(core.dropLast("libswiftCore.so".count) + "libswiftSwiftOnoneSupport.so")
        }
        let paths = runtimeReadPaths(maps: Files.procText("/proc/self/maps"))
        templateReadPaths.withLock { $0 = paths }
        Sandbox.prepareForkTemplate()
    }

    private static func unique(_ paths: [String]) -> [String] {
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    private static func existing(_ paths: [String]) -> [String] {
        paths.filter { FileManager.default.fileExists(atPath: $0) }
    }
}
