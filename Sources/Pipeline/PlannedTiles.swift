import TileGeometry

/// The tiles of one plan (one zoom), in the order planned: a collection of
/// `TileID` stored as one 64-bit word a tile (x in the high half, y in the
/// low one; the zoom is the plan's).
///
/// Why: every planned tile of a build is kept from planning to the end of
/// its render, for every venue of the config. A `TileID` is three `Int`s
/// (24 bytes); here a tile takes 8, which is most of what 200 venues' plans
/// held on the heap. Tile coordinates at zoom ≤ 30 are below 2³⁰, so both
/// halves hold them exactly, and the words sort as the tiles do.
public struct PlannedTiles: RandomAccessCollection, Sendable, Equatable {
    public let zoom: Int
    private var words: [UInt64]

    public init<S: Sequence>(zoom: Int, _ tiles: S) where S.Element == TileID {
        self.zoom = zoom
        words = tiles.map { t in
            precondition(t.z == zoom && t.x >= 0 && t.y >= 0 && t.x < 1 << 32 && t.y < 1 << 32,
                         "tile \(t) planned at zoom \(zoom)")
            return UInt64(t.x) << 32 | UInt64(t.y)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { words.count }

    public subscript(i: Int) -> TileID {
        let w = words[i]
        return TileID(z: zoom, x: Int(w >> 32), y: Int(w & 0xFFFF_FFFF))
    }

    /// The tiles at `indices`, in that order.
    public func selecting<S: Sequence>(_ indices: S) -> PlannedTiles where S.Element == Int {
        var s = PlannedTiles(zoom: zoom, [])
        s.words = indices.map { words[$0] }
        return s
    }
}
