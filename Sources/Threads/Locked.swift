import Foundation

/// A value shared by threads, reached only under a lock.
///
/// Not `Synchronization.Mutex`: on Linux its contended path waits in the
/// kernel (`FUTEX_LOCK_PI`, inside the uninstrumented standard library), and
/// ThreadSanitizer sees no hand-over between the thread that unlocked and the
/// one the kernel woke, so it reports the two threads' accesses inside the
/// lock as a race. NSLock is a pthread mutex, whose lock and unlock TSan
/// intercepts, so `scripts/test --sanitize thread` reports only real races.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
