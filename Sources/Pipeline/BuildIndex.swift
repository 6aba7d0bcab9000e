import Crypto
import Foundation
import Styling
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// The last complete build's state in binary (`.venuetiles.index`, written
/// after the manifest), for two fast paths:
///
/// - no-op: a fingerprint of every input byte; when it is unchanged and every
///   file is still there with its size and not modified since, nothing can have
///   changed and the build stops before parsing anything;
/// - incremental: every tile's path, size, SHA-256 and input key, so that the
///   diff does not parse the JSON manifest (a third of a one-unit rebuild). It
///   is used only when it was written for the manifest that is there now (same
///   size and modification time); otherwise the build reads manifest.json;
/// - unchanged pyramids: each pyramid's input digest and where its entries
///   are, so that a pyramid whose inputs did not change is taken whole from
///   the last build without planning it (`PreviousBuild`).
enum BuildIndex {
    static let fileName = OutputFolder.stateFolder + "/index"
    static let magic: [UInt8] = Array("VTIX0004".utf8)
    // Layout: magic, fingerprint (32 bytes), version, counts, tile and file
    // entries, blank tiles, pyramids, then the manifest's size and mtime.

    struct Counts: Equatable { var tiles = 0, bytes = 0, blank = 0, warnings = 0 }

    /// One pyramid of the last build: its input digest and its entries, as
    /// ranges of the manifest's `tiles` and `blank_tiles`.
    struct PyramidRecord: Equatable {
        var directory: String
        var digest: Digest16
        var tiles: Range<Int>
        var blanks: Range<Int>
        /// Where its tile lines are in manifest.json (bytes, without the separator
        /// before the first): a carried pyramid's lines are copied from there.
        var manifestText: Range<Int> = 0..<0
    }

    /// Writes the index. The manifest it describes may still be being written:
    /// the entries go out first and `manifestStatus` is asked last, for the
    /// trailer that ties the index to that manifest (nil: the manifest was not
    /// written, and neither is the index).
    /// `copied(p)`: pyramid p's tile entries as the last index wrote them (a
    /// carried pyramid), copied instead of serialized again.
    static func write(_ store: TileStore, fingerprint: [UInt8], counts: Counts, manifest: Manifest, pyramids: [PyramidRecord],
                      copied: (Int) -> Data? = { _ in nil },
                      manifestStatus: () -> (size: Int, mtime: timespec, text: [Range<Int>])?) throws {
        try store.writeStream(fileName) { emit in
            var b = magic + fingerprint
            b.reserveCapacity(1 << 20)
            func u64(_ v: Int) { var le = UInt64(truncatingIfNeeded: v).littleEndian; withUnsafeBytes(of: &le) { b.append(contentsOf: $0) } }
            func bytes(_ s: String) { u64(s.utf8.count); b.append(contentsOf: s.utf8) }
            func word(_ x: UInt64) { var be = x.bigEndian; withUnsafeBytes(of: &be) { b.append(contentsOf: $0) } }
            func digest(_ d: Digest16) { word(d.high); word(d.low) }
            bytes(manifest.generator.version)
            u64(counts.tiles); u64(counts.bytes); u64(counts.blank); u64(counts.warnings)
            func entries<C: Collection<Manifest.TileEntry>>(_ list: C, letGo: () -> Void = {}) throws {
                for (k, f) in list.enumerated() {
                    if k % 16_384 == 16_383 { letGo() }
                    bytes(f.path); u64(f.bytes)
                    let w = f.sha256.words
                    word(w.0); word(w.1); word(w.2); word(w.3)
                    if let k = f.key { b.append(1); digest(k) } else { b.append(0) }
                    if b.count >= 1 << 20 { try emit(Data(b)); b.removeAll(keepingCapacity: true) }
                }
            }
            u64(manifest.tiles.count)
            // Pyramid by pyramid (their entries are contiguous, in pyramid order).
            let covered = pyramids.reduce(0) { $0 + $1.tiles.count } == manifest.tiles.count
            if covered {
                for (pi, p) in pyramids.enumerated() {
                    if let d = copied(pi) {
                        try emit(Data(b)); b.removeAll(keepingCapacity: true)
                        try emit(d)
                    } else {
                        try entries(manifest.tiles[p.tiles], letGo: manifest.tiles.letGo)
                    }
                }
            } else {
                try entries(manifest.tiles[...], letGo: manifest.tiles.letGo)
            }
            u64(manifest.files.count)
            try entries(manifest.files[...])
            u64(manifest.blank_tiles.count)
            for e in manifest.blank_tiles {
                bytes(e.path); digest(e.key)
                if b.count >= 1 << 20 { try emit(Data(b)); b.removeAll(keepingCapacity: true) }
            }
            // The pyramids last: their tile lines' place in the manifest is known
            // once it is written.
            guard let ms = manifestStatus(), ms.text.count == pyramids.count else {
                throw StoreError(operation: "write", path: store.path(fileName), reason: "the manifest was not written")
            }
            u64(pyramids.count)
            for (p, text) in zip(pyramids, ms.text) {
                bytes(p.directory); digest(p.digest)
                u64(p.tiles.lowerBound); u64(p.tiles.count); u64(p.blanks.lowerBound); u64(p.blanks.count)
                u64(text.lowerBound); u64(text.count)
            }
            u64(ms.size); u64(ms.mtime.tv_sec); u64(ms.mtime.tv_nsec)
            try emit(Data(b))
        }
    }

