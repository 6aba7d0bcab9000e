import Archives
import Clients
import Crypto
import Dispatch
import Drawing
import Foundation
import Styling
import Threads
import TileGeometry
import VectorTiles
import VenueModel
#if canImport(Glibc)
import Glibc
#endif

public enum Generator {
    public static let name = "venuetiles"
    public static let version = "0.6.0"
}

public struct BuildOptions: Sendable {
    /// Render workers; defaults to the number of cores.
    public var jobs: Int
    /// Overrides the config's output folder (absolute).
    public var output: String?
    /// Render every tile, whatever the previous manifest says.
    public var force = false
    /// Report what would be rendered, reused and deleted; change nothing.
    public var dryRun = false
    /// Build into a non-empty folder that venuetiles did not make (its files are never deleted).
    public var allowExisting = false
    /// Build only this shard's part of the tiles (`ShardSplit`), for `venuetiles merge`.
    public var shard: ShardSpec? = nil
    public init(jobs: Int = ProcessInfo.processInfo.activeProcessorCount, output: String? = nil, force: Bool = false, dryRun: Bool = false,
                allowExisting: Bool = false) {
        self.jobs = max(1, jobs); self.output = output; self.force = force; self.dryRun = dryRun; self.allowExisting = allowExisting
    }
}

public struct BuildSummary: Sendable {
    /// Tiles drawn or encoded by this build (blank ones included).
    public var rendered = 0
    /// Tiles whose input key and file were unchanged.
    public var reused = 0
    /// Tiles in the output now.
    public var tilesWritten = 0
    public var blankSkipped = 0
    public var deleted = 0
    public var bytes = 0
    public var warnings = 0
    /// Polygons left out of vector tiles because quantisation made them invalid.
    public var invalidPolygonsDropped = 0
    public var seconds = 0.0
    public var output = ""
    /// For --dry-run: one line per pyramid and zoom.
    public var report: [String] = []
    /// Wall and CPU seconds per stage, in the order they ran, and the process's
    /// peak resident memory (MiB) when the stage ended.
    public var timings: [(stage: String, wall: Double, cpu: Double, peakMiB: Int)] = []
}

/// Measures stages: wall clock and the process's CPU time (all threads).
struct StageClock {
    private var wall = StageClock.now(CLOCK_MONOTONIC)
    private var cpu = StageClock.now(CLOCK_PROCESS_CPUTIME_ID)

    /// VmHWM from /proc/self/status (0 where there is no procfs).
    static func peakMiB() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
        return kb / 1024
    }

    static func now(_ clock: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Records the time since the last lap under `stage`.
    mutating func lap(_ stage: String, into summary: inout BuildSummary) {
        let w = StageClock.now(CLOCK_MONOTONIC), c = StageClock.now(CLOCK_PROCESS_CPUTIME_ID)
        let peak = StageClock.peakMiB()
        if let i = summary.timings.firstIndex(where: { $0.stage == stage }) {
            summary.timings[i].wall += w - wall; summary.timings[i].cpu += c - cpu; summary.timings[i].peakMiB = peak
        } else {
            summary.timings.append((stage, w - wall, c - cpu, peak))
        }
        wall = w; cpu = c
    }
}

/// One run's bookkeeping: the summary it returns and the clock of its stages.
struct BuildRun {
    let start = Date()
    let outputDir: String
    var summary = BuildSummary()
    var clock = StageClock()

    init(outputDir: String) { self.outputDir = outputDir; summary.output = outputDir }

    mutating func lap(_ stage: String) { clock.lap(stage, into: &summary) }

    mutating func finish() -> BuildSummary {
        summary.seconds = Date().timeIntervalSince(start)
        return summary
    }
}

/// Runs the stages: Load → Prepare → Plan (keys, diff) → Render → Store → Manifest.
public final class Builder {
    public let config: PipelineConfig
    public let options: BuildOptions
    let log: (String) -> Void
    /// Called after each rendered batch with (tiles done, tiles to render, seconds since start).
    let progress: ((Int, Int, Double) -> Void)?
    /// Set by the caller (the CLI's SIGINT/SIGTERM handler) to stop the build.
    public let cancellation = Cancellation()
    /// Prepared venues alive with their features and drawing (for tests).
    let liveVenues = LiveVenues()
    /// SHA-256 of the sprite sheet per pixel ratio, for the raster key header.
    var spriteDigests = [Int: String]()
    /// The last run's large values (plans, paths, entries, the last build's
    /// state), kept until the builder is released. Freeing millions of small
    /// allocations took 0.03–0.06 s of a 0.4 s one-unit edit; a command that
    /// exits right after a build (the CLI) never releases the builder and
    /// leaves the memory to the OS.
    private var keptUntilRelease: [Any] = []

