import Crypto
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The last build as this one finds it: its entries, which of their files
/// still hold what it recorded, and its pyramids' input digests.
///
/// Reading it does not depend on the inputs, so it runs on a thread of its own
/// while the inputs are parsed: on a small edit, one stat per file of a large
/// output costs about as much as parsing the venue.
struct PreviousBuild {
    var state: BuildIndex.PreviousState
    /// Per `state.tiles` entry: its file is there and holds the recorded bytes.
    /// All false when the files were not checked (`--force`, another version).
    var intact: [Bool]
    /// Some file was modified after the manifest was written (even back to the
    /// same bytes): the no-op shortcut stays off until the index is written again.
    var touched: Bool

    /// Reads and checks on a background thread, in two steps: the state (fast:
    /// the binary index) for the pyramid digests that decide what to plan, then
    /// the file checks, which the diff waits for while planning goes on.
    final class Pending: @unchecked Sendable {
        private let stateRead = DispatchGroup(), checked = DispatchGroup()
        // Each written once on the background thread, read after its group's wait().
        private var stateValue: BuildIndex.PreviousState?
        private var value: PreviousBuild?

        init(store: TileStore, checkFiles: Bool, workers: Int) {
            stateRead.enter(); checked.enter()
            DispatchQueue.global().async { [self] in
                let state = PreviousBuild.readState(store)
                stateValue = state
                stateRead.leave()
                value = state.map { PreviousBuild.check($0, store, checkFiles: checkFiles, workers: workers) }
                checked.leave()
            }
        }

        func state() -> BuildIndex.PreviousState? {
            stateRead.wait()
            return stateValue
        }

        func result() -> PreviousBuild? {
            checked.wait()
            return value
        }
    }

    /// From the binary index when it was written for the manifest that is
    /// there, else from manifest.json; nil when there is neither.
    static func readState(_ store: TileStore) -> BuildIndex.PreviousState? {
        if let s = BuildIndex.read(store)?.state { return s }
        return Manifest.load(from: store.root).map(BuildIndex.PreviousState.init)
    }

    /// One stat per file (and a hash of the files touched since the manifest).
    static func check(_ state: BuildIndex.PreviousState, _ store: TileStore, checkFiles: Bool, workers: Int) -> PreviousBuild {
        guard checkFiles, state.version == Generator.version else {
            return PreviousBuild(state: state, intact: [Bool](repeating: false, count: state.tiles.count), touched: false)
        }
        let manifestTime = store.fileStatus(Manifest.fileName)?.mtime
        // Bit 0: intact; bit 1: touched since the manifest.
        let checked = store.withStatuses(count: state.tiles.count, workers: workers, path: { state.tiles[$0].path }) { i, st -> UInt8 in
            var touched = false
            let ok = intact(state.tiles[i], st, store, manifestTime, touched: &touched)
            return (ok ? 1 : 0) | (touched ? 2 : 0)
        }
        let intactFlags = checked.map { $0 & 1 != 0 }
        let touched = checked.contains { $0 & 2 != 0 }
        return PreviousBuild(state: state, intact: intactFlags, touched: touched)
    }

    /// Whether a file still holds what the manifest recorded. Files not touched
    /// since the manifest was written (and of the recorded size) are trusted;
    /// others are read and hashed. `venuetiles verify` hashes every file.
    static func intact(_ e: Manifest.TileEntry, _ status: (size: Int, mtime: timespec)?, _ store: TileStore, _ manifestTime: timespec?,
                       touched: inout Bool) -> Bool {
        guard let st = status, st.size == e.bytes else { return false }
        if let m = manifestTime, !(st.mtime > m) { return true }
        touched = true
        guard let d = store.read(e.path) else { return false }
        return Digest32(bytes: SHA256.hash(data: d)) == e.sha256
    }
}
