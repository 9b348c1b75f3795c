import Foundation
import MicroappSDK

/// The search screen's state and logic: the query, a debounced search that a newer keystroke cancels, the
/// answer on screen, and the recent searches.
@MainActor
final class SearchViewModel {
    /// A search that answered: the text searched and the characters found.
    struct Answer: Codable, Equatable {
        var query: String
        var characters: [CharacterSummary]
    }

    /// Work that can fail, so Retry knows what to do again.
    enum Work: Equatable {
        case search
        case loadRecents
        case saveRecent(String)
        case clearRecents
    }

    static let queryID = "query"
    static let resultsID = "results"
    static let recentID = "recent"
    static let clearID = "clear-recent"
    static let retryID = "retry"

    /// The text in the field, as typed.
    private(set) var query = ""
    /// The answer on screen; it stays while a newer search runs.
    private(set) var answer: Answer?
    /// The recent queries, most recent first.
    private(set) var recents: [String] = []
    /// What failed and why; the error state shows while it is set.
    private(set) var failure: (work: Work, message: String)?
    private var pending: Task<Void, Never>?
    private let dependencies: SearchDependencies
    private let onChange: () -> Void

    init(dependencies: SearchDependencies, onChange: @escaping () -> Void) {
        self.dependencies = dependencies
        self.onChange = onChange
    }

    /// True while a search waits for its debounce or its answer.
    var isSearching: Bool { pending != nil }
    /// How many reads or writes of the recent searches are under way.
    private(set) var recentsInFlight = 0

    /// The query without surrounding spaces: what is searched.
    var searchText: String { query.trimmingCharacters(in: .whitespaces) }

    /// The recent queries may have changed elsewhere (another screen, another account): load them again.
    func willShow() { loadRecents() }

    /// Takes back the query and answer kept by a hot swap; searches again if the answer does not fit the query.
    func restore(query: String, answer: Answer?) {
        self.query = query
        self.answer = answer
        if !searchText.isEmpty && answer?.query != searchText { startSearch(after: nil) }
    }

    /// Forgets everything a person did: the account changed.
    func reset() {
        pending?.cancel()
        pending = nil
        (query, answer, recents, failure) = ("", nil, [], nil)
    }

    func handle(_ action: Action) {
        if let failure {
            guard action == .tap(id: Self.retryID) else { return }
            self.failure = nil
            retry(failure.work)
            return
        }
        switch action {
        case .input(id: Self.queryID, let text):
            query = text
            startSearch(after: dependencies.debounce)
        case .select(id: Self.resultsID, let index):
            guard let answer, answer.characters.indices.contains(index) else { return }
            dependencies.showCharacter(answer.characters[index].id)
            saveRecent(answer.query)
        case .select(id: Self.recentID, let index) where recents.indices.contains(index):
            query = recents[index]
            startSearch(after: nil)
        case .tap(id: Self.clearID) where !recents.isEmpty:
            clearRecents()
        default: break
        }
    }

    private func retry(_ work: Work) {
        switch work {
        case .search: startSearch(after: nil)
        case .loadRecents: loadRecents()
        case .saveRecent(let text): saveRecent(text)
        case .clearRecents: clearRecents()
        }
    }

    /// Cancels the pending search and, unless the query is empty, starts one for it after `delay`.
    private func startSearch(after delay: Duration?) {
        pending?.cancel()
        pending = nil
        let text = searchText
        guard !text.isEmpty else {
            answer = nil
            return
        }
        let search = dependencies.search
        // The debounce's deadline is read now, at the keystroke, not when the task first runs.
        let debounce = delay.map { dependencies.clock.timer(after: $0) }
        pending = Task { @MainActor in
            if let debounce {
                do { try await debounce() } catch { return }
            }
            guard !Task.isCancelled else { return }
            let outcome: Result<[CharacterSummary], ServiceError>
            do throws(ServiceError) {
                outcome = .success(try await search(text))
            } catch {
                outcome = .failure(error)
            }
            // A newer keystroke cancelled this search while it ran: its answer is for a text no longer asked.
            guard !Task.isCancelled else { return }
            pending = nil
            switch outcome {
            case .success(let characters): answer = Answer(query: text, characters: characters)
            case .failure(let error): failure = (.search, error.message)
            }
            onChange()
        }
    }

    private func loadRecents() { updateRecents(.loadRecents, dependencies.fetchRecent) }

    private func saveRecent(_ text: String) {
        let save = dependencies.saveRecent
        updateRecents(.saveRecent(text)) { () async throws(ServiceError) in try await save(text) }
    }

    private func clearRecents() { updateRecents(.clearRecents, dependencies.clearRecent) }

    /// Runs `call` in the background; its answer becomes the recent queries, its failure the error state.
    private func updateRecents(_ work: Work, _ call: @escaping () async throws(ServiceError) -> [String]) {
        recentsInFlight += 1
        Task { @MainActor in
            do throws(ServiceError) {
                recents = try await call()
            } catch {
                failure = (work, error.message)
            }
            recentsInFlight -= 1
            onChange()
        }
    }
}
