import VenueModel

/// An XYZ tile (y grows southward, as in slippy maps). Coordinates are Int
/// (64-bit) so tile and pixel math stays exact far beyond z23.
public struct TileID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int

    public init(z: Int, x: Int, y: Int) {
        precondition(z >= 0 && z <= 30, "zoom \(z) out of range 0...30")
        self.z = z; self.x = x; self.y = y
    }

    public var description: String { "\(z)/\(x)/\(y)" }

    /// Number of tiles along one axis at this zoom.
    public static func count(zoom: Int) -> Int { 1 << zoom }

    /// The tile that contains a Mercator point; points on an edge belong to the tile east/south.
    public static func containing(_ p: MercatorPoint, zoom: Int) -> TileID {
        let span = WebMercator.tileSpan(zoom: zoom)
        let n = count(zoom: zoom)
        let x = Int(((p.x + WebMercator.originShift) / span).rounded(.down))
        let y = Int(((WebMercator.originShift - p.y) / span).rounded(.down))
        return TileID(z: zoom, x: min(max(x, 0), n - 1), y: min(max(y, 0), n - 1))
    }

    public static func containing(_ p: LonLat, zoom: Int) -> TileID {
        containing(WebMercator.project(p), zoom: zoom)
    }

    /// The tile's extent in Mercator metres.
    public var bounds: MercatorRect {
        let span = WebMercator.tileSpan(zoom: z)
        let minX = Double(x) * span - WebMercator.originShift
        let maxY = WebMercator.originShift - Double(y) * span
        return MercatorRect(minX: minX, minY: maxY - span, maxX: minX + span, maxY: maxY)
    }

    /// y in the TMS scheme (origin at the south).
    public var tmsY: Int { TileID.count(zoom: z) - 1 - y }

    /// Bing/HERE quadkey: one base-4 digit per zoom level.
    public var quadkey: String {
        var digits = [Character]()
        digits.reserveCapacity(z)
        for i in stride(from: z, to: 0, by: -1) {
            let mask = 1 << (i - 1)
            var d = 0
            if x & mask != 0 { d += 1 }
            if y & mask != 0 { d += 2 }
            digits.append(Character(String(d)))
        }
        return String(digits)
    }

    public static func < (a: TileID, b: TileID) -> Bool {
        (a.z, a.x, a.y) < (b.z, b.x, b.y)
    }
}

/// An inclusive range of tiles at one zoom.
public struct TileRange: Sendable {
    public var zoom: Int
    public var minX: Int, minY: Int, maxX: Int, maxY: Int

    /// The tiles whose closed extent meets `rect`. Rounding can only add a
    /// neighbour (callers test tiles exactly), never lose one: the rectangle is
    /// grown by a billionth of a tile first.
    public init(covering rect: MercatorRect, zoom: Int) {
        let span = WebMercator.tileSpan(zoom: zoom)
        let n = TileID.count(zoom: zoom)
        func clamp(_ v: Int) -> Int { min(max(v, 0), n - 1) }
        let rect = rect.expanded(by: span * 1e-9)
        self.zoom = zoom
        minX = clamp(Int(((rect.minX + WebMercator.originShift) / span).rounded(.down)))
        maxX = clamp(Int(((rect.maxX + WebMercator.originShift) / span).rounded(.down)))
        minY = clamp(Int(((WebMercator.originShift - rect.maxY) / span).rounded(.down)))
        maxY = clamp(Int(((WebMercator.originShift - rect.minY) / span).rounded(.down)))
    }

    public var count: Int { (maxX - minX + 1) * (maxY - minY + 1) }
}
