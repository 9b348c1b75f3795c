import MicroappSDK

// The services of `DemoKeys`, built on the backend's stores. They run off the main actor; only reading and
// ending the session hops onto it. SQLite and password hashing block: they run on the database's own thread
// (`Database.perform`), so a slow hash or a locked file never holds a thread of the cooperative pool.
extension DemoBackend {
    /// `auth.sign-in`: the session for matching credentials (the Auth feature then writes it).
    public nonisolated var signIn: Service<Credentials, Session> {
        let accounts = accounts
        return Service { request in
            try await accounts.database.perform { () throws(ServiceError) in try accounts.signIn(request) }
        }
    }

    /// `auth.sign-up`: creates the account and answers its session.
    public nonisolated var signUp: Service<NewAccount, Session> {
        let accounts = accounts
        return Service { request in
            try await accounts.database.perform { () throws(ServiceError) in try accounts.signUp(request) }
        }
    }

    /// `auth.sign-out`: ends the session (the file is removed).
    public nonisolated var signOut: Service<Nothing, Nothing> {
        Service { _ in
            await self.endSession()
            return Nothing()
        }
    }

    /// `auth.delete-account`: deletes the signed-in account and its recent searches, then ends the session.
    public nonisolated var deleteAccount: Service<Nothing, Nothing> {
        let accounts = accounts
        return Service { _ in
            let id = try await self.signedInAccount("delete your account")
            _ = try await accounts.database.perform { () throws(ServiceError) in try accounts.delete(accountID: id) }
            await self.endSession(ifAccount: id)
            return Nothing()
        }
    }

    /// `characters.page`.
    public nonisolated var page: Service<PageRequest, CharacterPage> {
        let characters = characters
        return Service { request in try await characters.page(request) }
    }

    /// `characters.detail`.
    public nonisolated var detail: Service<CharacterRequest, CharacterDetail> {
        let characters = characters
        return Service { request in try await characters.detail(request) }
    }

    /// `characters.search`.
    public nonisolated var search: Service<SearchQuery, SearchResults> {
        let characters = characters
        return Service { query in try await characters.search(query) }
    }

    /// `search.recent`: the signed-in account's queries; `signed-out` without a session.
    public nonisolated var recentQueries: Service<Nothing, RecentQueries> {
        let store = recentSearches
        return Service { _ in
            let account = try await self.signedInAccount("see your recent searches")
            return try await store.database.perform { () throws(ServiceError) in
                try self.recent(account) { id throws(StorageError) in try store.recent(accountID: id) }
            }
        }
    }

    /// `search.save-recent`: puts a query at the top of the signed-in account's list and answers the list.
    public nonisolated var saveRecentQuery: Service<RecentQuery, RecentQueries> {
        let store = recentSearches
        return Service { query in
            let account = try await self.signedInAccount("keep your recent searches")
            return try await store.database.perform { () throws(ServiceError) in
                try self.recent(account) { id throws(StorageError) in try store.save(query.text, accountID: id) }
            }
        }
    }

    /// `search.clear-recent`: forgets the signed-in account's queries.
    public nonisolated var clearRecentQueries: Service<Nothing, RecentQueries> {
        let store = recentSearches
        return Service { _ in
            let account = try await self.signedInAccount("clear your recent searches")
            return try await store.database.perform { () throws(ServiceError) in
                try self.recent(account) { id throws(StorageError) in try store.clear(accountID: id) }
            }
        }
    }

    /// Signs out; with `ifAccount`, only when that account is still the one signed in.
    func endSession(ifAccount accountID: String? = nil) {
        guard accountID == nil || session.value?.accountID == accountID else { return }
        session.value = nil
    }
}
