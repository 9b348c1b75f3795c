import MicroappCore
import MicroappSDK

// What the chrome around a screen says, shared by the plain-text and terminal renderers.

extension Frame {
    /// Who or what the app runs as: the account, `signed out` (in an app with accounts), or the mode
    /// (`solo · mocks`), with the account after the mode when both are known.
    var status: String {
        switch (account, modeWords) {
        case (let account?, let mode?): "\(mode) · \(account)"
        case (let account?, nil): account
        case (nil, let mode?): mode
        case (nil, nil): hasAccounts == false ? "" : "signed out"
        }
    }

    /// The app's name in the header: `Microapps` when the frame does not say.
    var appName: String { app?.sanitized ?? "Microapps" }

    /// The header's words for the mode: nothing in the full app, `solo · mocks`, `preview · alert`.
    var modeWords: String? {
        switch mode {
        case .run: nil
        case .solo: "solo · mocks"
        case .preview: (["preview"] + [modeDetail].compactMap { $0 }).joined(separator: " · ")
        }
    }

    /// `Microapps · Auth` (the app's name) on the left, `signed out   v1` on the right, in exactly `width` columns. On an untrusted
    /// feature's screen the host's mark takes the name's place (`Microapps · untrusted · lurker from /plugins`): the
    /// feature chose its name, the host knows its id and folder.
    /// On the host's own screens (a route that cannot open, a stub) no version, and the app's name once:
    /// `Microapps   signed out`.
    func headerLine(width: Int, indent: String = "") -> String {
        let name = isHostScreen && headerName == appName ? "" : " · " + headerName
        let version = isHostScreen ? "" : (status.isEmpty ? "" : "   ") + "v\(version)"
        return spread(left: indent + appName + name, right: status.sanitized + version, width: width)
    }

    /// True on the host's own screens, which no feature draws and which have no version.
    var isHostScreen: Bool { feature == "microapp" && version == 0 }

    /// What the header says is on screen: the host's mark for an untrusted feature, else the display name.
    var headerName: String { untrustedMark ?? featureName.sanitized }

    /// `untrusted · lurker from /plugins` on an untrusted feature's screen, else nil.
    var untrustedMark: String? { origin.flatMap { $0.isUntrusted ? $0.mark.sanitized : nil } }
}

/// `left` and `right` in `width` columns with spaces between; `left` is cut first when both do not fit.
func spread(left: String, right: String, width: Int, minimumGap: Int = 3) -> String {
    let right = right.truncated(toWidth: max(0, width - minimumGap - 1))
    let room = width - right.displayWidth - minimumGap
    let left = left.truncated(toWidth: max(0, room))
    let gap = max(minimumGap, width - left.displayWidth - right.displayWidth)
    return (left + String(repeating: " ", count: gap) + right).truncated(toWidth: width)
}

extension ListView {
    /// Each row's title and columns padded so the columns line up, cut to `width` columns.
    func alignedRows(width: Int) -> [String] {
        let cells = items.map { [$0.title.sanitized] + $0.columns.map(\.sanitized) }
        let columnCount = cells.map(\.count).max() ?? 0
        let widths = (0..<columnCount).map { column in
            cells.map { column < $0.count ? $0[column].displayWidth : 0 }.max() ?? 0
        }
        return cells.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                let isLast = column == row.count - 1
                line += isLast ? cell : cell.padded(toWidth: widths[column]) + "  "
            }
            return line.truncated(toWidth: width)
        }
    }
}
