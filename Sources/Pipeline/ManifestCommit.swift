import Dispatch
import Foundation

extension Builder {
    /// Writes the manifest (the commit point) and, beside it on a thread of its
    /// own, the binary index of the same state, finished after the manifest.
    ///
    /// The index is rewritten when anything was written (its mtime must stay the
    /// newest) or when it describes other inputs; a no-op full check leaves it
    /// alone. When no file changed the manifest may still (input keys, venue
    /// entries): it is made in a temporary file and compared with the one in
    /// place, which stays, mtime and all, when equal (parsing the old one to
    /// compare took longer than the rest of such a build).
    func writeManifest(_ manifest: Manifest, _ plan: BuildPlan, records: [BuildIndex.PyramidRecord], changedFiles: Int,
                       fingerprint: [UInt8]?, counts: BuildIndex.Counts, commit: Commit) throws {
        let store = commit.store
        let oldManifest = mappedPreviousManifest(plan, store)
        let segments = plan.pyramids.indices.map { pi -> Manifest.TileSegment in
            var text: UnsafeRawBufferPointer?
            if let r = plan.carried[pi], let m = oldManifest, !r.manifestText.isEmpty, r.manifestText.upperBound <= m.size,
               m.bytes[r.manifestText.lowerBound] == UInt8(ascii: "{"), m.bytes[r.manifestText.upperBound - 1] == UInt8(ascii: "}") {
                text = UnsafeRawBufferPointer(rebasing: m.bytes[r.manifestText])
                // Reading its two ends mapped the pages around them (the kernel maps
                // 64 KiB around a read): thousands of small segments would map the file whole.
                m.release(through: text!)
            }
            return Manifest.TileSegment(tiles: records[pi].tiles, text: text)
        }
        let carriedForIndex = plan.pyramids.indices.map { plan.carried[$0]?.tiles }
        let reusable = plan.reusable
        let indexResult = IndexResult()
        let jobs = options.jobs
        func produce(_ emit: (Data) throws -> Void) throws {
            indexResult.text = try manifest.write(workers: jobs, segments: segments, written: { oldManifest?.release(through: $0) }, emit)
        }
        var manifestWritten = changedFiles > 0 || !commit.toDelete.isEmpty || !plan.crashed.isEmpty
        let manifestDecided = !manifestWritten
        if manifestDecided {
            manifestWritten = try withExtendedLifetime(oldManifest) { try store.writeStreamIfChanged(Manifest.fileName, produce) }
        }
        let indexGroup = DispatchGroup()
        let manifestDone = DispatchSemaphore(value: 0)
        let writesIndex = fingerprint.map { fp in
            manifestWritten || plan.touchedSinceManifest || BuildIndex.recordedFingerprint(store) != fp
        } ?? false
        if writesIndex, let fp = fingerprint {
            DispatchQueue.global().async(group: indexGroup) {
                do {
                    try BuildIndex.write(store, fingerprint: fp, counts: counts, manifest: manifest, pyramids: records,
                                         copied: { pi in carriedForIndex[pi].flatMap { reusable?.tileEntryBytes($0) } }) {
                        manifestDone.wait()
                        guard indexResult.manifestOK, let st = store.fileStatus(Manifest.fileName) else { return nil }
                        return (st.size, st.mtime, indexResult.text)
                    }
                } catch {
                    indexResult.error = error
                }
            }
        }
        do {
            // Else written (or found equal) above.
            if !manifestDecided { try withExtendedLifetime(oldManifest) { try store.writeStream(Manifest.fileName, produce) } }
            indexResult.manifestOK = true
        } catch {
            manifestDone.signal()
            indexGroup.wait()
            throw error
        }
        commit.markCommitted()
        // Past the last moment to stop: a signal here ends the wait, not the build.
        try? pauseForTests("committed", cancellation)
        manifestDone.signal()
        indexGroup.wait()
        commit.finish()
        if let e = indexResult.error { throw e }
    }

    /// The last manifest, mapped, when it is the one the index described: a
    /// carried pyramid's lines are copied from it instead of formatted again.
    private func mappedPreviousManifest(_ plan: BuildPlan, _ store: TileStore) -> MappedFile? {
        guard !plan.carried.isEmpty, let id = plan.reusable?.manifestIdentity, let m = MappedFile(path: store.path(Manifest.fileName)),
              m.size == id.size, m.mtime.tv_sec == id.mtime.tv_sec, m.mtime.tv_nsec == id.mtime.tv_nsec else { return nil }
        return m
    }
}

/// What the index thread and the build share: set before the semaphore or the
/// group that the other side waits on.
final class IndexResult: @unchecked Sendable {
    var manifestOK = false
    /// Where each pyramid's tile lines are in the manifest.
    var text = [Range<Int>]()
    var error: Error?
}
