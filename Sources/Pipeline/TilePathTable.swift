/// Every planned tile's path, in job order, kept as one buffer of UTF-8 bytes
/// and where each path ends, both in `MappedColumn`s that the build's
/// `ResidentColumns` lets go of between stages.
///
/// Why not `[String]`: a tile path is longer than Swift's 15-byte small
/// string, so each element would be a heap object of its own (its header and
/// malloc rounding on top of the bytes and the 16-byte slot), and the plan
/// holds one per tile of the whole build until the manifest is written. Here
/// a path costs its bytes and one end offset. A path is made into a `String`
/// when it is read (`withUTF8` reads its bytes without one).
struct TilePathTable: RandomAccessCollection, Sendable {
    private let bytes: MappedColumn<UInt8>
    /// Where each path ends in `bytes`; a path starts where the one before it ends.
    private let ends: MappedColumn<Int>

    /// A table of `paths` paths of `bytes` bytes in all, filled in place
    /// through `filler`, every path once; `columns` lets go of its pages.
    init(paths: Int, bytes: Int, columns: ResidentColumns) {
        self.bytes = columns.track(MappedColumn(repeating: 0, count: bytes))
        ends = columns.track(MappedColumn(repeating: 0, count: paths))
    }

    var startIndex: Int { 0 }
    var endIndex: Int { ends.count }
    var byteCount: Int { bytes.count }

    subscript(i: Int) -> String {
        withUTF8(i) { String(decoding: $0, as: UTF8.self) }
    }

    /// Path `i`'s UTF-8 bytes, without making a `String`.
    func withUTF8<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let start = i == 0 ? 0 : ends[i - 1]
        return try body(UnsafeBufferPointer(rebasing: bytes.buffer[start..<ends[i]]))
    }

    /// Writes the table's paths; threads may fill distinct paths at once.
    struct Filler: Sendable {
        let bytes: MappedColumn<UInt8>
        let ends: MappedColumn<Int>
        /// Puts `path` as path `index`, its bytes from `at` (where the path
        /// before it ends); returns where it ends.
        func put(_ path: UnsafeBufferPointer<UInt8>, index: Int, at: Int) -> Int {
            precondition(at + path.count <= bytes.count, "path \(index) past the table's bytes")
            if let from = path.baseAddress { (bytes.buffer.baseAddress! + at).update(from: from, count: path.count) }
            ends[index] = at + path.count
            return at + path.count
        }

        func put(_ path: [UInt8], index: Int, at: Int) -> Int {
            path.withUnsafeBufferPointer { put($0, index: index, at: at) }
        }
    }

    var filler: Filler { Filler(bytes: bytes, ends: ends) }
}
