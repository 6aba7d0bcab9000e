import Crypto
import Dispatch
import Foundation
import Rendering
import Styling
import TileGeometry
import VenueModel

public enum Generator {
    public static let name = "venuetiles"
    public static let version = "0.2.0"
}

public struct BuildOptions: Sendable {
    /// Render workers; defaults to the number of cores.
    public var jobs: Int
    /// Overrides the config's output folder (absolute).
    public var output: String?
    public init(jobs: Int = ProcessInfo.processInfo.activeProcessorCount, output: String? = nil) {
        self.jobs = max(1, jobs); self.output = output
    }
}

public struct BuildSummary: Sendable {
    public var tilesWritten = 0
    public var blankSkipped = 0
    public var deleted = 0
    public var bytes = 0
    public var warnings = 0
    /// Polygons left out of vector tiles because quantisation made them invalid.
    public var invalidPolygonsDropped = 0
    public var seconds = 0.0
    public var output = ""
}

/// Runs the stages: Load → Prepare → Plan → Render → Store → Manifest.
public final class Builder {
    public let config: PipelineConfig
    public let options: BuildOptions
    private let log: (String) -> Void

    public init(config: PipelineConfig, options: BuildOptions, log: @escaping (String) -> Void) {
        self.config = config; self.options = options; self.log = log
    }

    /// One folder of tiles: a floor (or `all`) of one tileset of one venue.
    struct Pyramid {
        enum Content { case raster(floor: Int), vector([VectorItem]) }
        var venue: Int
        var name: String
        var tileset: Int
        var content: Content
        var plans: [FloorZoomPlan]
        func path(_ sourceID: String, _ ts: PipelineConfig.Tileset) -> String { "\(sourceID)/\(name)/\(ts.directoryName)" }
    }

    struct Job { var pyramid: Int32; var plan: Int32; var tile: Int32 }

    struct Rendered { var data: Data; var hash: String; var dropped: Int }