    /// The fingerprint the index was written for, reading only its header.
    static func recordedFingerprint(_ store: TileStore) -> [UInt8]? {
        guard let h = FileHandle(forReadingAtPath: store.path(fileName)) else { return nil }
        defer { try? h.close() }
        guard let d = try? h.read(upToCount: 40), d.count == 40, Array(d.prefix(8)) == magic else { return nil }
        return Array(d.suffix(32))
    }

    /// A reading position in the index: counts little-endian, digest words
    /// big-endian, strings as a count and UTF-8 bytes. Every read is checked
    /// against the end (a cut-short index reads as nil).
    struct Cursor {
        let b: UnsafeBufferPointer<UInt8>
        var o: Int

        mutating func u64() -> Int? {
            guard o + 8 <= b.count else { return nil }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(b[o + k]) << (8 * UInt64(k)) }
            o += 8
            return Int(truncatingIfNeeded: v)
        }

        mutating func word() -> UInt64? {
            guard o + 8 <= b.count else { return nil }
            var v: UInt64 = 0
            for k in 0..<8 { v = v << 8 | UInt64(b[o + k]) }
            o += 8
            return v
        }

        mutating func utf8() -> UnsafeBufferPointer<UInt8>? {
            // Compared as `n <= count - o`: a damaged length near Int.max must not overflow `o + n`.
            guard let n = u64(), n >= 0, n <= b.count - o else { return nil }
            defer { o += n }
            return UnsafeBufferPointer(rebasing: b[o..<(o + n)])
        }

        mutating func string() -> String? { utf8().map { String(decoding: $0, as: UTF8.self) } }

        /// The header: fingerprint, version and counts, when the index is of this
        /// format and was written for the manifest whose status is `manifest`.
        /// Leaves the cursor at the first entry list.
        mutating func header(manifest ms: (size: Int, mtime: timespec))
            -> (fingerprint: [UInt8], version: String, counts: Counts, manifestSize: Int, manifestTime: timespec)? {
            guard b.count >= 64, b[0..<8].elementsEqual(magic) else { return nil }
            let fp = Array(b[8..<40])
            // The trailer: the manifest this index was written for.
            o = b.count - 24
            guard let size = u64(), let sec = u64(), let nsec = u64(),
                  size == ms.size, sec == ms.mtime.tv_sec, nsec == ms.mtime.tv_nsec else { return nil }
            o = 40
            guard let version = string(),
                  let tiles = u64(), let bytes = u64(), let blank = u64(), let warnings = u64() else { return nil }
            return (fp, version, Counts(tiles: tiles, bytes: bytes, blank: blank, warnings: warnings), size, timespec(tv_sec: sec, tv_nsec: nsec))
        }

