/// Every planned tile's path, in job order, kept as one buffer of UTF-8 bytes
/// and where each path ends.
///
/// Why not `[String]`: a tile path is longer than Swift's 15-byte small
/// string, so each element would be a heap object of its own (its header and
/// malloc rounding on top of the bytes and the 16-byte slot), and the plan
/// holds one per tile of the whole build until the manifest is written. Here
/// a path costs its bytes and one end offset. A path is made into a `String`
/// when it is read: each is read a few times in a build (diff, writer,
/// manifest), against once per tile before, and the allocation moves there.
struct TilePathTable: RandomAccessCollection, Sendable {
    private var bytes: [UInt8] = []
    /// Where each path ends in `bytes`; a path starts where the one before it ends.
    private var ends: [Int] = []
    /// The whole build's table (`joined`): the same two lists in a `MappedColumn` each.
    private var mapped: (bytes: MappedColumn<UInt8>, ends: MappedColumn<Int>)?

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { mapped?.ends.count ?? ends.count }

    subscript(i: Int) -> String {
        if let (b, e) = mapped {
            let start = i == 0 ? 0 : e[i - 1]
            return String(decoding: UnsafeBufferPointer(rebasing: b.buffer[start..<e[i]]), as: UTF8.self)
        }
        let start = i == 0 ? 0 : ends[i - 1]
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<ends[i]]), as: UTF8.self) }
    }

    /// Path `i`'s UTF-8 bytes, without making a `String`.
    func withUTF8<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let (b, e) = mapped {
            let start = i == 0 ? 0 : e[i - 1]
            return try body(UnsafeBufferPointer(rebasing: b.buffer[start..<e[i]]))
        }
        let start = i == 0 ? 0 : ends[i - 1]
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<ends[i]])) }
    }

    /// Appends one path, given as its UTF-8 bytes.
    mutating func append<C: Collection>(utf8 path: C) where C.Element == UInt8 {
        precondition(mapped == nil, "a joined table is not appended to")
        bytes.append(contentsOf: path)
        ends.append(bytes.count)
    }

    /// Appends another table's paths after this one's.
    mutating func append(contentsOf other: TilePathTable) {
        precondition(mapped == nil && other.mapped == nil, "a joined table is not appended to")
        let base = bytes.count
        bytes.append(contentsOf: other.bytes)
        ends.reserveCapacity(ends.count + other.ends.count)
        for e in other.ends { ends.append(base + e) }
    }

    /// Room for `paths` paths of `total` bytes in all, so that the table is
    /// built without the spare capacity that growing leaves.
    mutating func reserveCapacity(paths: Int, bytes total: Int) {
        bytes.reserveCapacity(total)
        ends.reserveCapacity(paths)
    }

    var byteCount: Int { mapped?.bytes.count ?? bytes.count }

    /// A table of `paths` paths of `bytes` bytes in all, in mapped columns
    /// (see `MappedColumn`) that `columns` lets go of between stages: the
    /// whole build's paths, filled in place through `filler`, every path once.
    static func mapped(paths: Int, bytes: Int, columns: ResidentColumns) -> TilePathTable {
        var out = TilePathTable()
        out.mapped = (columns.track(MappedColumn<UInt8>(repeating: 0, count: bytes)), columns.track(MappedColumn<Int>(repeating: 0, count: paths)))
        return out
    }

    /// Writes a mapped table's paths; threads may fill distinct paths at once.
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

    var filler: Filler {
        guard let (b, e) = mapped else { preconditionFailure("only a mapped table is filled") }
        return Filler(bytes: b, ends: e)
    }
}
