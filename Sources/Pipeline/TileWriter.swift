import Dispatch
import Foundation

/// The Store stage: one writer thread that takes rendered batches in plan
/// order and writes them while the workers render the next batch. At most one
/// batch waits, so memory stays flat however large the venue is.
final class TileWriter {
    struct Rendered { var data: Data; var hash: Digest32; var dropped: Int }

    private let store: TileStore
    private let paths: [String]
    private let keys: [Digest16]
    /// The previous build's entry for a job's path.
    private let previous: (Int) -> Manifest.TileEntry?
    private let intact: [Bool]
    private let queue = DispatchQueue(label: "venuetiles.writer")
    private let group = DispatchGroup()

    // Touched only on `queue` until `finish()`.
    /// Per job; `Manifest.TileEntry.none` where the job wrote no tile.
    private(set) var entries: [Manifest.TileEntry]
    private(set) var blanks: [Manifest.BlankEntry?]
    private(set) var changedFiles = 0
    private(set) var invalidDropped = 0
    private(set) var busySeconds = 0.0
    private var failure: Error?

    init(store: TileStore, paths: [String], keys: [Digest16], previous: @escaping (Int) -> Manifest.TileEntry?, intact: [Bool],
         entries: [Manifest.TileEntry], blanks: [Manifest.BlankEntry?]) {
        self.store = store; self.paths = paths; self.keys = keys; self.previous = previous; self.intact = intact
        self.entries = entries; self.blanks = blanks
    }

    /// Queues one batch (job index, render result); waits first for the batch before it.
    func submit(_ batch: [(job: Int, result: Result<Rendered?, Error>)]) throws {
        group.wait()
        if let failure { throw failure }
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            let t0 = DispatchTime.now()
            do {
                for (ji, result) in batch {
                    let path = paths[ji]
                    guard let r = try result.get() else {
                        blanks[ji] = Manifest.BlankEntry(path: path, key: keys[ji])
                        if store.fileStatus(path) != nil { store.remove(path); changedFiles += 1 }
                        continue
                    }
                    invalidDropped += r.dropped
                    // Same bytes as the file already there: leave it (and its mtime) alone.
                    if !(intact[ji] && previous(ji)?.sha256 == r.hash) {
                        try store.write(path, r.data)
                        changedFiles += 1
                    }
                    entries[ji] = Manifest.TileEntry(path: path, sha256: r.hash, bytes: r.data.count, key: keys[ji])
                }
            } catch {
                failure = error
            }
            busySeconds += Double(DispatchTime.now().uptimeNanoseconds - t0.uptimeNanoseconds) / 1e9
        }
    }

    /// Hands over the results, leaving the writer empty (no second copy of millions of entries).
    func takeResults() -> (entries: [Manifest.TileEntry], blanks: [Manifest.BlankEntry?]) {
        group.wait()
        var e = [Manifest.TileEntry](), b = [Manifest.BlankEntry?]()
        swap(&e, &entries); swap(&b, &blanks)
        return (e, b)
    }

    /// Waits for the last batch; rethrows the first write error.
    func finish() throws {
        group.wait()
        if let failure { throw failure }
    }
}
