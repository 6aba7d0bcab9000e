import Dispatch

/// The one way the pipeline spreads work over threads.
///
/// Index i runs on worker `i % workers`, a fixed assignment: what a worker
/// owns (a Cairo surface, a PNG encoder) stays on its thread, and results land
/// in index order whatever the scheduling, so output does not depend on it.
enum Workers {
    /// `body(worker, index)` for every index in 0..<count; the results in index order.
    static func map<T>(_ count: Int, workers: Int, placeholder: T, _ body: (_ worker: Int, _ index: Int) -> T) -> [T] {
        var out = [T](repeating: placeholder, count: count)
        let workers = max(1, min(workers, count))
        out.withUnsafeMutableBufferPointer { buffer in
            let buffer = buffer
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var i = w
                while i < count {
                    buffer[i] = body(w, i)
                    i += workers
                }
            }
        }
        return out
    }
}