    public func run() throws -> BuildSummary {
        let start = Date()
        var summary = BuildSummary()
        let outputDir = options.output ?? config.output
        summary.output = outputDir
        let zooms = Array(config.minZoom...config.maxZoom)

        // Load: everything is read and checked before the output folder is touched.
        let style = try Load.style(config.style)
        style.warnings.forEach { log("warning: \($0)") }
        summary.warnings += style.warnings.count
        var loaded = [Load.Loaded]()
        for s in config.sources {
            let l = try Load.source(s)
            for d in l.diagnostics { log(d.description) }
            let w = l.diagnostics.filter { $0.kind == .warning }.count
            log("load: \(s.id): \(l.venue.levels.count) levels, \(l.venue.features.count) features, \(w) warnings")
            summary.warnings += w
            loaded.append(l)
        }

        // Prepare and plan.
        let venues = loaded.map { Prepare.run(sourceID: $0.sourceID, venue: $0.venue, style: style) }
        let wantsVector = config.tilesets.contains { $0.format == .mvt }
        let vectors = wantsVector ? venues.map(PrepareVector.run) : []
        var pyramids = [Pyramid]()
        for (vi, v) in venues.enumerated() {
            var rasterPlans = [Int: [FloorZoomPlan]]()
            for (ti, ts) in config.tilesets.enumerated() {
                switch ts.format {
                case .png:
                    for fi in v.floors.indices {
                        if rasterPlans[fi] == nil { rasterPlans[fi] = zooms.map { Plan.run(floor: v.floors[fi], zoom: $0) } }
                        pyramids.append(Pyramid(venue: vi, name: v.floors[fi].id, tileset: ti, content: .raster(floor: fi), plans: rasterPlans[fi]!))
                    }
                case .mvt:
                    let sets = vectors[vi].floors.enumerated().map { (v.floors[$0.offset].id, $0.element) } + [("all", vectors[vi].all)]
                    for (name, items) in sets {
                        let plans = zooms.map { Plan.run(vector: items, zoom: $0, extent: ts.extent, buffer: ts.buffer) }
                        pyramids.append(Pyramid(venue: vi, name: name, tileset: ti, content: .vector(items), plans: plans))
                    }
                }
            }
        }
        var jobs = [Job]()
        for (pi, p) in pyramids.enumerated() {
            for (zi, plan) in p.plans.enumerated() {
                for t in plan.tiles.indices { jobs.append(Job(pyramid: Int32(pi), plan: Int32(zi), tile: Int32(t))) }
            }
        }
        log("plan: \(jobs.count) tiles in \(pyramids.count) pyramids, zooms \(config.minZoom)–\(config.maxZoom)")

        // Render and store.
        let store = TileStore(root: outputDir)
        try store.makeDirectory(outputDir)
        let workers = options.jobs
        var renderers = [[Int: TileRenderer]](repeating: [:], count: workers)
        for w in 0..<workers {
            for ts in config.tilesets where ts.format == .png && renderers[w][ts.scale] == nil {
                renderers[w][ts.scale] = try TileRenderer(scale: ts.scale)
            }
        }
        var entries = [Manifest.TileEntry]()
        entries.reserveCapacity(jobs.count)
        var counts = [Int](repeating: 0, count: pyramids.count)
        var bytes = counts, blanks = counts
        var perZoom = [[Int]](repeating: [Int](repeating: 0, count: zooms.count), count: pyramids.count)
        let batchSize = 1024
        var lastReport = Date()
        var done = 0
        while done < jobs.count {
            let base = done
            let n = min(batchSize, jobs.count - done)
            var slots = [Result<Rendered?, Error>](repeating: .success(nil), count: n)
            slots.withUnsafeMutableBufferPointer { out in
                let out = out
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    var i = w
                    while i < n {
                        let job = jobs[base + i]
                        let p = pyramids[Int(job.pyramid)]
                        let plan = p.plans[Int(job.plan)]
                        let tile = plan.tiles[Int(job.tile)]
                        let ts = config.tilesets[p.tileset]
                        out[i] = Result {
                            switch p.content {
                            case .raster(let floor):
                                let r = renderers[w][ts.scale]!
                                guard case .png(let d) = try r.render(tile: tile, items: venues[p.venue].floors[floor].items,
                                                                      indices: plan.items[Int(job.tile)]) else { return nil }
                                return Rendered(data: d, hash: SHA256.hash(data: d).hex, dropped: 0)
                            case .vector(let items):
                                let tolerance = tile.z < config.maxZoom ? ts.simplify : 0
                                let (raw, dropped) = VectorTileEncoding.encode(items: items, indices: plan.items[Int(job.tile)], tile: tile,
                                                                               venueWide: p.name == "all",
                                                                               geometry: VectorTileGeometry(extent: ts.extent, buffer: ts.buffer, tolerance: tolerance))
                                guard let raw else { return nil }
                                let d = Data(ts.gzip ? try Gzip.compress(raw) : raw)
                                return Rendered(data: d, hash: SHA256.hash(data: d).hex, dropped: dropped)
                            }
                        }
                        i += workers
                    }
                }
            }
            // One writer, in plan order.
            for (i, slot) in slots.enumerated() {
                let job = jobs[base + i]
                let pi = Int(job.pyramid)
                let p = pyramids[pi]
                let tile = p.plans[Int(job.plan)].tiles[Int(job.tile)]
                guard let r = try slot.get() else { blanks[pi] += 1; continue }
                let ts = config.tilesets[p.tileset]
                let rel = "\(p.path(venues[p.venue].sourceID, ts))/\(tile.z)/\(tile.x)/\(tile.y).\(ts.fileExtension)"
                try store.write(rel, r.data)
                entries.append(Manifest.TileEntry(path: rel, sha256: r.hash, bytes: r.data.count))
                counts[pi] += 1
                bytes[pi] += r.data.count
                perZoom[pi][Int(job.plan)] += 1
                summary.invalidPolygonsDropped += r.dropped
            }
            done += n
            if Date().timeIntervalSince(lastReport) > 2 || done == jobs.count {
                let el = Date().timeIntervalSince(start)
                log("render: \(done)/\(jobs.count) tiles (\(done * 100 / max(jobs.count, 1))%), \(Int(Double(done) / max(el, 0.001))) tiles/s")
                lastReport = Date()
            }
        }
        if summary.invalidPolygonsDropped > 0 {
            log("warning: \(summary.invalidPolygonsDropped) polygon pieces were left out of vector tiles: quantisation to the tile grid made them invalid")
            summary.warnings += 1
        }

        // TileJSON next to every pyramid.
        var files = [Manifest.TileEntry]()
        var tilejsonPaths = [Int: [String]]()
        for (pi, p) in pyramids.enumerated() where counts[pi] > 0 {
            let v = venues[p.venue]
            let ts = config.tilesets[p.tileset]
            let dir = p.path(v.sourceID, ts)
            let b = v.bounds
            let c = v.venue.displayPoint ?? b.center
            let floorName: String? = p.name == "all" ? "all floors" :
                v.floors.first { $0.id == p.name }.map { f in f.floor.shortName(language: v.venue.language) ?? f.id }
            var layers: [TileJSON.VectorLayer]? = nil
            if case .vector(let items) = p.content { layers = TileJSONLayers.describe(items, venueWide: p.name == "all", minzoom: config.minZoom, maxzoom: config.maxZoom) }
            let doc = TileJSON(name: "\(v.venue.name.text(preferring: v.venue.language) ?? v.sourceID) — \(floorName ?? p.name)",
                               description: "\(Generator.name) \(ts.format.rawValue) tiles of \(v.sourceID), \(p.name)",
                               tiles: [TileJSON.url(base: config.baseURL, path: "\(dir)/{z}/{x}/{y}.\(ts.fileExtension)")],
                               minzoom: config.minZoom, maxzoom: config.maxZoom, bounds: [b.west, b.south, b.east, b.north],
                               center: [c.lon, c.lat, Double(config.minZoom)], vector_layers: layers,
                               format: ts.fileExtension, tile_size: ts.format == .png ? ts.tileSize : nil)
            let data = try doc.encoded()
            let rel = "\(dir)/tilejson.json"
            try store.write(rel, data)
            files.append(Manifest.TileEntry(path: rel, sha256: SHA256.hash(data: data).hex, bytes: data.count))
            tilejsonPaths[p.venue * 1000 + p.tileset, default: []].append(rel)
        }
        if config.baseURL == nil { log("notice: no base_url in \(config.file): TileJSON tile URLs are relative to the output folder") }

