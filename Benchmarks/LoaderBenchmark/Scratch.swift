import Foundation
import MicroappSDK
#if canImport(Glibc)
    import Glibc
#endif

@MainActor
func scratchProfile(_ path: String) {
    let clock = ContinuousClock()
    func t(_ name: String, _ body: () -> Void) {
        var s: [Double] = []
        for _ in 0..<200 { s.append(seconds(clock.measure(body))) }
        print("  \(name): \(fixed(median(s) * 1e6, 1)) µs")
    }
    t("stat") { var info = stat(); _ = stat(path, &info) }
    t("FileHandle open+read20+close") { let f = FileHandle(forReadingAtPath: path)!; _ = try? f.read(upToCount: 20); try? f.close() }
    t("dlopen again (NODELETE)") { _ = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) }
    let h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
    t("dlsym") { _ = dlsym(h, "microapp_entry") }
    typealias Entry = @convention(c) () -> UnsafeRawPointer?
    let e = unsafeBitCast(dlsym(h, "microapp_entry"), to: Entry.self)
    t("entry (cached)") { _ = e() }
}
