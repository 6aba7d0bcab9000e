import Dispatch
import Synchronization

/// The one way the pipeline spreads work over threads.
///
/// Each of `workers` threads takes the next index from a shared counter until
/// none is left, so a worker that drew small pieces of work takes more of
/// them (render units differ a lot: one tile, or a metatile of 64). Worker w
/// is one thread for the whole call, so what it owns (a Cairo surface, a PNG
/// encoder) stays on its thread; results land in index order whatever the
/// scheduling, and nothing a worker owns changes its output, so the output
/// does not depend on the scheduling.
enum Workers {
    /// `body(worker, index)` for every index in 0..<count; the results in index order.
    static func map<T>(_ count: Int, workers: Int, placeholder: T, _ body: (_ worker: Int, _ index: Int) -> T) -> [T] {
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