    public init(config: PipelineConfig, options: BuildOptions, log: @escaping (String) -> Void,
                progress: ((Int, Int, Double) -> Void)? = nil) {
        self.config = config; self.options = options; self.log = log; self.progress = progress
    }

    /// One folder of tiles: a floor (or `all`) of one tileset of one venue.
    struct Pyramid {
        enum Content { case raster([DrawItem]), vector([VectorItem], MVTPropertyTable) }
        var venue: Int
        var name: String
        var tileset: Int
        var content: Content
        var plans: [FloorZoomPlan]
        var itemKeys: [InputKeys.ItemHash]
        var directory: String
        /// The floor it shows (a raster floor's plan is shared by every scale); nil: venue-wide.
        var floor: Int?
        /// Everything that decides its tiles and their keys (`InputKeys.pyramid`).
        var digest = Digest16(bytes: [])
        /// Taken whole from the last build: not planned, no jobs.
        var carried = false
        /// Where its features are, for its TileJSON: from the items it has before
        /// planning adds placed labels, so that a carried pyramid says the same.
        var extent: LonLatBounds? = nil
        /// Venue-wide vector pyramid: where each of its items is among its
        /// floors' items (the same item, clipped the same way to the same tile).
        var sources: [(floor: Int, index: Int)] = []
        /// Where its tiles go when its tileset's layout is not the xyz tree (`TileLayout.swift`).
        var layout: PyramidLayout? = nil
        /// The input key of each planned tile, plan after plan (parallel to
        /// `plans[i].tiles`), 16 bytes each in the build's `FileSpill`: made
        /// while its venue's items are at hand, read into `BuildPlan.keys`.
        /// In the spill they take no memory while the other venues are planned.
        var tileKeys: FileSpill.Ref? = nil
        /// A vector pyramid's TileJSON `vector_layers`, made from its items before they are dropped.
        var vectorLayers: [TileJSON.VectorLayer]? = nil
        /// Its TileJSON document, made when its venue was planned and waiting in
        /// the build's `FileSpill` (then `vectorLayers` is dropped): what a
        /// pyramid keeps for the whole build does not grow with its layers.
        var tileJSONFile: FileSpill.Ref? = nil
    }

    struct Job { var pyramid: Int32 = 0; var plan: Int32 = 0; var tile: Int32 = 0 }

    typealias Rendered = TileWriter.Rendered

    enum Decision { case render, reuse, reuseBlank }

