import MicroappSDK

/// The screens of Characters, each with its URL.
enum CharactersRoute: FeatureRoute {
    /// The paged list.
    case list
    /// One character.
    case detail(id: Int)

    static let listPattern = "characters://list"
    static let detailPattern = "characters://detail/{id}"

    var url: String {
        switch self {
        case .list: Self.listPattern
        case .detail(let id): "characters://detail/\(id)"
        }
    }

    init?(_ location: Location) {
        switch location.pattern {
        case Self.listPattern: self = .list
        case Self.detailPattern:
            guard let id = location.parameters["id"].flatMap({ Int($0) }) else { return nil }
            self = .detail(id: id)
        default: return nil
        }
    }
}
