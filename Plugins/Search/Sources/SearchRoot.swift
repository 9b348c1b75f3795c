import Foundation
import MicroappSDK

/// Search's live Root: one view model, given its dependencies as closures, and the session it follows so one
/// account's query and recent searches never show to the next.
@MainActor
final class SearchRoot: Root {
    private let viewModel: SearchViewModel
    private var sessionObservation: Observation?

    init(dependencies: SearchDependencies, session: ObservableValue<Session?>, invalidate: @escaping () -> Void) {
        let viewModel = SearchViewModel(dependencies: dependencies, onChange: invalidate)
        self.viewModel = viewModel
        var account = session.value?.accountID
        sessionObservation = session.observe { new in
            guard new?.accountID != account else { return }
            account = new?.accountID
            viewModel.reset()
            invalidate()
        }
    }

    func willShow(_ location: Location) {
        if SearchRoute(location) != nil { viewModel.willShow() }
    }

    func screen(at location: Location) -> Screen {
        guard SearchRoute(location) != nil else {
            return Screen(
                title: "Search", content: [.text(Text("Search has no screen at \(location.url)", style: .error))])
        }
        return viewModel.screen
    }

    func handle(_ action: Action, at location: Location) {
        if SearchRoute(location) != nil { viewModel.handle(action) }
    }

    func snapshot() -> Data? {
        try? JSONEncoder().encode(SearchSnapshot(query: viewModel.query, answer: viewModel.answer))
    }

    func restore(from snapshot: Data) throws {
        let saved = try JSONDecoder().decode(SearchSnapshot.self, from: snapshot)
        viewModel.restore(query: saved.query, answer: saved.answer)
    }
}

/// What a person would lose on a hot swap: the query and the answer on screen. Every field is optional in the
/// JSON, so any older or newer version's snapshot decodes.
struct SearchSnapshot: Codable, Equatable {
    var query = ""
    var answer: SearchViewModel.Answer?

    init(query: String, answer: SearchViewModel.Answer?) {
        self.query = query
        self.answer = answer
    }

    init(from decoder: any Decoder) throws {
        let saved = try decoder.container(keyedBy: CodingKeys.self)
        query = try saved.decodeIfPresent(String.self, forKey: .query) ?? ""
        answer = try saved.decodeIfPresent(SearchViewModel.Answer.self, forKey: .answer)
    }
}