    /// The stages in data-flow order (ARCHITECTURE.md names each one's type and file).
    public func run() throws -> BuildSummary {
        try refuseShardedArchives()
        var run = BuildRun(outputDir: options.output ?? config.output)
        let zooms = Array(config.minZoom...config.maxZoom)
        // The folder's rules and lock come first: nothing of the last build is
        // read, and nothing deleted, before this build holds the folder.
        let folder = try OutputFolder.openForBuild(run.outputDir, config: config, allowExisting: options.allowExisting,
                                                   dryRun: options.dryRun, notice: log)
        defer { folder.release() }
        try pauseForTests("locked", cancellation)
        if let unchanged = unchangedSince(lastBuild: &run) { return unchanged }

        // What the last builds set aside is deleted meanwhile (see Trash), and
        // the last build's files are checked on a thread of their own (under
        // --force too: a tile whose bytes come out the same is not rewritten).
        if !options.dryRun { Trash.emptyEarlier(root: run.outputDir) }
        let store = TileStore(root: run.outputDir)
        let pending = PreviousBuild.Pending(store: store, checkFiles: true)

        // The last build's state is waited for where planning first needs it: its
        // index is read (and its paths checked) while the first venue loads.
        var lastRead: LastBuild?
        func last() throws -> LastBuild {
            if let lastRead { return lastRead }
            lastRead = try lastBuild(pending, store: store)
            return lastRead!
        }
        var inputs = try loadAndPlan(last, zooms: zooms, &run)                  // Load, Prepare, Plan (a venue at a time)
        let plan = try makePlan(&inputs, try last(), zooms: zooms, pending: pending, store: store, &run)  // Plan, Keys, Diff
        if options.dryRun {
            run.summary.report = dryRunReport(plan.jobs, plan.decisions, plan.pyramids, zooms, carried: plan.carriedPerZoom, stale: plan.stale)
            run.summary.rendered = plan.toRender.count
            run.summary.deleted = plan.stale.count
            return run.finish()
        }

        // From here on the output folder changes; a handled error puts it back.
        try cancellation.check()
        let commit = try Commit(plan, store: store, log: log)
        defer { commit.rollBack() }
        try pauseForTests("writing", cancellation)
        let rendered = try renderAndStore(plan, inputs, commit: commit, &run)   // Render, Store
        let counts = count(plan, rendered.outcomes)
        var files = [Manifest.TileEntry]()
        let tileJSON = try writeTileJSON(plan, inputs.venues, counts, legend: FloorsIndex.legendEntries(inputs.style), spill: inputs.spill,
                                         store: store, files: &files)
        let meshes = try writeMeshes(inputs.meshes, from: inputs.spill, store: store, files: &files)
        let clientsChanged = try writeFiles(inputs.clients.files, from: inputs.spill, store: store, files: &files)
        run.summary.deleted = commit.toDelete.count
        let shard = try shardRecord(plan, fingerprint: inputs.fingerprint, warnings: run.summary.warnings, invalidDropped: run.summary.invalidPolygonsDropped)
        run.lap("tilejson")
        try cancellation.check()

        let lists = manifestLists(plan, counts, outcomes: rendered.outcomes)   // Manifest
        var manifest = Manifest(generator: .init(name: Generator.name, version: Generator.version),
                                venues: venueEntries(inputs.venues, inputs.loaded, plan.pyramids, zooms, counts.tiles, counts.bytes, counts.blanks,
                                                     counts.perZoom, tileJSON.paths, meshes.entries),
                                tiles: lists.tiles, files: files, blank_tiles: lists.blanks, shard: shard)
        run.summary.tilesWritten = counts.tiles.reduce(0, +)
        run.summary.bytes = counts.bytes.reduce(0, +)
        run.summary.blankSkipped = counts.blanks.reduce(0, +)
        let c = BuildIndex.Counts(tiles: run.summary.tilesWritten, bytes: run.summary.bytes, blank: run.summary.blankSkipped, warnings: run.summary.warnings)
        run.lap("manifest lists")
        // Archives are made from the staged tiles and are staged themselves.
        let archivesChanged = try writeArchives(&manifest, store: store, &run)                                   // Archives
        try pauseForTests("committing", cancellation)
        // The last moment to stop: from here the build finishes (its output is complete).
        try cancellation.check()
        try commit.switchFiles()                                                // Switch
        run.lap("switch")
        try pauseForTests("switched", cancellation)
        try writeManifest(manifest, plan, records: lists.records,
                          changedFiles: rendered.changedFiles + tileJSON.changed + meshes.changed + clientsChanged + archivesChanged,
                          fingerprint: indexFingerprint(inputs.fingerprint), counts: c, commit: commit)
        run.lap("manifest+delete")
        keptUntilRelease = [plan, manifest, inputs, lists.records]
        return run.finish()
    }

    /// Nothing changed since the last complete build (every input byte, every
    /// file of the output): the summary, without parsing anything.
    func unchangedSince(lastBuild run: inout BuildRun) -> BuildSummary? {
        guard !options.force, !options.dryRun, let fp = indexFingerprint(try? InputFingerprint.onDisk(config)),
              let last = BuildIndex.unchanged(TileStore(root: run.outputDir), fingerprint: fp) else { return nil }
        log("plan: inputs and output unchanged since the last build; nothing to do")
        run.summary.tilesWritten = last.tiles; run.summary.reused = last.tiles; run.summary.bytes = last.bytes
        run.summary.blankSkipped = last.blank; run.summary.warnings = last.warnings
        run.lap("unchanged check")
        return run.finish()
    }

    // MARK: - stages

