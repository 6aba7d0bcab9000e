/// The last build's tile entries as its binary index lists them, one
/// `MappedColumn` per field, so that an incremental build does not hold an
/// entry object per tile of the last build on the heap while it plans,
/// renders and commits (on 200 small venues that was 40 MB of a 101 MiB
/// peak). The stages read the fields they need by index (`key`, `sha256`,
/// `size`, `withPath`); a whole `Manifest.TileEntry` is made only where one
/// is wanted (`BuildIndex.PreviousState.tiles`).
final class IndexedTiles: @unchecked Sendable {
    let paths: TilePathTable
    let sha256: MappedColumn<Digest32>
    let sizes: MappedColumn<Int>
    let keys: MappedColumn<Digest16>
    let keyed: MappedColumn<Bool>
    /// Where each entry starts in the index file, and where the last one ends
    /// (a carried pyramid's entries are copied from the file by these).
    let offsets: MappedColumn<Int>
    /// Their pages, handed back between stages with the build's own columns.
    let columns = ResidentColumns()

    /// Room for `count` entries whose paths have `pathBytes` bytes in all.
    init(count: Int, pathBytes: Int) {
        paths = TilePathTable(paths: count, bytes: pathBytes, columns: columns)
        sha256 = columns.track(MappedColumn(repeating: Digest32(bytes: []), count: count))
        sizes = columns.track(MappedColumn(repeating: 0, count: count))
        keys = columns.track(MappedColumn(repeating: Digest16(high: 0, low: 0), count: count))
        keyed = columns.track(MappedColumn(repeating: false, count: count))
        offsets = columns.track(MappedColumn(repeating: 0, count: count + 1))
    }

    var count: Int { sizes.count }

    func entry(_ i: Int) -> Manifest.TileEntry {
        Manifest.TileEntry(path: paths[i], sha256: sha256[i], bytes: sizes[i], key: keyed[i] ? keys[i] : nil)
    }
}
