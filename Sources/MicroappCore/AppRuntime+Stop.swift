import MicroappSDK

extension AppRuntime {
    /// A feature's process ended: say so, naming the library, the cause and its last words; the other features and
    /// the back stack are untouched.
    public func featureStopped(_ id: String, _ stop: FeatureStop) {
        let name = features[id]?.manifest.displayName ?? id
        post(
            Notice(
                level: .error, code: stop.code, message: "\(name) stopped: \(stop.reason) — \(stop.library)",
                fix: "see the feature's last lines below; fix it and rebuild, the rest of the app runs on",
                feature: id, detail: stop.stderrTail.isEmpty ? nil : stop.stderrTail))
    }
}
