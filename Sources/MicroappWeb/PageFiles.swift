import CWebPage

/// The page's files, embedded in the binary when it was built (Sources/CWebPage/page): served from memory, nothing
/// read from disk or fetched from elsewhere.
enum PageFiles {
    /// One file: its media type and bytes.
    struct File: Sendable {
        /// `text/javascript; charset=utf-8`, …
        let mediaType: String
        /// The file's bytes.
        let bytes: [UInt8]
    }

    /// Every file by the path the page asks for it by (`/app.js`); `/` is `index.html`.
    static let byPath: [String: File] = {
        var files: [String: File] = [:]
        guard let list = web_page_files() else { return files }
        for index in 0..<web_page_file_count() {
            let file = list[index]
            let name = String(cString: file.name)
            let bytes = Array(UnsafeBufferPointer(start: file.bytes, count: file.length))
            files["/" + name] = File(mediaType: String(cString: file.media_type), bytes: bytes)
        }
        files["/"] = files["/index.html"]
        return files
    }()
}
