/// What a person did on a feature's screen; the host sends it to the feature's Root.
public enum Action: Sendable, Equatable {
    /// A button was pressed.
    case tap(id: String)
    /// A text field now holds `text`.
    case input(id: String, text: String)
    /// Row `index` of a list was chosen.
    case select(id: String, index: Int)
}
