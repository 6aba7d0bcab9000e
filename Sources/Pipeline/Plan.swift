import Drawing
import TileGeometry

/// The tiles of one pyramid at one zoom, each with the items that touch it.
public struct FloorZoomPlan: Sendable {
    public var zoom: Int
    /// Sorted by tile id.
    public var tiles: PlannedTiles
    /// Item indices per tile, in drawing order; parallel to `tiles`.
    public var items: TileItemLists

    public init(zoom: Int, tiles: PlannedTiles, items: TileItemLists) {
        precondition(tiles.zoom == zoom || tiles.isEmpty, "tiles of zoom \(tiles.zoom) in a plan of zoom \(zoom)")
        self.zoom = zoom; self.tiles = tiles; self.items = items
    }

    public init<S: Sequence>(zoom: Int, tiles: S, items: TileItemLists) where S.Element == TileID {
        self.init(zoom: zoom, tiles: PlannedTiles(zoom: zoom, tiles), items: items)
    }
}

/// Plan stage: which tiles exist and what each one draws.
///
/// A tile exists when at least one item touches it (for raster floors, also
/// when a placed label, icon or dot reaches it), so there are no blank
/// rectangles of tiles around a venue. Raster items touch a tile when they
/// meet it grown by their drawn half-width (`DrawMetrics`); vector items are
/// listed for every tile whose buffer they reach, but only tiles they
/// actually meet exist.
public enum Plan {
    public static func run(floor: PreparedFloor, zoom: Int) -> FloorZoomPlan {
        // A grown item (a floor slab) reaches past its geometry by its growth.
        let padOf = floor.items.contains { $0.grow > 0 } ? floor.items.map { DrawMetrics.pad(for: $0, zoom: zoom) } : nil
        var plan = run(floor.items.map { $0.wholeTile ? .points([]) : $0.geometry }, zoom: zoom,
                       listPad: { DrawMetrics.pad(for: $0, zoom: zoom) }, padOf: padOf)
        // The background makes no tile exist, but fills every tile that does.
        let wholeTile = floor.items.indices.filter { floor.items[$0].wholeTile }.map(Int32.init)
        plan.items = plan.items.prefixing(wholeTile)
        return plan
    }

    /// The raster plans of a floor at every zoom, with its labels: the items are
    /// the floor's drawn items followed by the labels placed at each zoom (drawn
    /// last, over everything), and each tile lists the labels that touch it.
    public static func raster(floor: PreparedFloor, zooms: [Int]) -> (items: [DrawItem], plans: [FloorZoomPlan]) {
        combine(floor: floor, zooms.map { raster(floor: floor, zoom: $0) })
    }

    /// One zoom of `raster(floor:zooms:)`: the labels placed at `zoom` and the
    /// plan, whose label indices start at `floor.items.count`.
    public static func raster(floor: PreparedFloor, zoom z: Int) -> (labels: [DrawItem], plan: FloorZoomPlan) {
        let plan = run(floor: floor, zoom: z)
        guard (floor.labelStyle != nil && !floor.labels.isEmpty) || !floor.icons.isEmpty else { return ([], plan) }
        let labels = LabelPlacement.place(floor.labels, icons: floor.icons, style: floor.labelStyle, zoom: z, floorArea: floor.area,
                                          obstacles: floor.obstacles)
        let base = Int32(floor.items.count)
        let lp = run(labels.map(\.geometry), zoom: z, listPad: { DrawMetrics.pad(for: $0, zoom: z) })
        guard !lp.tiles.isEmpty else { return (labels, plan) }
        // Every tile a placed box reaches exists, so no label or icon is cut
        // where the floor's drawing ends: an icon at a room's edge reaches past
        // it, and a building label's footprint need not be drawn on the floor.
        // Such a tile's key lists the label, so it changes with the label.
        let wholeTile = floor.items.indices.filter { floor.items[$0].wholeTile }.map(Int32.init)
        return (labels, merge(plan, labels: lp, base: base, wholeTile: wholeTile))
    }

    /// `plan` with the tiles of `labels` (a plan of placed boxes, whose indices
    /// become `base + i`): a tile of both lists its items, then its labels; a
    /// tile of the labels alone lists `wholeTile`, then its labels. Both are
    /// sorted by tile, and so is the result.
    static func merge(_ plan: FloorZoomPlan, labels lp: FloorZoomPlan, base: Int32, wholeTile: [Int32]) -> FloorZoomPlan {
        var tiles = [TileID](), items = TileItemLists()
        tiles.reserveCapacity(plan.tiles.count + lp.tiles.count)
        items.reserveCapacity(lists: plan.tiles.count + lp.tiles.count,
                              items: plan.items.items.count + lp.items.items.count + wholeTile.count * lp.tiles.count)
        var a = 0, b = 0
        while a < plan.tiles.count || b < lp.tiles.count {
            if b == lp.tiles.count || (a < plan.tiles.count && plan.tiles[a] < lp.tiles[b]) {
                tiles.append(plan.tiles[a]); items.append(plan.items[a]); a += 1
            } else if a == plan.tiles.count || lp.tiles[b] < plan.tiles[a] {
                tiles.append(lp.tiles[b]); items.append(wholeTile, then: lp.items[b].lazy.map { $0 + base }); b += 1
            } else {
                tiles.append(plan.tiles[a]); items.append(plan.items[a], then: lp.items[b].lazy.map { $0 + base }); a += 1; b += 1
            }
        }
        return FloorZoomPlan(zoom: plan.zoom, tiles: tiles, items: items.exactSize())
    }

