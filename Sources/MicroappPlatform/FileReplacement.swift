#if canImport(Glibc)
    import Glibc
#endif

/// Puts a finished file in place of another in one step: a reader sees the old file or the new one, never a part,
/// and a process that mapped the old one keeps its bytes (the new file is a new inode).
package enum FileReplacement {
    /// Renames `temporary` over `destination` (same file system); the error names the call and the file.
    package static func replace(_ destination: String, with temporary: String) throws(SystemCallError) {
        try SystemCall.run("rename", path: destination) { rename(temporary, destination) }
    }
}
