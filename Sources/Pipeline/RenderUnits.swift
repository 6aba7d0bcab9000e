import Crypto
import Drawing
import Foundation
import Rendering
import TileGeometry
import VectorTiles

/// The Render stage's units of work, and where each is turned into tiles:
/// metatiles of raster tiles drawn together, vector groups (a venue-wide
/// tile with its floors' tiles at the same place), single tiles.
extension Builder {
    /// Render units, flat: unit u is the jobs `members[starts[u]..<starts[u + 1]]`,
    /// one tile drawn alone (span 1), the tiles of one metatile drawn together,
    /// or a vector group (span `vectorGroup`, see `vectorTileGroups`).
    struct RenderUnits {
        static let vectorGroup = 0
        private(set) var members = [Int32]()
        private var starts: [Int32] = [0]
        private var spans = [UInt8]()
        var count: Int { spans.count }
        func jobs(_ u: Int) -> ArraySlice<Int32> { members[Int(starts[u])..<Int(starts[u + 1])] }
        func size(_ u: Int) -> Int { Int(starts[u + 1] - starts[u]) }
        func span(_ u: Int) -> Int { Int(spans[u]) }
        mutating func append<S: Sequence>(_ jobs: S, span: Int) where S.Element == Int32 {
            members.append(contentsOf: jobs)
            starts.append(Int32(members.count))
            spans.append(UInt8(span))
        }
    }

    struct MetatileKey: Hashable { var pyramid: Int32; var plan: Int32; var x: Int; var y: Int; var span: Int }

    /// Renders a unit: one tile, or the tiles of one metatile in one drawing.
    func render(_ unit: ArraySlice<Int32>, span: Int, _ jobs: MappedColumn<Job>, _ pyramids: [Pyramid], _ venues: [PreparedVenue],
                _ renderers: [Int: TileRenderer], _ workspace: MVTEncoder.Workspace) -> [Result<Rendered?, Error>] {
        if span == RenderUnits.vectorGroup { return renderVectorGroup(unit, jobs, pyramids, workspace) }
        guard span > 1 else {
            return [Result { try self.render(jobs[Int(unit.first!)], pyramids, venues, renderers, workspace) }]
        }
        let first = jobs[Int(unit.first!)]
        let p = pyramids[Int(first.pyramid)]
        let plan = p.plans[Int(first.plan)]
        guard case .raster(let items) = p.content else { preconditionFailure("metatiles are raster only") }
        let tiles = unit.map { plan.tiles[Int(jobs[Int($0)].tile)] }
        let origin = TileID(z: tiles[0].z, x: tiles[0].x / span * span, y: tiles[0].y / span * span)
        // Each tile's items, in drawing order (a row of the block draws the union of its tiles').
        let itemsOfTile = unit.map { plan.items[Int(jobs[Int($0)].tile)] }
        do {
            // The frame: every tile of this metatile that the plan has (sorted by x, then y).
            var lo = 0, hi = plan.tiles.count
            while lo < hi { let mid = (lo + hi) / 2; if plan.tiles[mid].x < origin.x { lo = mid + 1 } else { hi = mid } }
            var frame = [TileID]()
            while lo < plan.tiles.count && plan.tiles[lo].x < origin.x + span {
                let t = plan.tiles[lo]
                if t.y >= origin.y && t.y < origin.y + span { frame.append(t) }
                lo += 1
            }
            let out = try renderers[config.tilesets[p.tileset].scale]!.render(metatile: origin, span: span, tiles: tiles, frame: frame,
                                                                               items: items, itemsOfTile: itemsOfTile)
            return out.map { r in
                guard case .png(let d) = r else { return .success(nil) }
                return .success(Rendered(data: d, hash: Digest32.sha256(d), dropped: 0))
            }
        } catch {
            return unit.map { _ in .failure(error) }
        }
    }

    func render(_ job: Job, _ pyramids: [Pyramid], _ venues: [PreparedVenue], _ renderers: [Int: TileRenderer],
                _ workspace: MVTEncoder.Workspace) throws -> Rendered? {
        let p = pyramids[Int(job.pyramid)]
        let plan = p.plans[Int(job.plan)]
        let tile = plan.tiles[Int(job.tile)]
        let ts = config.tilesets[p.tileset]
        switch p.content {
        case .raster(let items):
            guard case .png(let d) = try renderers[ts.scale]!.render(tile: tile, items: items,
                                                                     indices: plan.items[Int(job.tile)]) else { return nil }
            return Rendered(data: d, hash: Digest32.sha256(d), dropped: 0)
        case .vector:
            return try renderVector(job, pyramids, workspace)
        }
    }