        // Files the previous build wrote that this one does not produce.
        let produced = Set(entries.map(\.path)).union(files.map(\.path))
        if let previous = Manifest.load(from: outputDir) {
            for e in previous.tiles + previous.files where !produced.contains(e.path) {
                store.remove(e.path)
                summary.deleted += 1
            }
        }

        // Manifest, last.
        var venueEntries = [Manifest.VenueEntry]()
        for (vi, v) in venues.enumerated() {
            let lang = v.venue.language
            let b = v.bounds
            let floors = v.floors.map { f in
                Manifest.FloorEntry(id: f.id, ordinal: f.floor.ordinal, short_name: f.floor.shortName(language: lang),
                                    levels: f.floor.levels.map {
                                        Manifest.LevelEntry(id: $0.id, name: $0.name.text(preferring: lang),
                                                            short_name: $0.shortName.text(preferring: lang),
                                                            building_ids: $0.buildingIDs, outdoor: $0.outdoor)
                                    })
            }
            var tilesets = [Manifest.TilesetEntry]()
            for (ti, ts) in config.tilesets.enumerated() {
                let mine = pyramids.indices.filter { pyramids[$0].venue == vi && pyramids[$0].tileset == ti }
                var perFloor = [String: [String: Int]]()
                for pi in mine {
                    for (zi, z) in zooms.enumerated() where perZoom[pi][zi] > 0 { perFloor[pyramids[pi].name, default: [:]]["\(z)"] = perZoom[pi][zi] }
                }
                let raster = ts.format == .png
                tilesets.append(Manifest.TilesetEntry(
                    format: ts.format.rawValue, scale: raster ? ts.scale : nil, tile_size: raster ? ts.tileSize : nil,
                    extent: raster ? nil : ts.extent, buffer: raster ? nil : ts.buffer,
                    content_encoding: raster ? nil : (ts.gzip ? "gzip" : "identity"),
                    minzoom: config.minZoom, maxzoom: config.maxZoom,
                    path_template: "\(v.sourceID)/{floor}/\(ts.directoryName)/{z}/{x}/{y}.\(ts.fileExtension)",
                    tile_count: mine.reduce(0) { $0 + counts[$1] }, total_bytes: mine.reduce(0) { $0 + bytes[$1] },
                    tiles_per_floor: perFloor, blank_tiles_skipped: mine.reduce(0) { $0 + blanks[$1] },
                    tilejson: tilejsonPaths[vi * 1000 + ti] ?? []))
            }
            let center = v.venue.displayPoint ?? b.center
            let warnings = loaded[vi].diagnostics.filter { $0.kind == .warning }.count
            venueEntries.append(Manifest.VenueEntry(id: v.venue.id, source_id: v.sourceID, name: v.venue.name.text(preferring: lang),
                                                    center: [center.lon, center.lat], bounds: [b.west, b.south, b.east, b.north],
                                                    floors: floors, tilesets: tilesets, warnings: warnings))
        }
        summary.tilesWritten = counts.reduce(0, +)
        summary.bytes = bytes.reduce(0, +)
        summary.blankSkipped = blanks.reduce(0, +)
        let manifest = Manifest(generator: .init(name: Generator.name, version: Generator.version), venues: venueEntries,
                                tiles: entries, files: files)
        try store.write(Manifest.fileName, try manifest.encoded())
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }
}

extension Digest {
    var hex: String {
        var s = ""
        s.reserveCapacity(64)
        for b in self {
            s.append(Character(Unicode.Scalar(UInt8(ascii: "0") &+ (b >> 4) &+ (b >> 4 > 9 ? 39 : 0))))
            s.append(Character(Unicode.Scalar(UInt8(ascii: "0") &+ (b & 15) &+ (b & 15 > 9 ? 39 : 0))))
        }
        return s
    }
}
