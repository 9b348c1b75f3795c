import CPlatform
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Locked by the test's thread before it forks (so that thread has cached its id), then by the child's two threads.
private let contended = Mutex(0)

@Suite("A forked child's threads take Swift's locks as their own")
struct ForkedThreadIDTests {
    @Test("a lock the child's forked thread holds while its other thread waits is handed over, not spun on")
    func forkedThreadHandsOverItsLock() throws {
        contended.withLock { $0 += 1 }
        let pid = microapp_fork()
        if pid == 0 {
            // The child: its one thread holds the lock while a new thread waits for it (FUTEX_LOCK_PI), then lets
            // go. With the parent's thread id still cached, the waiter is refused (a Mutex traps) and the unlock
            // is "not the owner".
            var waiter = pthread_t()
            contended.withLock { _ in
                pthread_create(
                    &waiter, nil,
                    { _ in
                        contended.withLock { $0 += 1 }
                        return nil
                    }, nil)
                usleep(100_000)
            }
            pthread_join(waiter, nil)
            _exit(contended.withLock { $0 } == 2 ? 0 : 1)
        }
        try #require(pid > 0)
        var status: Int32 = 0
        // A guard against a hang, not a measure: the child takes milliseconds, or never ends.
        var ended = false
        for _ in 0..<200 where !ended {
            ended = waitpid(pid, &status, WNOHANG) == pid
            if !ended { usleep(50_000) }
        }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(ended, "the child still ran after 10 s: its threads spin on the lock")
        #expect(status == 0, "the child ended with wait status \(status) (SIGILL 4: the Mutex trapped)")
    }
}