    /// Joins per-zoom raster plans: each zoom's labels follow the previous zooms' ones.
    public static func combine(floor: PreparedFloor, _ perZoom: [(labels: [DrawItem], plan: FloorZoomPlan)]) -> (items: [DrawItem], plans: [FloorZoomPlan]) {
        var items = floor.items
        var plans = [FloorZoomPlan]()
        let base = Int32(floor.items.count)
        for (labels, plan) in perZoom {
            var plan = plan
            let shift = Int32(items.count) - base
            if shift != 0 && !labels.isEmpty {
                plan.items = plan.items.mappingItems { $0 >= base ? $0 + shift : $0 }
            }
            items += labels
            plans.append(plan)
        }
        return (items, plans)
    }

    public static func run(vector items: [VectorItem], zoom: Int, extent: Int, buffer: Int) -> FloorZoomPlan {
        let pad = Double(buffer) / Double(extent) * WebMercator.tileSpan(zoom: zoom)
        return run(items.map(\.geometry), zoom: zoom, listPad: { _ in pad }, existencePad: { _ in 0 })
    }

    /// `padOf`: per geometry, the list pad to use instead of `listPad`'s.
    public static func run(_ geometries: [ProjectedGeometry], zoom: Int, listPad: (ProjectedGeometry) -> Double,
                           existencePad: ((ProjectedGeometry) -> Double)? = nil, padOf: [Double]? = nil) -> FloorZoomPlan {
        func padAt(_ i: Int, _ g: ProjectedGeometry) -> Double { padOf?[i] ?? listPad(g) }
        // The tiles anything can reach, as a dense grid in TileID order (x, then
        // y): lists are appended per cell with no hashing. A venue spans a few
        // hundred tiles a side at z23; a far larger extent falls back to a dictionary.
        var rect = MercatorRect.empty
        for (i, g) in geometries.enumerated() {
            let b = g.bounds
            guard b.minX <= b.maxX else { continue }
            rect.extend(b.expanded(by: padAt(i, g)))
        }
        guard rect.minX <= rect.maxX else { return FloorZoomPlan(zoom: zoom, tiles: [], items: TileItemLists()) }
        let range = TileRange(covering: rect, zoom: zoom)
        guard range.count <= 4_000_000 else { return runSparse(geometries, zoom: zoom, listPad: padAt, existencePad: existencePad) }
        let height = range.maxY - range.minY + 1
        @inline(__always) func cell(_ t: TileID) -> Int { (t.x - range.minX) * height + (t.y - range.minY) }
        // Each cell's list chained backwards (its last entry; each entry's item
        // and the entry before it): no array per cell while the lists grow.
        var lastEntry = [Int32](repeating: -1, count: range.count)
        var entryItem = [Int32](), entryBefore = [Int32]()
        var outside = false
        for (i, g) in geometries.enumerated() {
            let idx = Int32(i)
            TileCoverage.tiles(of: g, zoom: zoom, pad: padAt(i, g)) { t in
                // Coverage and the grid round the same rectangles alike; should they not, the dictionary takes over.
                guard t.x >= range.minX, t.x <= range.maxX, t.y >= range.minY, t.y <= range.maxY else { outside = true; return }
                let c = cell(t)
                // A MultiPolygon may report a tile once per part.
                let last = lastEntry[c]
                if last < 0 || entryItem[Int(last)] != idx {
                    entryItem.append(idx); entryBefore.append(last)
                    lastEntry[c] = Int32(entryItem.count - 1)
                }
            }
        }
        var exists: [Bool]? = nil
        if let existencePad {
            var e = [Bool](repeating: false, count: range.count)
            for g in geometries {
                TileCoverage.tiles(of: g, zoom: zoom, pad: existencePad(g)) { t in
                    guard t.x >= range.minX, t.x <= range.maxX, t.y >= range.minY, t.y <= range.maxY else { outside = true; return }
                    e[cell(t)] = true
                }
            }
            exists = e
        }
        if outside { return runSparse(geometries, zoom: zoom, listPad: padAt, existencePad: existencePad) }
        let kept = lastEntry.indices.filter { lastEntry[$0] >= 0 && (exists?[$0] ?? true) }
        let tiles = kept.map { c in TileID(z: zoom, x: range.minX + c / height, y: range.minY + c % height) }
        var items = TileItemLists(), list = [Int32]()
        items.reserveCapacity(lists: kept.count, items: entryItem.count)
        for c in kept {
            list.removeAll(keepingCapacity: true)
            var e = lastEntry[c]
            while e >= 0 { list.append(entryItem[Int(e)]); e = entryBefore[Int(e)] }
            items.append(list.reversed())
        }
        return FloorZoomPlan(zoom: zoom, tiles: tiles, items: items.exactSize())
    }

    /// `run` with a dictionary of tiles, for extents too large for a dense grid.
    static func runSparse(_ geometries: [ProjectedGeometry], zoom: Int, listPad: (Int, ProjectedGeometry) -> Double,
                          existencePad: ((ProjectedGeometry) -> Double)?) -> FloorZoomPlan {
        var map = [TileID: [Int32]]()
        for (i, g) in geometries.enumerated() {
            let idx = Int32(i)
            TileCoverage.tiles(of: g, zoom: zoom, pad: listPad(i, g)) { t in
                if map[t]?.last != idx { map[t, default: []].append(idx) }
            }
        }
        var keep: Set<TileID>? = nil
        if let existencePad {
            var s = Set<TileID>()
            for g in geometries { TileCoverage.tiles(of: g, zoom: zoom, pad: existencePad(g)) { s.insert($0) } }
            keep = s
        }
        let tiles = map.keys.filter { keep?.contains($0) ?? true }.sorted()
        return FloorZoomPlan(zoom: zoom, tiles: tiles, items: TileItemLists(tiles.lazy.map { map[$0]! }))
    }
}