    /// Every pyramid the build makes, in output order, with its content and
    /// input digest; not planned yet.
    func describe(_ venues: [PreparedVenue], zooms: [Int]) -> [Pyramid] {
        let wantsRaster = config.tilesets.contains { $0.format == .png }
        let sheetCounts = venues.map { $0.floors.count + $0.overlays.count }
        let wantsVector = config.tilesets.contains { $0.format == .mvt }
        let vectors = wantsVector ? venues.map { PrepareVector.run($0, workers: options.jobs) } : []
        var pyramids = [Pyramid]()
        for (vi, v) in venues.enumerated() {
            for (ti, ts) in config.tilesets.enumerated() {
                switch ts.format {
                case .png:
                    for fi in 0..<sheetCounts[vi] where ts.draws(v.sheet(fi).kind) {
                        let f = v.sheet(fi)
                        pyramids.append(Pyramid(venue: vi, name: f.id, tileset: ti, content: .raster(f.items), plans: [], itemKeys: [],
                                                directory: "\(v.sourceID)/\(f.id)/\(ts.directoryName)", floor: fi))
                    }
                case .mvt:
                    let sets = vectors[vi].floors.enumerated().map { (v.floors[$0.offset].id, $0.element, Optional($0.offset)) }
                        + [("all", vectors[vi].all, nil)]
                    for (name, items, floor) in sets {
                        pyramids.append(Pyramid(venue: vi, name: name, tileset: ti, content: .vector(items, vectors[vi].table), plans: [],
                                                itemKeys: [], directory: "\(v.sourceID)/\(name)/\(ts.directoryName)", floor: floor,
                                                sources: floor == nil ? vectors[vi].allSource : []))
                    }
                }
            }
        }
        applyLayouts(&pyramids, venues)
        // Item hashes once per floor: a floor's raster items serve every scale, its
        // vector items its own pyramid and the venue-wide one (which has the same items).
        func perFloor(_ floorCounts: [Int], _ hash: (Int, Int) -> [InputKeys.ItemHash]) -> [[[InputKeys.ItemHash]]] {
            let refs = floorCounts.indices.flatMap { vi in (0..<floorCounts[vi]).map { (vi, $0) } }
            let flat = Workers.map(refs.count, workers: options.jobs, placeholder: [InputKeys.ItemHash]()) { _, i in hash(refs[i].0, refs[i].1) }
            var out = floorCounts.map { _ in [[InputKeys.ItemHash]]() }
            for (i, r) in refs.enumerated() { out[r.0].append(flat[i]) }
            return out
        }
        let rasterKeys = perFloor(wantsRaster ? sheetCounts : []) { venues[$0].sheet($1).items.map(InputKeys.raster) }
        // One list more per venue: the venue-wide pyramid's own items (`PreparedVectorVenue.overview`).
        let vectorKeys = perFloor(vectors.map { $0.floors.count + 1 }) { vi, fi in
            (fi < vectors[vi].floors.count ? vectors[vi].floors[fi] : vectors[vi].overview).map(InputKeys.vector)
        }
        let allKeys = vectors.indices.map { vi in vectors[vi].allSource.map { vectorKeys[vi][$0.floor][$0.index] } }
        let digested = Workers.map(pyramids.count, workers: options.jobs, placeholder: (Digest16(high: 0, low: 0), [InputKeys.ItemHash]())) { _, pi in
            let p = pyramids[pi]
            let headers = zooms.map { keyHeader(p, zoom: $0) }
            switch p.content {
            case .raster:
                let keys = rasterKeys[p.venue][p.floor!]
                return (InputKeys.pyramid(directory: p.placeKey, headers: headers, zooms: zooms, items: keys, floor: venues[p.venue].sheet(p.floor!)), keys)
            case .vector:
                let keys = p.floor.map { vectorKeys[p.venue][$0] } ?? allKeys[p.venue]
                return (InputKeys.pyramid(directory: p.placeKey, headers: headers, zooms: zooms, items: keys, floor: nil), keys)
            }
        }
        for pi in pyramids.indices {
            pyramids[pi].digest = digested[pi].0; pyramids[pi].itemKeys = digested[pi].1
            let p = pyramids[pi]
            // A raster pyramid's floor is one of the venue's sheets (floors, then overlays).
            var sheet: PreparedFloor?
            if case .raster = p.content { sheet = floorOf(p, venues[p.venue]) }
            pyramids[pi].extent = TileJSONExtent.bounds(p, fallback: venues[p.venue].bounds, labelsOf: sheet, minZoom: zooms.min() ?? config.minZoom)
        }
        return pyramids
    }

