import Dispatch
import Foundation
import Threads

/// The Store stage: a writer that takes rendered batches in plan order and
/// writes each (on `writers` threads) while the workers render the next batch.
/// At most one batch waits, so memory stays flat however large the venue is.
final class TileWriter {
    struct Rendered { var data: Data; var hash: Digest32; var dropped: Int }

    /// What a job left, in 40 bytes: its file's SHA-256 and size, or blank.
    /// The path and input key are the plan's (`BuildPlan.paths`, `keys`):
    /// the manifest's entries are made from the three when it is written, so
    /// that a million tiles' paths are not held twice while tiles render.
    struct Outcome {
        var sha256: Digest32
        /// The file's size; `Outcome.blank` or `Outcome.pending` below zero.
        var bytes: Int32
        static let blank = Outcome(sha256: Digest32(bytes: []), bytes: -1)
        /// A tile to render, not written yet.
        static let pending = Outcome(sha256: Digest32(bytes: []), bytes: -2)
        var isTile: Bool { bytes >= 0 }

        init(sha256: Digest32, bytes: Int32) { self.sha256 = sha256; self.bytes = bytes }
        init(sha256: Digest32, size: Int) {
            precondition(size < Int(Int32.max), "a tile of \(size) bytes")
            self.init(sha256: sha256, bytes: Int32(size))
        }
    }

    /// One per writing thread: a store caches the folders it made.
    private let stores: [TileStore]
    private let paths: TilePathTable
    /// The SHA-256 of the previous build's entry for a job's path.
    private let previous: (Int) -> Digest32?
    private let intact: MappedColumn<Bool>
    private let queue = DispatchQueue(label: "venuetiles.writer")
    private let group = DispatchGroup()

    // Touched only on `queue` until `finish()`.
    /// Per job.
    private(set) var outcomes: MappedColumn<Outcome>
    private(set) var changedFiles = 0
    private(set) var invalidDropped = 0
    private(set) var busySeconds = 0.0
    /// CPU time of the writing threads (system time included: creating files is kernel work).
    private(set) var cpuSeconds = 0.0
    private var failure: Error?
    /// Per job, what `revert` does to put the previous file back (`Undo.code`).
    private var undo: MappedColumn<Int32>
    private var written = 0

    /// `outcomes`: each job's outcome so far (reused tiles' set, the rest pending).
    /// The per-job lists are the plan's `MappedColumn`s; the undo codes' column is made here and tracked by `columns`.
    init(store: TileStore, paths: TilePathTable, previous: @escaping (Int) -> Digest32?,
         intact: MappedColumn<Bool>, outcomes: MappedColumn<Outcome>, columns: ResidentColumns, writers: Int) {
        self.stores = (0..<max(1, writers)).map { _ in TileStore(root: store.root, trash: store.trash, eachPathOnce: true) }; self.paths = paths; self.previous = previous; self.intact = intact
        self.outcomes = outcomes
        undo = columns.track(MappedColumn(repeating: Undo.none, count: paths.count))
    }

