import MicroappSDK

/// Calls the services and reads the session; knows nothing of screens.
@MainActor
struct CharactersInteractor {
    let pageService: Service<PageRequest, CharacterPage>
    let detailService: Service<CharacterRequest, CharacterDetail>
    let session: ObservableValue<Session?>

    /// Page `number` (from 1), or why it could not be loaded.
    func page(_ number: Int) async -> Result<CharacterPage, ServiceError> {
        await call(pageService, PageRequest(page: number))
    }

    /// Character `id` in full, or why it could not be loaded.
    func detail(_ id: Int) async -> Result<CharacterDetail, ServiceError> {
        await call(detailService, CharacterRequest(id: id))
    }

    /// The name of the person signed in, nil when signed out.
    var signedInName: String? { session.value?.name }

    private func call<Request, Response>(
        _ service: Service<Request, Response>, _ request: Request
    ) async -> Result<Response, ServiceError> {
        do throws(ServiceError) {
            return .success(try await service(request))
        } catch {
            return .failure(error)
        }
    }
}
