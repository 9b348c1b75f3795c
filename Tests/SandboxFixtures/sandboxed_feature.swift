// A Swift program for the sandbox tests, standing in for an isolated feature's child: applies the sandbox (the
// host's own C code, through a bridging header), then does what a feature does — Dispatch worker threads, Swift
// concurrency, Foundation, files in its scratch folder — and loads a real plugin and reads its manifest. One line
// per step: `<step> ok` / `<step> <detail>`.
//   sandboxed-feature [--read PATH]... [--write PATH]... -- LIBRARY SCRATCH SECRET
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func applySandbox(reads: [String], writes: [String]) -> Bool {
    let cReads = reads.map { UnsafePointer(strdup($0)) }
    let cWrites = writes.map { UnsafePointer(strdup($0)) }
    var report = microapp_sandbox_report()
    let status = cReads.withUnsafeBufferPointer { r in
        cWrites.withUnsafeBufferPointer { w in
            var policy = microapp_sandbox_policy(
                read_paths: r.baseAddress, read_count: r.count, write_paths: w.baseAddress, write_count: w.count,
                allow_network: 0, best_effort: 0, memory_limit: 1 << 30, address_space_limit: 16 << 30,
                cpu_seconds: 600, file_size_limit: 1 << 30, open_files_limit: 1024)
            return microapp_sandbox_apply(&policy, &report)
        }
    }
    say(status == 0 ? "sandbox ok" : "sandbox failed step \(report.step) errno \(report.error_number)")
    return status == 0
}

/// More blocking work items than Dispatch starts workers for: the rest run only once its worker monitor has read
/// `/proc/<thread>/stat` of the blocked ones and started more threads.
func dispatchWorkers() -> Bool {
    let count = 4 * ProcessInfo.processInfo.activeProcessorCount + 2
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    for _ in 0..<count {
        DispatchQueue.global().async {
            started.signal()
            release.wait()
        }
    }
    var all = true
    for _ in 0..<count where started.wait(timeout: .now() + 60) == .timedOut { all = false }
    for _ in 0..<count { release.signal() }
    return all
}

func concurrency() -> Bool {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        async let sum = (1...1000).reduce(0, +)
        if await sum == 500_500 { done.signal() }
    }
    return done.wait(timeout: .now() + 60) == .success
}

func manifestID(_ library: String) -> String {
    guard let image = dlopen(library, RTLD_NOW | RTLD_LOCAL) else { return "dlopen: " + String(cString: dlerror()) }
    guard let symbol = dlsym(image, MICROAPP_ENTRY_SYMBOL) else { return "no entry" }
    let entry = unsafeBitCast(symbol, to: microapp_entry_fn.self)
    guard let descriptor = entry(), let json = descriptor.pointee.manifest_json else { return "no descriptor" }
    let manifest = try? JSONSerialization.jsonObject(with: Data(String(cString: json).utf8)) as? [String: Any]
    return manifest?["id"] as? String ?? "bad manifest"
}

let arguments = Array(CommandLine.arguments.dropFirst())
var reads: [String] = []
var writes: [String] = []
var index = 0
while index < arguments.count, arguments[index] != "--" {
    if arguments[index] == "--read" { reads.append(arguments[index + 1]) }
    if arguments[index] == "--write" { writes.append(arguments[index + 1]) }
    index += 2
}
let (library, scratch, secret) = (arguments[index + 1], arguments[index + 2], arguments[index + 3])
guard applySandbox(reads: reads, writes: writes) else { exit(1) }
say(dispatchWorkers() ? "dispatch ok" : "dispatch stalled")
say(concurrency() ? "concurrency ok" : "concurrency stalled")
let encoded = try? JSONEncoder().encode(["at": Date().timeIntervalSince1970])
say(encoded != nil && !TimeZone.current.identifier.isEmpty ? "foundation ok" : "foundation failed")
let note = URL(fileURLWithPath: scratch).appendingPathComponent("note.json")
say((try? Data("{}".utf8).write(to: note, options: .atomic)) != nil ? "scratch-write ok" : "scratch-write failed")
say((try? String(contentsOfFile: secret, encoding: .utf8)) == nil ? "secret denied" : "secret read")
say("plugin \(manifestID(library))")