    /// Plans the pyramids not carried over: which tiles exist and what each
    /// one draws. A floor's raster plan (with its labels) is made once and
    /// shared by every scale; each vector zoom is a unit of its own, as the
    /// venue-wide pyramid alone would otherwise keep one worker busy.
    func plan(_ pyramids: inout [Pyramid], _ venues: [PreparedVenue], zooms: [Int]) {
        enum Unit { case raster(venue: Int, floor: Int, zoom: Int), vector(pyramid: Int, zoom: Int) }
        var units = [Unit]()
        // A floor's raster plan (shared by every scale) and each vector pyramid: one unit per zoom.
        struct FloorRef: Hashable { var venue: Int; var floor: Int }
        var firstRasterUnit = [FloorRef: Int](), firstVectorUnit = [Int: Int]()
        // Pyramids neither carried over nor planned yet (a carried pyramid found
        // damaged is planned on a second call).
        for (pi, p) in pyramids.enumerated() where !p.carried && p.plans.isEmpty {
            switch p.content {
            case .raster:
                let k = FloorRef(venue: p.venue, floor: p.floor!)
                if firstRasterUnit[k] == nil {
                    firstRasterUnit[k] = units.count
                    for z in zooms { units.append(.raster(venue: p.venue, floor: p.floor!, zoom: z)) }
                }
            case .vector:
                firstVectorUnit[pi] = units.count
                for z in zooms { units.append(.vector(pyramid: pi, zoom: z)) }
            }
        }
        let snapshot = pyramids
        // One worker per unit: units differ a lot in size, so none waits behind a big one.
        let results = Workers.map(units.count, workers: units.count, placeholder: (labels: [DrawItem](), plan: FloorZoomPlan(zoom: 0, tiles: [], items: TileItemLists()))) { _, u in
            switch units[u] {
            case .raster(let vi, let fi, let z):
                return Plan.raster(floor: venues[vi].sheet(fi), zoom: z)
            case .vector(let pi, let z):
                guard case .vector(let items, _) = snapshot[pi].content else { preconditionFailure("a vector unit of a raster pyramid") }
                let ts = config.tilesets[snapshot[pi].tileset]
                return ([], Plan.run(vector: items, zoom: z, extent: ts.extent, buffer: ts.buffer))
            }
        }
        for pi in pyramids.indices where !pyramids[pi].carried && pyramids[pi].plans.isEmpty {
            switch pyramids[pi].content {
            case .raster:
                let p = pyramids[pi]
                let floor = venues[p.venue].sheet(p.floor!)
                let first = firstRasterUnit[FloorRef(venue: p.venue, floor: p.floor!)]!
                // The floor's items, then the labels placed at each zoom.
                let r = Plan.combine(floor: floor, Array(results[first..<(first + zooms.count)]))
                pyramids[pi].itemKeys += r.items[floor.items.count...].map(InputKeys.raster)
                pyramids[pi].content = .raster(r.items)
                pyramids[pi].plans = r.plans
            case .vector:
                let first = firstVectorUnit[pi]!
                pyramids[pi].plans = results[first..<(first + zooms.count)].map(\.plan)
            }
        }
    }

