import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The one way the pipeline spreads work over threads.
///
/// Each of `workers` threads takes the next index from a shared counter until
/// none is left, so a worker that drew small pieces of work takes more of
/// them (render units differ a lot: one tile, or a metatile of 64). Worker w
/// is one thread for the whole call, so what it owns (a Cairo surface, a PNG
/// encoder) stays on its thread; results land in index order whatever the
/// scheduling, and nothing a worker owns changes its output, so the output
/// does not depend on the scheduling.
package enum Workers {
    /// `body(worker, index)` for every index in 0..<count; the results in index order.
    package static func map<T>(_ count: Int, workers: Int, placeholder: T, _ body: (_ worker: Int, _ index: Int) -> T) -> [T] {
        var out = [T](repeating: placeholder, count: count)
        let workers = max(1, min(workers, count))
        let next = Atomic<Int>(0)
        out.withUnsafeMutableBufferPointer { buffer in
            let buffer = buffer
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < count else { return }
                    buffer[i] = body(w, i)
                }
            }
        }
        return out
    }
}

extension Workers {
    /// `body(worker, index)` for every index in 0..<count on `workers`
    /// threads, and `deliver(range, results)` for the consecutive ranges
    /// ending at `ends` (ascending, the last one `count`), in order, each as
    /// soon as all its indices are done.
    ///
    /// Workers do not wait for each other at the end of a range: with a
    /// barrier there, every worker but the last idled for about half a unit
    /// per range (4.5 % of the large venue's render time on 2 cores, where a
    /// metatile takes 4 ms and a range 36 ms). A worker waits only to stay
    /// within `ahead` ranges of the first one not yet delivered, so at most
    /// that many ranges of results are held.
    ///
    /// Worker 0 is the calling thread, the others and the deliveries have a
    /// thread each. Each thread that allocates gets its own malloc arena,
    /// which keeps what was freed in it: with every worker on a new thread,
    /// the large venue's peak grew by 70 MiB (922 -> 993 MiB).
    ///
    /// When `deliver` throws, workers stop taking indices; the call returns
    /// once they have all finished, and throws that error.
    package static func stream<T>(_ count: Int, workers: Int, ends: [Int], ahead: Int = 2, placeholder: T,
                          _ body: @escaping (_ worker: Int, _ index: Int) -> T,
                          deliver: (_ range: Range<Int>, _ results: [T]) throws -> Void) throws {
        precondition(ends.last == count || (count == 0 && ends.isEmpty), "ranges do not end at \(count)")
        precondition(zip(ends, ends.dropFirst()).allSatisfy { $0 < $1 } && (ends.first ?? 1) > 0, "ranges not ascending")
        precondition(ahead >= 1, "ahead \(ahead) < 1")
        guard count > 0 else { return }
        let state = StreamState(count: count, ends: ends, placeholder: placeholder)
        let workers = max(1, min(workers, count))
        let finished = DispatchGroup()
        try withoutActuallyEscaping(deliver) { deliver in
            // The delivery thread reaches `deliver` through this box, emptied
            // before returning: the Thread object may outlive the call.
            let box = DeliveryBox(deliver)
            defer { box.deliver = nil }
            finished.enter()
            Thread {
                var start = 0
                do {
                    for (r, end) in ends.enumerated() {
                        let results = state.take(range: r, start..<end)
                        try box.deliver!(start..<end, results)
                        start = end
                    }
                } catch {
                    state.stop(because: error)
                }
                finished.leave()
            }.start()
            for w in 1..<workers {
                finished.enter()
                Thread {
                    state.work(worker: w, ahead: ahead, body)
                    finished.leave()
                }.start()
            }
            state.work(worker: 0, ahead: ahead, body)
            finished.wait()
            if let failure = state.failure { throw failure }
        }
    }
}

private final class DeliveryBox<T>: @unchecked Sendable {
    var deliver: ((Range<Int>, [T]) throws -> Void)?
    init(_ deliver: @escaping (Range<Int>, [T]) throws -> Void) { self.deliver = deliver }
}

/// The shared state of `Workers.stream`: the next index, the first range not
/// yet delivered, and each range's count of indices not yet done, all under
/// one condition (taken twice per index: units take milliseconds).
private final class StreamState<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var next = 0
    private var delivering = 0
    private var stopped = false
    private var remaining: [Int]
    private let rangeStarts: [Int]
    private var slots: [T]
    private let placeholder: T

    init(count: Int, ends: [Int], placeholder: T) {
        rangeStarts = [0] + ends.dropLast()
        remaining = zip(ends, rangeStarts).map { $0 - $1 }
        slots = [T](repeating: placeholder, count: count)
        self.placeholder = placeholder
    }

    func work(worker w: Int, ahead: Int, _ body: (Int, Int) -> T) {
        var range = 0
        condition.lock()
        while !stopped && next < slots.count {
            let i = next
            while range + 1 < rangeStarts.count && rangeStarts[range + 1] <= i { range += 1 }
            if range >= delivering + ahead { condition.wait(); continue }
            next += 1
            condition.unlock()
            let value = body(w, i)
            condition.lock()
            // Stored under the lock: `take` reads the slot on another thread.
            slots[i] = value
            remaining[range] -= 1
            if remaining[range] == 0 { condition.broadcast() }
        }
        condition.unlock()
    }

    /// Waits for range `r` to be done and moves its results out.
    func take(range r: Int, _ indices: Range<Int>) -> [T] {
        condition.lock()
        defer { condition.unlock() }
        while remaining[r] > 0 { condition.wait() }
        let out = Array(slots[indices])
        for i in indices { slots[i] = placeholder }
        delivering = r + 1
        condition.broadcast()
        return out
    }

    /// The error that stopped the work (read after every thread has finished).
    private(set) var failure: Error?

    func stop(because error: Error) {
        condition.lock()
        failure = error
        stopped = true
        condition.broadcast()
        condition.unlock()
    }
}

/// CPU seconds (user and system) of the calling thread: the renderers' draw
/// and encode split and the writer's time in `build --timings`.
package func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