    /// Queues one batch (job index, render result); waits first for the batch before it.
    /// The batch is written in `writers` contiguous runs at once (neighbouring
    /// tiles share folders, so runs seldom meet in one): creating files is kernel
    /// work that one thread would leave the render workers waiting on.
    func submit(_ batch: [(job: Int, result: Result<Rendered?, Error>)]) throws {
        group.wait()
        if let failure { throw failure }
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            let t0 = DispatchTime.now()
            let runs = max(1, min(stores.count, batch.count))
            let perRun = (batch.count + runs - 1) / runs
            struct Tally { var changed = 0, dropped = 0, cpu = 0.0; var error: Error? }
            let failAt = TestHooks.failWritesAfter.map { $0 - written } ?? Int.max
            written += batch.count
            // Each run writes its own jobs' slots only.
            let slots = Slots(outcomes: outcomes.buffer.baseAddress!, undo: undo.buffer.baseAddress!)
            let tallies = Workers.map(runs, workers: runs, placeholder: Tally()) { _, r in
                let store = stores[r]
                var t = Tally()
                let cpu0 = threadCPUSeconds()
                do {
                    for (k, (ji, result)) in batch[(r * perRun)..<min((r + 1) * perRun, batch.count)].enumerated() {
                        let path = paths[ji]
                        guard let rendered = try result.get() else {
                            slots.outcomes[ji] = .blank
                            // Removed at the switch: until then it is the last manifest's tile.
                            if store.fileStatus(path) != nil { slots.undo[ji] = Undo.code(.removeAtSwitch); t.changed += 1 }
                            continue
                        }
                        t.dropped += rendered.dropped
                        // Same bytes as the file already there: leave it (and its mtime) alone.
                        if !(intact[ji] && previous(ji) == rendered.hash) {
                            if r * perRun + k >= failAt {
                                throw StoreError(operation: "write", path: store.path(path), reason: "No space left on device (injected by VENUETILES_TEST_FAIL)", code: ENOSPC)
                            }
                            slots.undo[ji] = Undo.code(try store.write(path, rendered.data, stage: true))
                            t.changed += 1
                        }
                        slots.outcomes[ji] = Outcome(sha256: rendered.hash, size: rendered.data.count)
                    }
                } catch {
                    t.error = error
                }
                t.cpu = threadCPUSeconds() - cpu0
                return t
            }
            for t in tallies {
                changedFiles += t.changed
                cpuSeconds += t.cpu
                invalidDropped += t.dropped
                if failure == nil, let e = t.error { failure = e }
            }
            busySeconds += Double(DispatchTime.now().uptimeNanoseconds - t0.uptimeNanoseconds) / 1e9
        }
    }

    /// The outcomes, once the last batch is written.
    func takeOutcomes() -> MappedColumn<Outcome> {
        group.wait()
        return outcomes
    }

    /// Puts back every file this writer replaced, removed or created, after a
    /// failed build (the store's trash holds the old ones).
    func revert() {
        group.wait()
        let store = stores[0]
        for (ji, u) in undo.enumerated() where u != Undo.none { store.revert(paths[ji], Undo.decode(u)) }
        undo = MappedColumn(repeating: Undo.none, count: 0)
    }

    /// The switch: every staged tile renamed over its old file and every tile
    /// that became blank removed, in a short burst just before the manifest, so
    /// that until then each name holds the bytes the last manifest lists. The
    /// old files go to the trash, so `revert` still puts them back.
    func switchStaged() throws {
        group.wait()
        let runs = max(1, min(stores.count, undo.count))
        let perRun = (undo.count + runs - 1) / runs
        let failAt = TestHooks.failSwitchAfter ?? Int.max
        let errors = { () -> [Error?] in
            let undo = UndoSlots(base: self.undo.buffer.baseAddress!)
            return Workers.map(runs, workers: runs, placeholder: nil as Error?) { _, r in
                let store = stores[r]
                var done = 0
                for ji in (r * perRun)..<min((r + 1) * perRun, paths.count) where undo.base[ji] == Undo.staged || undo.base[ji] == Undo.removeAtSwitch {
                    do {
                        if r == 0 && done >= failAt {
                            throw StoreError(operation: "rename to", path: store.path(paths[ji]), reason: "Input/output error (injected by VENUETILES_TEST_FAIL)", code: EIO)
                        }
                        undo.base[ji] = try store.switchStaged(paths[ji], Undo.decode(undo.base[ji])).map(Undo.code) ?? Undo.none
                        done += 1
                    } catch {
                        return error
                    }
                }
                return nil
            }
        }()
        if let e = errors.lazy.compactMap({ $0 }).first { throw e }
    }

    /// Waits for the last batch; rethrows the first write error.
    func finish() throws {
        group.wait()
        if let failure { throw failure }
    }
}

/// The writer's per-job slots, written by several threads at distinct indices.
private struct Slots: @unchecked Sendable {
    let outcomes: UnsafeMutablePointer<TileWriter.Outcome>
    let undo: UnsafeMutablePointer<Int32>
}

private struct UndoSlots: @unchecked Sendable { let base: UnsafeMutablePointer<Int32> }

/// `TileStore.Undo` in four bytes per job (a large venue has a million jobs).
/// Trash slots count up from 0, far from the two codes at the bottom of the range.
private enum Undo {
    static let none: Int32 = -2
    static let staged = Int32.min
    static let removeAtSwitch = Int32.min + 1
    static func code(_ u: TileStore.Undo) -> Int32 {
        switch u {
        case .created: return -1
        case .replaced(let slot): return slot
        case .removed(let slot): return -3 - slot
        case .staged: return staged
        case .removeAtSwitch: return removeAtSwitch
        }
    }
    static func decode(_ c: Int32) -> TileStore.Undo {
        c == staged ? .staged : c == removeAtSwitch ? .removeAtSwitch : c == -1 ? .created : c >= 0 ? .replaced(c) : .removed(-3 - c)
    }
}