    /// A vector tile; `made` gives geometries already clipped to this tile for
    /// another pyramid, and `keep` is told the ones clipped here.
    func renderVector(_ job: Job, _ pyramids: [Pyramid], _ workspace: MVTEncoder.Workspace,
                      made: (Int32) -> VectorTileGeometry.Result? = { _ in nil },
                      keep: (Int32, VectorTileGeometry.Result) -> Void = { _, _ in }) throws -> Rendered? {
        let p = pyramids[Int(job.pyramid)]
        guard case .vector(let items, let table) = p.content else { preconditionFailure("a raster job as a vector tile") }
        let plan = p.plans[Int(job.plan)]
        let tile = plan.tiles[Int(job.tile)]
        let ts = config.tilesets[p.tileset]
        let tolerance = tile.z < config.maxZoom ? ts.simplify : 0
        let (raw, dropped) = VectorTileEncoding.encode(items: items, indices: plan.items[Int(job.tile)], tile: tile,
                                                       venueWide: p.floor == nil,
                                                       geometry: VectorTileGeometry(extent: ts.extent, buffer: ts.buffer, tolerance: tolerance),
                                                       table: table, workspace: workspace, made: made, keep: keep)
        guard let raw else { return nil }
        let d = Data(ts.gzip ? try Gzip.compress(raw) : raw)
        return Rendered(data: d, hash: Digest32.sha256(d), dropped: dropped)
    }

    /// A vector group: its floors' tiles first, then the venue-wide tile at the
    /// same place, whose items are the floors' items: each is clipped once.
    func renderVectorGroup(_ unit: ArraySlice<Int32>, _ jobs: MappedColumn<Job>, _ pyramids: [Pyramid], _ workspace: MVTEncoder.Workspace) -> [Result<Rendered?, Error>] {
        var clipped = [Int: VectorTileGeometry.Result]()
        return unit.map { ji in
            let job = jobs[Int(ji)]
            let p = pyramids[Int(job.pyramid)]
            return Result {
                if let f = p.floor {
                    return try renderVector(job, pyramids, workspace, keep: { clipped[f << 32 | Int($0)] = $1 })
                }
                return try renderVector(job, pyramids, workspace, made: { a in
                    let s = p.sources[Int(a)]
                    return clipped[s.floor << 32 | s.index]
                })
            }
        }
    }

    /// Vector render units that share clipping: for each tile of a venue-wide
    /// vector pyramid, the jobs to render of that tile in its floors' pyramids
    /// (same venue and tileset), then its own job. The venue-wide pyramid has
    /// every floor's items, so clipping them again for it doubled the vector
    /// tiles' geometry work. Both lists are in tile order per zoom: a merge,
    /// no lookup. Groups of one job are left to the ordinary units.
    func vectorTileGroups(_ jobs: MappedColumn<Job>, _ decisions: [Decision], _ pyramids: [Pyramid], _ jobStart: [Int]) -> (groups: [[Int32]], grouped: [Bool]) {
        var groups = [[Int32]](), grouped = [Bool](repeating: false, count: jobs.count)
        // The first job of each plan of each pyramid.
        func planStarts(_ pi: Int) -> [Int] {
            var starts = [Int](), j = jobStart[pi]
            for plan in pyramids[pi].plans { starts.append(j); j += plan.tiles.count }
            return starts
        }
        for (ai, a) in pyramids.enumerated() where a.floor == nil && !a.carried && !a.sources.isEmpty {
            let floors = pyramids.indices.filter {
                pyramids[$0].venue == a.venue && pyramids[$0].tileset == a.tileset && pyramids[$0].floor != nil && !pyramids[$0].carried
            }
            let aStarts = planStarts(ai)
            let fStarts = floors.map(planStarts)
            for (zi, aPlan) in a.plans.enumerated() {
                var cursor = [Int](repeating: 0, count: floors.count)
                for (t, tile) in aPlan.tiles.enumerated() {
                    var members = [Int32]()
                    for (k, fp) in floors.enumerated() {
                        guard zi < pyramids[fp].plans.count, pyramids[fp].plans[zi].zoom == aPlan.zoom else { continue }
                        let fTiles = pyramids[fp].plans[zi].tiles
                        while cursor[k] < fTiles.count && fTiles[cursor[k]] < tile { cursor[k] += 1 }
                        guard cursor[k] < fTiles.count && fTiles[cursor[k]] == tile else { continue }
                        let j = fStarts[k][zi] + cursor[k]
                        if decisions[j] == .render { members.append(Int32(j)) }
                    }
                    let j = aStarts[zi] + t
                    if decisions[j] == .render { members.append(Int32(j)) }
                    guard members.count > 1 else { continue }
                    for m in members { grouped[Int(m)] = true }
                    groups.append(members)
                }
            }
        }
        return (groups, grouped)
    }
}