    /// For each job, the index of the last build's entry for its path, or -1.
    /// A pyramid the index describes is merged with its entries in order (both
    /// are in tile order), without hashing paths; entries of other pyramids
    /// (no index: the last build read from manifest.json) go through a dictionary.
    func matchPrevious(_ jobs: MappedColumn<Job>, _ paths: TilePathTable, _ pyramids: [Pyramid], _ jobStart: [Int],
                       _ previous: BuildIndex.PreviousState?, _ records: [String: BuildIndex.PyramidRecord], _ carried: [Bool],
                       columns: ResidentColumns) -> MappedColumn<Int32> {
        let out = columns.track(MappedColumn<Int32>(repeating: -1, count: jobs.count))
        guard let previous, !previous.tiles.isEmpty else { return out }
        var merged = [Bool](repeating: false, count: pyramids.count)
        var inMergedRange = [Bool](repeating: false, count: previous.tiles.count)
        for (pi, p) in pyramids.enumerated() where !p.carried {
            guard let r = records[p.directory] else { continue }
            merged[pi] = true
            for i in r.tiles { inMergedRange[i] = true }
            var e = r.tiles.lowerBound
            for ji in jobStart[pi]..<jobStart[pi + 1] {
                let j = jobs[ji]
                let t = p.plans[Int(j.plan)].tiles[Int(j.tile)]
                while e < r.tiles.upperBound, let pt = previous.withPath(e, { tileOf(utf8: $0, in: p) }), pt < t { e += 1 }
                if e < r.tiles.upperBound, previous.withPath(e, { a in paths.withUTF8(ji) { b in a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) } }) {
                    out[ji] = Int32(e); e += 1
                }
            }
        }
        if merged.enumerated().contains(where: { !$0.element && !pyramids[$0.offset].carried }) {
            var d = [String: Int]()
            for i in previous.tiles.indices where !carried[i] && !inMergedRange[i] { d[previous.tiles[i].path] = i }
            for (pi, p) in pyramids.enumerated() where !merged[pi] && !p.carried {
                for ji in jobStart[pi]..<jobStart[pi + 1] { out[ji] = d[paths[ji]].map(Int32.init) ?? -1 }
            }
        }
        return out
    }

    /// The zoom of a carried tile path, as an index into the zooms (the index
    /// recorded it under its pyramid's directory).
    func zoomIndex(_ path: String, _ p: Pyramid) -> Int {
        tileOf(path, in: p)!.z - config.minZoom
    }

    /// The tile of a path `<directory>/<z>/<x>/<y>.<ext>`; nil when it is not one.
    func tileOf(_ path: String, after directoryLength: Int) -> TileID? {
        tileOf(utf8: path.utf8, after: directoryLength)
    }

    /// `tileOf(_:after:)` of a path's UTF-8 bytes.
    func tileOf<C: Collection<UInt8>>(utf8 path: C, after directoryLength: Int) -> TileID? {
        var parts = (0, 0, 0), k = 0, digits = 0
        for c in path.dropFirst(directoryLength + 1) {
            if c >= 48 && c <= 57 {
                let v = Int(c) - 48
                switch k { case 0: parts.0 = parts.0 * 10 + v; case 1: parts.1 = parts.1 * 10 + v; default: parts.2 = parts.2 * 10 + v }
                digits += 1
            } else if c == UInt8(ascii: "/") && k < 2 && digits > 0 {
                k += 1; digits = 0
            } else {
                break
            }
        }
        return k == 2 && digits > 0 ? TileID(z: parts.0, x: parts.1, y: parts.2) : nil
    }

    /// Everything that decides a tile's bytes besides its items (`InputKeys.header`).
    func keyHeader(_ p: Pyramid, zoom: Int) -> String {
        let ts = config.tilesets[p.tileset]
        return InputKeys.header(ts, zoom: zoom, maxZoom: config.maxZoom, venueWide: p.name == "all",
                                spriteDigest: spriteDigests[ts.scale >= 2 ? 2 : 1] ?? "")
    }

    /// `body` over every pyramid's planned tiles in runs of at most 2048 (one
    /// zoom of one pyramid each, numbered in job order), on the workers; the runs' results in job order.
    func perRun<R>(_ pyramids: [Pyramid], placeholder: R, _ body: (_ run: Int, _ pyramid: Pyramid, _ plan: FloorZoomPlan, _ tiles: Range<Int>) -> R) -> [R] {
        let chunk = 2048
        var runs = [(pyramid: Int, plan: Int, tiles: Range<Int>)]()
        for (pi, p) in pyramids.enumerated() {
            for (zi, plan) in p.plans.enumerated() {
                for s in stride(from: 0, to: plan.tiles.count, by: chunk) { runs.append((pi, zi, s..<min(s + chunk, plan.tiles.count))) }
            }
        }
        return Workers.map(runs.count, workers: options.jobs, placeholder: placeholder) { _, r in
            let p = pyramids[runs[r].pyramid]
            return body(r, p, p.plans[runs[r].plan], runs[r].tiles)
        }
    }

    /// `<directory>/<z>/<x>/<y>.<ext>` of every job, in job order, each path
    /// made from bytes (no string interpolation per tile), straight into the
    /// table's mapped columns: the paths are made twice, once to size each
    /// run and once into its place, rather than held on the heap and copied.
    func tilePaths(_ pyramids: [Pyramid], count: Int, columns: ResidentColumns) -> TilePathTable {
        func paths(_ p: Pyramid, _ plan: FloorZoomPlan, _ range: Range<Int>, _ each: (_ tile: Int, _ path: [UInt8]) -> Void) {
            var buf = [UInt8]()
            if let layout = p.layout {
                for i in range { each(i, Array(layout.path(plan.tiles[i], into: &buf).utf8)) }
                return
            }
            let prefix = Array("\(p.directory)/\(plan.zoom)/".utf8)
            let ext = Array(".\(config.tilesets[p.tileset].fileExtension)".utf8)
            func decimal(_ v: Int) {
                let start = buf.count
                var v = v
                repeat { buf.append(UInt8(ascii: "0") + UInt8(v % 10)); v /= 10 } while v > 0
                buf[start...].reverse()
            }
            for i in range {
                buf.removeAll(keepingCapacity: true)
                buf += prefix
                decimal(plan.tiles[i].x); buf.append(UInt8(ascii: "/")); decimal(plan.tiles[i].y)
                buf += ext
                each(i, buf)
            }
        }
        let sizes = perRun(pyramids, placeholder: (tiles: 0, bytes: 0)) { _, p, plan, range in
            var bytes = 0
            paths(p, plan, range) { bytes += $1.count }
            return (range.count, bytes)
        }
        let table = TilePathTable(paths: sizes.reduce(0) { $0 + $1.tiles }, bytes: sizes.reduce(0) { $0 + $1.bytes }, columns: columns)
        precondition(table.count == count, "every tile of a planned zoom is a job")
        var starts = [(tile: 0, byte: 0)]
        for s in sizes { starts.append((starts.last!.tile + s.tiles, starts.last!.byte + s.bytes)) }
        let fill = table.filler
        _ = perRun(pyramids, placeholder: ()) { r, p, plan, range in
            var (k, at) = starts[r]
            paths(p, plan, range) { _, path in
                at = fill.put(path, index: k, at: at); k += 1
            }
            // Filled pages go back to the files as it fills: the table is never resident whole.
            columns.advance(by: range.count)
        }
        columns.drop()
        return table
    }

    func dryRunReport(_ jobs: MappedColumn<Job>, _ decisions: [Decision], _ pyramids: [Pyramid], _ zooms: [Int], carried: [Int: [Int]],
                      stale: Set<String>) -> [String] {
        var render = [[Int]](repeating: [Int](repeating: 0, count: zooms.count), count: pyramids.count)
        var reuse = render
        for (pi, z) in carried { reuse[pi] = z }
        for (i, j) in jobs.enumerated() {
            if decisions[i] == .render { render[Int(j.pyramid)][Int(j.plan)] += 1 } else { reuse[Int(j.pyramid)][Int(j.plan)] += 1 }
        }
        var lines = [String]()
        for (pi, p) in pyramids.enumerated() {
            for (zi, z) in zooms.enumerated() {
                let dels = stale.filter { $0.hasPrefix(p.directory + "/") && tileOf($0, in: p)?.z == z }.count
                lines.append("\(p.directory) z\(z): render \(render[pi][zi]), reuse \(reuse[pi][zi]), delete \(dels)")
            }
        }
        let otherDeletes = stale.filter { s in !pyramids.contains { s.hasPrefix($0.directory + "/") } }
        if !otherDeletes.isEmpty { lines.append("elsewhere: delete \(otherDeletes.count) (floors or tilesets no longer built)") }
        return lines
    }

    /// The paths a build that did not finish meant to write or delete, each
    /// checked to stay inside the output folder (the build deletes them).
    func readIntent(_ store: TileStore) throws -> [String] {
        guard let d = store.read(TileStore.intentName) else { return [] }
        let lines = String(decoding: d, as: UTF8.self).split(separator: "\n").map(String.init)
        for l in lines { try OutputFolder.checkRelative(l, file: store.path(TileStore.intentName)) }
        return lines
    }
}