        /// Steps over one entry; returns its path's length (nil: cut short).
        mutating func skipEntry() -> Int? {
            guard let n = u64(), n >= 0, n <= b.count - o - (8 + 32 + 1) else { return nil }
            o += n + 8 + 32
            let hasKey = b[o] == 1
            o += 1 + (hasKey ? 16 : 0)
            return o <= b.count ? n : nil
        }

        /// One tile or file entry: its path (in place), size, SHA-256 and key.
        mutating func entry() -> (path: UnsafeBufferPointer<UInt8>, size: Int, sha256: Digest32, key: Digest16?)? {
            guard let path = utf8(), let size = u64(), let s0 = word(), let s1 = word(), let s2 = word(), let s3 = word(),
                  o < b.count else { return nil }
            let hasKey = b[o] == 1
            o += 1
            var key: Digest16?
            if hasKey { guard let k0 = word(), let k1 = word() else { return nil }; key = Digest16(high: k0, low: k1) }
            return (path, size, Digest32(words: (s0, s1, s2, s3)), key)
        }
    }

    /// Reads the index: header fields, then the entry lists; nil when it is
    /// missing, of another format, cut short or not written for this manifest.
    static func read(_ store: TileStore) -> (fingerprint: [UInt8], counts: Counts, state: PreviousState)? {
        guard let ms = store.fileStatus(Manifest.fileName), let index = MappedFile(path: store.path(fileName)) else { return nil }
        return withExtendedLifetime(index) { () -> (fingerprint: [UInt8], counts: Counts, state: PreviousState)? in
            var c = Cursor(b: index.bytes.bindMemory(to: UInt8.self), o: 0)
            guard let h = c.header(manifest: ms) else { return nil }
            // The tile entries: counted and checked once, then read into their columns.
            guard let n = c.u64(), n >= 0, n <= c.b.count else { return nil }
            let first = c.o
            var pathBytes = 0
            for k in 0..<n {
                guard let count = c.skipEntry() else { return nil }
                pathBytes += count
                // Counted pages go back too: else the whole index is resident before the reading below lets go of any.
                if k % 16_384 == 16_383 { index.release(through: UnsafeRawBufferPointer(rebasing: index.bytes[..<c.o])) }
            }
            let tiles = IndexedTiles(count: n, pathBytes: pathBytes)
            c.o = first
            let fill = tiles.paths.filler
            var at = 0
            for k in 0..<n {
                tiles.offsets[k] = c.o
                // Read in order: the pages behind go back as it goes (a large build's index is tens of megabytes).
                if k % 16_384 == 16_383 {
                    index.release(through: UnsafeRawBufferPointer(rebasing: index.bytes[..<c.o]))
                    tiles.columns.drop()
                }
                guard let e = c.entry() else { return nil }
                at = fill.put(e.path, index: k, at: at)
                tiles.sha256[k] = e.sha256; tiles.sizes[k] = e.size
                if let key = e.key { tiles.keys[k] = key; tiles.keyed[k] = true }
            }
            tiles.offsets[n] = c.o
            tiles.columns.drop()
            guard let nf = c.u64(), nf >= 0, nf <= c.b.count else { return nil }
            var files = [Manifest.TileEntry]()
            for _ in 0..<nf {
                guard let e = c.entry() else { return nil }
                files.append(Manifest.TileEntry(path: String(decoding: e.path, as: UTF8.self), sha256: e.sha256, bytes: e.size, key: e.key))
            }
            guard let nb = c.u64(), nb >= 0, nb <= c.b.count else { return nil }
            var blanks = [Manifest.BlankEntry]()
            blanks.reserveCapacity(nb)
            for _ in 0..<nb {
                guard let path = c.string(), let k0 = c.word(), let k1 = c.word() else { return nil }
                blanks.append(Manifest.BlankEntry(path: path, key: Digest16(high: k0, low: k1)))
            }
            guard let np = c.u64(), np >= 0, np <= c.b.count else { return nil }
            var pyramids = [PyramidRecord]()
            for _ in 0..<np {
                guard let dir = c.string(), let d0 = c.word(), let d1 = c.word(),
                      let ts = c.u64(), let tc = c.u64(), let bs = c.u64(), let bc = c.u64(), let ms = c.u64(), let mc = c.u64(),
                      ts >= 0, tc >= 0, ts + tc <= n, bs >= 0, bc >= 0, bs + bc <= blanks.count,
                      ms >= 0, mc >= 0, ms + mc <= h.manifestSize else { return nil }
                pyramids.append(PyramidRecord(directory: dir, digest: Digest16(high: d0, low: d1), tiles: ts..<(ts + tc),
                                              blanks: bs..<(bs + bc), manifestText: ms..<(ms + mc)))
            }
            var state = PreviousState(version: h.version, indexed: tiles, files: files, blank: blanks, pyramids: pyramids)
            state.manifestIdentity = (h.manifestSize, h.manifestTime)
            state.indexFile = (store.path(fileName), index.size, index.mtime)
            return (h.fingerprint, h.counts, state)
        }
    }

    /// The last build's counts when the no-op fast path holds, else nil.
    ///
    /// Works on the mapped index without making an entry or a string per file:
    /// only the paths' places and the sizes, then one stat per file on every
    /// core (paths come sorted by folder, so each run keeps its folder open).
    static func unchanged(_ store: TileStore, fingerprint: [UInt8]) -> Counts? {
        guard store.fileStatus(TileStore.intentName) == nil,
              let indexStat = store.fileStatus(fileName), let manifestStat = store.fileStatus(Manifest.fileName),
              !(manifestStat.mtime > indexStat.mtime),
              let index = MappedFile(path: store.path(fileName)) else { return nil }
        return withExtendedLifetime(index) { () -> Counts? in
            var c = Cursor(b: index.bytes.bindMemory(to: UInt8.self), o: 0)
            guard let h = c.header(manifest: manifestStat), h.fingerprint == fingerprint else { return nil }
            // Where each path is (offset, length) and the size recorded for it: tiles, then other files.
            var places = [(start: Int, count: Int, size: Int)]()
            places.reserveCapacity(h.counts.tiles + 64)
            for _ in 0..<2 {
                guard let n = c.u64(), n >= 0, n <= c.b.count else { return nil }
                for k in 0..<n {
                    guard let e = c.entry() else { return nil }
                    places.append((e.path.baseAddress! - c.b.baseAddress!, e.path.count, e.size))
                    // Read pages go back as it goes (the stats below read each path again).
                    if k % 16_384 == 16_383 { index.release(through: UnsafeRawBufferPointer(rebasing: index.bytes[..<c.o])) }
                }
            }
            let base = c.b.baseAddress!
            let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, places.count / 1024))
            let perRun = (places.count + workers - 1) / workers
            let fresh = Workers.map(workers, workers: workers, placeholder: false) { _, r in
                let cursor = TileStore.StatCursor(store)
                let run = (r * perRun)..<min((r + 1) * perRun, places.count)
                for i in run {
                    let p = places[i]
                    // This run's pages read so far go back (not the other runs', which their threads are reading).
                    if (i - run.lowerBound) % 16_384 == 16_383 {
                        let first = places[run.lowerBound].start
                        index.release(UnsafeRawBufferPointer(start: base + first, count: p.start - first))
                    }
                    guard let st = cursor.status(utf8: UnsafeBufferPointer(start: base + p.start, count: p.count)),
                          st.size == p.size, !(st.mtime > indexStat.mtime) else { return false }
                }
                return true
            }
            return fresh.allSatisfy { $0 } ? h.counts : nil
        }
    }
}
