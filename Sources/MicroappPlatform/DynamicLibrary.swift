import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The one `dlopen` of the package: a library mapped for good and a symbol found in it. What a library must be before
/// and after (ELF checks, its descriptor) is the loader's (`PluginLoader`); this only asks the dynamic loader.
package enum DynamicLibrary {
    /// What the dynamic loader answered for a symbol of a library.
    package enum Lookup {
        /// The symbol's address.
        case found(UnsafeMutableRawPointer)
        /// The library could not be mapped: the dynamic loader's reason (`dlerror`).
        case notMapped(String)
        /// The library was mapped but has no such symbol.
        case noSymbol
    }

    /// Maps the library at `path` for good, as `symbol` does, without looking anything up; false when it cannot be.
    package static func map(_ path: String) -> Bool { dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) != nil }

    /// Maps the library at `path` (`RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE`), then looks `symbol` up in it.
    package static func symbol(_ symbol: String, in path: String) -> Lookup {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            return .notMapped(dlerror().map { String(cString: $0) } ?? "unknown reason")
        }
        guard let address = dlsym(handle, symbol) else { return .noSymbol }
        return .found(address)
    }
}
