import Crypto
import Dispatch
import Foundation
import Synchronization
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
    ///
    /// The checks run on this one thread while loading and preparing use the
    /// other cores (a second stat thread took half of the main thread's core
    /// and finished no sooner). The thread that asks for the result before they
    /// are done takes a share of the remaining files instead of waiting.
    final class Pending: @unchecked Sendable {
        private let stateRead = DispatchGroup()
        // Written once on the background thread, read after stateRead.wait().
        private var stateValue: BuildIndex.PreviousState?
        private var stateError: Error?
        private var check: FileCheck?

        init(store: TileStore, checkFiles: Bool) {
            stateRead.enter()
            DispatchQueue.global().async { [self] in
                let state: BuildIndex.PreviousState?
                do { state = try PreviousBuild.readState(store) } catch { stateError = error; state = nil }
                stateValue = state
                let check = state.map { FileCheck($0, store, checkFiles: checkFiles) }
                self.check = check
                stateRead.leave()
                check?.work()
            }
        }

        /// Throws when the last build's state names a path outside the output folder.
        func state() throws -> BuildIndex.PreviousState? {
            stateRead.wait()
            if let stateError { throw stateError }
            return stateValue
        }

        func result() -> PreviousBuild? {
            stateRead.wait()
            guard let check, let state = stateValue else { return nil }
            check.work()
            check.wait()
            return check.result(state)
        }
    }

    /// One stat per file (and a hash of the files touched since the manifest),
    /// in chunks that any thread calling `work()` claims in turn.
    final class FileCheck: @unchecked Sendable {
        private let state: BuildIndex.PreviousState
        private let store: TileStore
        private let manifestTime: timespec?
        private let checkFiles: Bool
        /// Bit 0: intact; bit 1: touched since the manifest. Each chunk's bytes
        /// are written by the one thread that claimed it.
        private let flags: UnsafeMutableBufferPointer<UInt8>
        private let chunk = 4096
        private let chunks: Int
        private let next = Atomic<Int>(0), done = Atomic<Int>(0)
        private let finished = DispatchSemaphore(value: 0)

        init(_ state: BuildIndex.PreviousState, _ store: TileStore, checkFiles: Bool) {
            self.state = state
            self.store = store
            self.checkFiles = checkFiles && state.version == Generator.version
            manifestTime = self.checkFiles ? store.fileStatus(Manifest.fileName)?.mtime : nil
            flags = .allocate(capacity: state.tiles.count)
            flags.initialize(repeating: 0)
            chunks = self.checkFiles ? (state.tiles.count + chunk - 1) / chunk : 0
        }

        deinit { flags.deallocate() }

        /// Checks chunks until none is left unclaimed.
        func work() {
            let cursor = TileStore.StatCursor(store)
            while true {
                let c = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard c < chunks else { return }
                for i in (c * chunk)..<min((c + 1) * chunk, state.tiles.count) {
                    var touched = false
                    let ok = PreviousBuild.intact(i, of: state, state.withPath(i) { cursor.status(utf8: $0) }, store, manifestTime, touched: &touched)
                    flags[i] = (ok ? 1 : 0) | (touched ? 2 : 0)
                }
                // The last build's entries read so far go back to their files.
                state.indexed?.columns.advance(by: chunk)
                if done.wrappingAdd(1, ordering: .releasing).newValue == chunks { finished.signal() }
            }
        }

        /// Returns once every chunk is checked (by whichever thread). One caller.
        func wait() {
            if chunks > 0 { finished.wait() }
            _ = done.load(ordering: .acquiring)
        }

        /// All false when the files were not checked (`--force`, another version).
        func result(_ state: BuildIndex.PreviousState) -> PreviousBuild {
            PreviousBuild(state: state, intact: flags.map { $0 & 1 != 0 }, touched: flags.contains { $0 & 2 != 0 })
        }
    }

    /// From the binary index when it was written for the manifest that is
    /// there, else from manifest.json; nil when there is neither. Every path in
    /// it is checked to stay inside the output folder: the build deletes some of
    /// them, so a bad one stops the build before anything is deleted.
    static func readState(_ store: TileStore) throws -> BuildIndex.PreviousState? {
        if let s = BuildIndex.read(store)?.state {
            try checkPaths(s, file: store.path(BuildIndex.fileName))
            return s
        }
        guard let s = Manifest.load(from: store.root).map(BuildIndex.PreviousState.init) else { return nil }
        try checkPaths(s, file: store.path(Manifest.fileName))
        return s
    }

    static func checkPaths(_ s: BuildIndex.PreviousState, file: String) throws {
        // The entries' pages go back as they are read (none are mapped for a state read from manifest.json).
        try (s.indexed?.columns ?? ResidentColumns()).sweep(s.tiles.count) { k in
            try s.withPath(k) { try OutputFolder.checkRelative(utf8: $0, file: file) }
        }
        for e in s.files { try OutputFolder.checkRelative(e.path, file: file) }
        for e in s.blank { try OutputFolder.checkRelative(e.path, file: file) }
    }

    /// Whether a file still holds what the manifest recorded. Files not touched
    /// since the manifest was written (and of the recorded size) are trusted;
    /// others are read and hashed. `venuetiles verify` hashes every file.
    static func intact(_ e: Manifest.TileEntry, _ status: (size: Int, mtime: timespec)?, _ store: TileStore, _ manifestTime: timespec?,
                       touched: inout Bool) -> Bool {
        intact(size: e.bytes, sha256: e.sha256, path: { e.path }, status, store, manifestTime, touched: &touched)
    }

    /// `intact` of the last build's entry `i`, without making its entry.
    static func intact(_ i: Int, of state: BuildIndex.PreviousState, _ status: (size: Int, mtime: timespec)?, _ store: TileStore,
                       _ manifestTime: timespec?, touched: inout Bool) -> Bool {
        intact(size: state.size(i), sha256: state.sha256(i), path: { state.tiles[i].path }, status, store, manifestTime, touched: &touched)
    }

    private static func intact(size: Int, sha256: Digest32, path: () -> String, _ status: (size: Int, mtime: timespec)?, _ store: TileStore,
                               _ manifestTime: timespec?, touched: inout Bool) -> Bool {
        guard let st = status, st.size == size else { return false }
        if let m = manifestTime, !(st.mtime > m) { return true }
        touched = true
        guard let d = store.read(path()) else { return false }
        return Digest32.sha256(d) == sha256
    }
}
