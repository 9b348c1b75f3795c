import Testing

// Swift Testing starts every test at once, and the cooperative pool (one thread per core) runs their jobs in order of
// arrival. At the start of a full run that queue holds some twenty seconds of CPU-bound unit tests, and an end-to-end
// test, which mostly waits on its app, waits that long again each time it resumes after a wait: in a full run its
// first test ended at 20 s that takes 2 s alone, and the longest end-to-end chains ended last, with the CPU idle
// around them. A task of high priority is queued apart from the default ones and served first (libdispatch's root
// queue of that priority, threads of its own on Linux): a test that mostly waits resumes when its wait is over, and
// the unit tests' CPU work fills the time it spends waiting.

/// Runs the suite or test it marks at high priority, so that its resumes after waits are not queued behind the CPU
/// work of other tests (see `PromptResumes`).
public struct PromptResumes: SuiteTrait, TestTrait, TestScoping {
    /// Runs the suite's or test's body in a task of its own at high priority, and waits for it; tests and test cases
    /// in it are its child tasks, which inherit that priority, as do task-local values (so its issues are the test's).
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withoutActuallyEscaping(function) { function in
            let task = Task(priority: .high) { try await function() }
            // A time limit or a stopped run cancels the test's task, not this one: passed on, so a body that waits
            // for cancellation still ends.
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        }
    }
}

extension Trait where Self == PromptResumes {
    /// Runs a suite or test that mostly waits (on an app, a child, a server) at high priority (see `PromptResumes`).
    public static var promptResumes: Self { PromptResumes() }
}
