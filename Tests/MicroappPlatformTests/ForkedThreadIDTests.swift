import CPlatform
import Foundation
import MicroappPlatform
import Synchronization
import TestPlugins
import TestScratch
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Locked by the test's thread before it forks (so that thread has cached its id), then by the child's two threads.
private let contended = Mutex(0)

@Suite("A forked child's threads take Swift's locks as their own")
struct ForkedThreadIDTests {
    @Test(
        "a lock the child's forked thread holds while its other thread waits is handed over, not spun on", .offThePool)
    func forkedThreadHandsOverItsLock() throws {
        // Once here first, so the child finds made every piece of runtime metadata its code needs (a debug build
        // makes them as code first runs): making one takes a runtime lock, which another thread of this test process
        // may hold at the fork, and the child would spin on it for ever (seen once: killed by the guard below).
        #expect(Self.handOver(closing: 1024..<1024, holdingMicroseconds: 0))
        let pid = microapp_fork()
        if pid == 0 {
            // The child holds a copy of every descriptor of the test process (other tests' pipes among them) while
            // it lives, a tenth of a second and more under load: a reader that another test closed would still be
            // open here, and an app writing to it would not see its output closed. It needs none of them.
            _exit(Self.handOver(closing: 3..<1024, holdingMicroseconds: 100_000) ? 0 : 1)
        }
        try #require(pid > 0)
        var status: Int32 = 0
        // A guard against a hang, not a measure: the child takes milliseconds, or never ends. Ten seconds of the time
        // it could run (`ChildTimeLimit`): a child kept from a CPU at high load was once killed by a guard of wall time.
        var ended = false
        let limit = ChildTimeLimit(.seconds(10), pid: pid)
        while !ended, limit.remaining() > .zero {
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

    /// Closes `descriptors`, then holds `contended` while a new thread waits for it (FUTEX_LOCK_PI) for the time
    /// given, and lets go; true when the waiter took it after. In a forked child whose one thread still had its
    /// parent's id cached, the waiter is refused (a Mutex traps) and the unlock is "not the owner".
    private static func handOver(closing descriptors: Range<Int32>, holdingMicroseconds: UInt32) -> Bool {
        for descriptor in descriptors { close(descriptor) }
        let before = contended.withLock { $0 }
        var waiter = pthread_t()
        contended.withLock { _ in
            pthread_create(
                &waiter, nil,
                { _ in
                    contended.withLock { $0 += 1 }
                    return nil
                }, nil)
            usleep(holdingMicroseconds)
        }
        pthread_join(waiter, nil)
        return contended.withLock { $0 } == before + 1
    }

    @Test("the child forgets a cached id but keeps a pointer whose upper half reads as the same number", .offThePool)
    func pointerHalvesAreKept() throws {
        // Ids run below pid_max (32768 here), as do the upper halves of user-space pointers (0x7fxx): a thread-local
        // pointer of the current task or executor must not lose its upper half when the forking thread's id matches.
        let library = try FixtureBuilder.library(
            "ThreadLocals",
            source: """
                #define _GNU_SOURCE
                #include <stdint.h>
                #include <sys/syscall.h>
                #include <unistd.h>
                static __thread int cached_id;
                static __thread uint64_t pointer_like __attribute__((aligned(8)));
                static uint64_t pointer_for(int id) { return ((uint64_t)(uint32_t)id << 32) | 0x1234u; }
                int thread_locals_set(void) {
                    int id = (int)syscall(SYS_gettid);
                    cached_id = id;
                    pointer_like = pointer_for(id);
                    return id;
                }
                int thread_locals_check(int id) {
                    if (cached_id != 0) return 1;
                    if (pointer_like != pointer_for(id)) return 2;
                    return 0;
                }
                """)
        let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL))
        typealias Set = @convention(c) () -> Int32
        typealias Check = @convention(c) (Int32) -> Int32
        let set = unsafeBitCast(try #require(dlsym(handle, "thread_locals_set")), to: Set.self)
        let check = unsafeBitCast(try #require(dlsym(handle, "thread_locals_check")), to: Check.self)
        let thread = set()
        let pid = microapp_fork()
        if pid == 0 { _exit(check(thread)) }
        try #require(pid > 0)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0, "exit \(status >> 8): 1, the cached id was kept; 2, the pointer lost its upper half")
        // The parent forgot it as well, before the fork (the fork's handlers in the child must not read it): a real
        // cache's owner looks the id up again when it next needs it.
        #expect(check(thread) == 0)
    }
}
