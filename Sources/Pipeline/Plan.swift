import Drawing
import TileGeometry

/// The tiles of one pyramid at one zoom, each with the items that touch it.
public struct FloorZoomPlan: Sendable {
    public var zoom: Int
    /// Sorted by tile id.
    public var tiles: [TileID]
    /// Item indices per tile, in drawing order; parallel to `tiles`.
    public var items: [[Int32]]
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
        if !wholeTile.isEmpty { plan.items = plan.items.map { wholeTile + $0 } }
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
        var plan = run(floor: floor, zoom: z)
        guard (floor.labelStyle != nil && !floor.labels.isEmpty) || !floor.icons.isEmpty else { return ([], plan) }
        let labels = LabelPlacement.place(floor.labels, icons: floor.icons, style: floor.labelStyle, zoom: z, floorArea: floor.area,
                                          obstacles: floor.obstacles)
        let base = Int32(floor.items.count)
        let lp = run(labels.map(\.geometry), zoom: z, listPad: { DrawMetrics.pad(for: $0, zoom: z) })
        var position = [TileID: Int]()
        for (i, t) in plan.tiles.enumerated() { position[t] = i }
        // Every tile a placed box reaches exists, so no label or icon is cut
        // where the floor's drawing ends: an icon at a room's edge reaches past
        // it, and a building label's footprint need not be drawn on the floor.
        // Such a tile's key lists the label, so it changes with the label.
        let wholeTile = floor.items.indices.filter { floor.items[$0].wholeTile }.map(Int32.init)
        var added = [(TileID, [Int32])]()
        for (t, idx) in zip(lp.tiles, lp.items) {
            if let i = position[t] { plan.items[i] += idx.map { $0 + base } } else { added.append((t, wholeTile + idx.map { $0 + base })) }
        }
        if !added.isEmpty {
            var merged = zip(plan.tiles, plan.items).map { ($0, $1) } + added
            merged.sort { $0.0 < $1.0 }
            plan.tiles = merged.map(\.0)
            plan.items = merged.map(\.1)
        }
        return (labels, plan)
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
                plan.items = plan.items.map { $0.map { $0 >= base ? $0 + shift : $0 } }
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
        guard rect.minX <= rect.maxX else { return FloorZoomPlan(zoom: zoom, tiles: [], items: []) }
        let range = TileRange(covering: rect, zoom: zoom)
        guard range.count <= 4_000_000 else { return runSparse(geometries, zoom: zoom, listPad: padAt, existencePad: existencePad) }
        let height = range.maxY - range.minY + 1
        @inline(__always) func cell(_ t: TileID) -> Int { (t.x - range.minX) * height + (t.y - range.minY) }
        var lists = [[Int32]](repeating: [], count: range.count)
        var outside = false
        for (i, g) in geometries.enumerated() {
            let idx = Int32(i)
            TileCoverage.tiles(of: g, zoom: zoom, pad: padAt(i, g)) { t in
                // Coverage and the grid round the same rectangles alike; should they not, the dictionary takes over.
                guard t.x >= range.minX, t.x <= range.maxX, t.y >= range.minY, t.y <= range.maxY else { outside = true; return }
                let c = cell(t)
                // A MultiPolygon may report a tile once per part.
                if lists[c].last != idx { lists[c].append(idx) }
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
        var tiles = [TileID](), items = [[Int32]]()
        for c in lists.indices where !lists[c].isEmpty && (exists?[c] ?? true) {
            tiles.append(TileID(z: zoom, x: range.minX + c / height, y: range.minY + c % height))
            items.append(lists[c])
        }
        return FloorZoomPlan(zoom: zoom, tiles: tiles, items: items)
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
        return FloorZoomPlan(zoom: zoom, tiles: tiles, items: tiles.map { map[$0]! })
    }
}
