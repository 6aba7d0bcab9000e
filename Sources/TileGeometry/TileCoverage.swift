/// Which tiles a geometry touches.
///
/// A tile is covered when the geometry meets the tile's closed extent grown by
/// `pad` metres on every side. The pad is the drawn half-width of the feature
/// (stroke, dot radius) so that a line on a tile edge is drawn in both tiles.
/// Polygons cover every tile their boundary meets plus every tile wholly
/// inside them; holes are excluded (even-odd).
public enum TileCoverage {
    public static func tiles(of geometry: ProjectedGeometry, zoom: Int, pad: Double,
                             into body: (TileID) -> Void) {
        switch geometry {
        case .points(let ps):
            var seen = Set<TileID>()
            for p in ps {
                let range = TileRange(covering: MercatorRect(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y).expanded(by: pad), zoom: zoom)
                forEach(range) { t in if seen.insert(t).inserted { body(t) } }
            }
        case .lines(let lines):
            var seen = Set<TileID>()
            for line in lines {
                markSegments(line, zoom: zoom, pad: pad) { if seen.insert($0).inserted { body($0) } }
            }
        case .polygons(let polys):
            for rings in polys {
                polygonTiles(rings, zoom: zoom, pad: pad, body: body)
            }
        }
    }

    /// All covered tiles, sorted.
    public static func tiles(of geometry: ProjectedGeometry, zoom: Int, pad: Double) -> [TileID] {
        var out = Set<TileID>()
        tiles(of: geometry, zoom: zoom, pad: pad) { out.insert($0) }
        return out.sorted()
    }

    private static func forEach(_ r: TileRange, _ body: (TileID) -> Void) {
        for y in r.minY...r.maxY { for x in r.minX...r.maxX { body(TileID(z: r.zoom, x: x, y: y)) } }
    }

    private static func markSegments(_ pts: [MercatorPoint], zoom: Int, pad: Double,
                                     _ mark: (TileID) -> Void) {
        guard !pts.isEmpty else { return }
        if pts.count == 1 {
            let p = pts[0]
            forEach(TileRange(covering: MercatorRect(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y).expanded(by: pad), zoom: zoom), mark)
            return
        }
        for i in 0..<(pts.count - 1) {
            let a = pts[i], b = pts[i + 1]
            var box = MercatorRect.empty
            box.extend(a); box.extend(b)
            let range = TileRange(covering: box.expanded(by: pad), zoom: zoom)
            if range.count == 1 {
                mark(TileID(z: zoom, x: range.minX, y: range.minY))
                continue
            }
            for y in range.minY...range.maxY {
                for x in range.minX...range.maxX {
                    let t = TileID(z: zoom, x: x, y: y)
                    if Planar.segment(a, b, intersects: t.bounds.expanded(by: pad)) { mark(t) }
                }
            }
        }
    }

    private static func polygonTiles(_ rings: [[MercatorPoint]], zoom: Int, pad: Double,
                                     body: (TileID) -> Void) {
        guard let exterior = rings.first, exterior.count >= 3 else { return }
        // All rings, not just the exterior: a malformed hole may stick out of it.
        var box = MercatorRect.empty
        rings.forEach { $0.forEach { box.extend($0) } }
        let range = TileRange(covering: box.expanded(by: pad), zoom: zoom)
        let width = range.maxX - range.minX + 1
        var boundary = [Bool](repeating: false, count: range.count)
        for ring in rings {
            markSegments(ring, zoom: zoom, pad: pad) { t in
                boundary[(t.y - range.minY) * width + (t.x - range.minX)] = true
            }
        }
        // A tile the boundary does not meet lies wholly inside or wholly outside:
        // classify it by its centre with one even-odd scanline per row.
        let span = WebMercator.tileSpan(zoom: zoom)
        var crossings = [Double]()
        for y in range.minY...range.maxY {
            let cy = WebMercator.originShift - (Double(y) + 0.5) * span
            crossings.removeAll(keepingCapacity: true)
            for ring in rings where ring.count > 1 {
                var j = ring.count - 1
                for i in 0..<ring.count {
                    let a = ring[i], b = ring[j]
                    if (a.y > cy) != (b.y > cy) {
                        crossings.append(a.x + (cy - a.y) * (b.x - a.x) / (b.y - a.y))
                    }
                    j = i
                }
            }
            crossings.sort()
            for x in range.minX...range.maxX {
                let idx = (y - range.minY) * width + (x - range.minX)
                if boundary[idx] { body(TileID(z: zoom, x: x, y: y)); continue }
                let cx = (Double(x) + 0.5) * span - WebMercator.originShift
                var n = 0
                while n < crossings.count && crossings[n] < cx { n += 1 }
                if n % 2 == 1 { body(TileID(z: zoom, x: x, y: y)) }
            }
        }
    }
}
