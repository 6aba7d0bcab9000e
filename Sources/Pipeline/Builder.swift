import Crypto
import Dispatch
import Foundation
import Rendering
import Styling
import TileGeometry
import VenueModel

public enum Generator {
    public static let name = "venuetiles"
    public static let version = "0.1.0"
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

    /// One tile to draw.
    private struct Job {
        var venue: Int, floor: Int, plan: Int, tile: Int, tileset: Int
    }

    public func run() throws -> BuildSummary {
        let start = Date()
        var summary = BuildSummary()
        let outputDir = options.output ?? config.output
        summary.output = outputDir

        if let unsupported = config.tilesets.first(where: { $0.format != .png }) {
            throw ConfigError(file: config.file, key: "tilesets", problem: "tileset format \"\(unsupported.format.rawValue)\" is not supported by this version (supported: png)")
        }

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
        var plans = [[[FloorZoomPlan]]]()   // venue → floor → zoom
        for v in venues {
            plans.append(v.floors.map { f in (config.minZoom...config.maxZoom).map { Plan.run(floor: f, zoom: $0) } })
        }
        var jobs = [Job]()
        for (vi, v) in plans.enumerated() {
            for ti in config.tilesets.indices {
                for (fi, f) in v.enumerated() {
                    for (pi, p) in f.enumerated() {
                        for t in p.tiles.indices { jobs.append(Job(venue: vi, floor: fi, plan: pi, tile: t, tileset: ti)) }
                    }
                }
            }
        }
        log("plan: \(jobs.count) tiles to render across \(venues.reduce(0) { $0 + $1.floors.count }) floors, zooms \(config.minZoom)–\(config.maxZoom)")

        // Render and store.
        let store = TileStore(root: outputDir)
        try store.makeDirectory(outputDir)
        let workers = options.jobs
        var renderers = [[Int: TileRenderer]](repeating: [:], count: workers)
        for w in 0..<workers {
            for ts in config.tilesets where renderers[w][ts.scale] == nil {
                renderers[w][ts.scale] = try TileRenderer(scale: ts.scale)
            }
        }
        typealias Slot = Result<(Data, String)?, Error>
        var entries = [Manifest.TileEntry]()
        entries.reserveCapacity(jobs.count)
        var counts = [[Int]](repeating: [Int](repeating: 0, count: config.tilesets.count), count: venues.count)
        var bytes = counts, blanks = counts
        var perFloorZoom = [[[String: [String: Int]]]](repeating: [[String: [String: Int]]](repeating: [:], count: config.tilesets.count), count: venues.count)
        let batchSize = 1024
        var lastReport = Date()
        var done = 0
        while done < jobs.count {
            let batch = jobs[done..<min(done + batchSize, jobs.count)]
            var slots = [Slot](repeating: .success(nil), count: batch.count)
            let base = batch.startIndex
            slots.withUnsafeMutableBufferPointer { out in
                let outPtr = out
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    var i = w
                    while i < batch.count {
                        let job = jobs[base + i]
                        let plan = plans[job.venue][job.floor][job.plan]
                        let renderer = renderers[w][config.tilesets[job.tileset].scale]!
                        outPtr[i] = Result {
                            switch try renderer.render(tile: plan.tiles[job.tile], items: venues[job.venue].floors[job.floor].items,
                                                       indices: plan.items[job.tile]) {
                            case .transparent: return nil
                            case .png(let d): return (d, SHA256.hash(data: d).hex)
                            }
                        }
                        i += workers
                    }
                }
            }
            // One writer, in plan order.
            for (i, slot) in slots.enumerated() {
                let job = jobs[base + i]
                let tile = plans[job.venue][job.floor][job.plan].tiles[job.tile]
                guard let (data, hash) = try slot.get() else { blanks[job.venue][job.tileset] += 1; continue }
                let floorID = venues[job.venue].floors[job.floor].id
                let ts = config.tilesets[job.tileset]
                let rel = "\(venues[job.venue].sourceID)/\(floorID)/\(ts.directoryName)/\(tile.z)/\(tile.x)/\(tile.y).png"
                try store.write(rel, data)
                entries.append(Manifest.TileEntry(path: rel, sha256: hash, bytes: data.count))
                counts[job.venue][job.tileset] += 1
                bytes[job.venue][job.tileset] += data.count
                perFloorZoom[job.venue][job.tileset][floorID, default: [:]]["\(tile.z)", default: 0] += 1
            }
            done += batch.count
            if Date().timeIntervalSince(lastReport) > 2 || done == jobs.count {
                let el = Date().timeIntervalSince(start)
                log("render: \(done)/\(jobs.count) tiles (\(done * 100 / max(jobs.count, 1))%), \(Int(Double(done) / max(el, 0.001))) tiles/s")
                lastReport = Date()
            }
        }

        // Tiles the previous build wrote that this one does not produce.
        let produced = Set(entries.map(\.path))
        if let previous = Manifest.load(from: outputDir) {
            for e in previous.tiles where !produced.contains(e.path) {
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
            let tilesets = config.tilesets.enumerated().map { ti, ts in
                Manifest.TilesetEntry(format: ts.format.rawValue, scale: ts.scale, tile_size: ts.tileSize,
                                      minzoom: config.minZoom, maxzoom: config.maxZoom,
                                      path_template: "\(v.sourceID)/{floor}/\(ts.directoryName)/{z}/{x}/{y}.png",
                                      tile_count: counts[vi][ti], total_bytes: bytes[vi][ti],
                                      tiles_per_floor: perFloorZoom[vi][ti], blank_tiles_skipped: blanks[vi][ti])
            }
            let center = v.venue.displayPoint ?? b.center
            let warnings = loaded[vi].diagnostics.filter { $0.kind == .warning }.count
            venueEntries.append(Manifest.VenueEntry(id: v.venue.id, source_id: v.sourceID, name: v.venue.name.text(preferring: lang),
                                                    center: [center.lon, center.lat], bounds: [b.west, b.south, b.east, b.north],
                                                    floors: floors, tilesets: tilesets, warnings: warnings))
            summary.tilesWritten += counts[vi].reduce(0, +)
            summary.bytes += bytes[vi].reduce(0, +)
            summary.blankSkipped += blanks[vi].reduce(0, +)
        }
        let manifest = Manifest(generator: .init(name: Generator.name, version: Generator.version), venues: venueEntries, tiles: entries)
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
