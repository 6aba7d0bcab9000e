import Crypto
import Dispatch
import Foundation
import Rendering
import Styling
import TileGeometry
import VenueModel
#if canImport(Glibc)
import Glibc
#endif

public enum Generator {
    public static let name = "venuetiles"
    public static let version = "0.3.0"
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
    public init(jobs: Int = ProcessInfo.processInfo.activeProcessorCount, output: String? = nil, force: Bool = false, dryRun: Bool = false) {
        self.jobs = max(1, jobs); self.output = output; self.force = force; self.dryRun = dryRun
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

/// Runs the stages: Load → Prepare → Plan (keys, diff) → Render → Store → Manifest.
public final class Builder {
    public let config: PipelineConfig
    public let options: BuildOptions
    private let log: (String) -> Void
    /// Called after each rendered batch with (tiles done, tiles to render, seconds since start).
    private let progress: ((Int, Int, Double) -> Void)?
    /// SHA-256 of the sprite sheet per pixel ratio, for the raster key header.
    private var spriteDigests = [Int: String]()
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
        /// Venue-wide vector pyramid: where each of its items is among its
        /// floors' items (the same item, clipped the same way to the same tile).
        var sources: [(floor: Int, index: Int)] = []
    }

    struct Job { var pyramid: Int32; var plan: Int32; var tile: Int32 }

    typealias Rendered = TileWriter.Rendered

    enum Decision { case render, reuse, reuseBlank }

    public func run() throws -> BuildSummary {
        let start = Date()
        var summary = BuildSummary()
        var clock = StageClock()
        let outputDir = options.output ?? config.output
        summary.output = outputDir
        let zooms = Array(config.minZoom...config.maxZoom)

        // Nothing changed since the last complete build: stop before parsing anything.
        let fingerprint = try? BuildIndex.fingerprint(config)
        if !options.force, !options.dryRun, let fp = fingerprint, let last = BuildIndex.unchanged(TileStore(root: outputDir), fingerprint: fp) {
            log("plan: inputs and output unchanged since the last build; nothing to do")
            summary.tilesWritten = last.tiles; summary.reused = last.tiles; summary.bytes = last.bytes
            summary.blankSkipped = last.blank; summary.warnings = last.warnings
            clock.lap("unchanged check", into: &summary)
            summary.seconds = Date().timeIntervalSince(start)
            return summary
        }

        // What the last builds set aside is deleted meanwhile (see Trash).
        if !options.dryRun { Trash.emptyEarlier(root: outputDir) }
        // The last build's files are checked on a thread of their own meanwhile.
        let store = TileStore(root: outputDir)
        let pending = PreviousBuild.Pending(store: store, checkFiles: !options.force)

        // Load: everything is read and checked before the output folder is touched.
        let style = try Load.style(config.style)
        style.warnings.forEach { log("warning: \($0)") }
        summary.warnings += style.warnings.count
        let sprites = try Load.sprites(config.sprite)
        let spriteWarnings = Load.missingSpriteImages(style, sprites.one)
        spriteWarnings.forEach { log("warning: \($0)") }
        summary.warnings += spriteWarnings.count
        spriteDigests = [1: Digest32(bytes: SHA256.hash(data: sprites.one.png)).hex, 2: Digest32(bytes: SHA256.hash(data: sprites.two.png)).hex]
        var loaded = [Load.Loaded]()
        for s in config.sources {
            let l = try Load.source(s, threads: options.jobs)
            for d in l.diagnostics { log(d.description) }
            let w = l.diagnostics.filter { $0.kind == .warning }.count
            log("load: \(s.id): \(l.venue.levels.count) levels, \(l.venue.features.count) features, \(w) warnings")
            summary.warnings += w
            loaded.append(l)
        }

        clock.lap("load", into: &summary)

        // Prepare, and the pyramids with their input digests.
        let venues = loaded.map { Prepare.run(sourceID: $0.sourceID, venue: $0.venue, style: style, sprite: sprites.one) }
        var pyramids = describe(venues, zooms: zooms)
        clock.lap("prepare", into: &summary)

        // The last build's state is read first (its pyramids' digests decide
        // what to plan); its files are still being checked while planning runs.
        let previous = pending.state()
        let reusable = options.force ? nil : previous.flatMap { $0.version == Generator.version ? $0 : nil }
        let prevList = reusable?.tiles ?? []
        let intentPath = store.path(TileStore.intentName)
        let crashed = FileManager.default.contents(atPath: intentPath).map { String(decoding: $0, as: UTF8.self).split(separator: "\n").map(String.init) } ?? []

        // A pyramid whose inputs did not change is the last build's: not planned
        // again, provided every file of it is intact and no file is where it had
        // a blank tile. That is known only once the files are checked, so the
        // carry is decided on the digests first and undone for a damaged pyramid.
        var carriedEntry = [Bool](repeating: false, count: prevList.count)
        var carriedRecords = [Int: BuildIndex.PyramidRecord]()
        let lastRecords = Dictionary((reusable?.pyramids ?? []).map { ($0.directory, $0) }, uniquingKeysWith: { a, _ in a })
        if reusable != nil, crashed.isEmpty {
            for pi in pyramids.indices {
                guard let r = lastRecords[pyramids[pi].directory], r.digest == pyramids[pi].digest else { continue }
                pyramids[pi].carried = true
                carriedRecords[pi] = r
                for i in r.tiles { carriedEntry[i] = true }
            }
        }
        var jobs = [Job]()
        var jobStart = [Int](repeating: 0, count: pyramids.count + 1)
        var paths = [String]()
        var keys = [Digest16]()
        var last: PreviousBuild?
        while true {
            plan(&pyramids, venues, zooms: zooms)
            jobs = []
            for (pi, p) in pyramids.enumerated() {
                jobStart[pi] = jobs.count
                for (zi, plan) in p.plans.enumerated() {
                    for t in plan.tiles.indices { jobs.append(Job(pyramid: Int32(pi), plan: Int32(zi), tile: Int32(t))) }
                }
            }
            jobStart[pyramids.count] = jobs.count
            paths = tilePaths(pyramids, count: jobs.count)
            clock.lap("plan", into: &summary)

            // Input keys, and the diff against the last build.
            keys = inputKeys(jobs, pyramids)
            clock.lap("keys", into: &summary)
            if last == nil {
                last = pending.result()
                clock.lap("previous build", into: &summary)
            }
            let intact = last?.intact ?? []
            let damaged = carriedRecords.filter { _, r in
                !r.tiles.allSatisfy({ intact[$0] }) || !reusable!.blank[r.blanks].allSatisfy({ store.fileStatus($0.path) == nil })
            }
            if damaged.isEmpty { break }
            for (pi, r) in damaged {
                pyramids[pi].carried = false
                carriedRecords[pi] = nil
                for i in r.tiles { carriedEntry[i] = false }
            }
        }
        let prevIntact = last?.intact ?? []
        let previousEntry = matchPrevious(jobs, paths, pyramids, jobStart, reusable, lastRecords, carriedEntry)
        let carriedBlank = Set(carriedRecords.values.flatMap { r in r.blanks.map { reusable!.blank[$0].path } })
        let prevBlank = Dictionary((reusable?.blank ?? []).filter { !carriedBlank.contains($0.path) }.map { ($0.path, $0.key) },
                                   uniquingKeysWith: { a, _ in a })
        // What each job finds of the previous build (the file checks were made
        // with the previous build).
        struct Check { var decision = Decision.render; var intact = false; var previous: Int32 = -1 }
        let checks = Workers.map(jobs.count, workers: options.jobs, placeholder: Check()) { _, i in
            var c = Check()
            let path = paths[i]
            if previousEntry[i] >= 0 {
                let pi = Int(previousEntry[i])
                let e = prevList[pi]
                c.previous = Int32(pi)
                c.intact = prevIntact[pi]
                if e.key == keys[i] && c.intact { c.decision = .reuse }
            } else if prevBlank[path] == keys[i], store.fileStatus(path) == nil {
                c.decision = .reuseBlank
            }
            return c
        }
        let decisions = checks.map(\.decision)
        let fileIntact = checks.map(\.intact)
        let touchedSinceManifest = last?.touched ?? false
        // Paths are unique, so each previous entry is matched by one job at most.
        var matched = carriedEntry
        for c in checks where c.previous >= 0 { matched[Int(c.previous)] = true }
        let toRender = jobs.indices.filter { decisions[$0] == .render }
        clock.lap("diff", into: &summary)
        // Tiles, and tiles with blank ones, per pyramid and zoom of the pyramids carried over.
        var carriedTilesPerZoom = [Int: [Int]](), carriedPerZoom = [Int: [Int]]()
        for (pi, r) in carriedRecords {
            var z = [Int](repeating: 0, count: zooms.count)
            let dirLength = pyramids[pi].directory.utf8.count
            for i in r.tiles { z[zoomIndex(prevList[i].path, dirLength)] += 1 }
            carriedTilesPerZoom[pi] = z
            for i in r.blanks { z[zoomIndex(reusable!.blank[i].path, dirLength)] += 1 }
            carriedPerZoom[pi] = z
        }
        let carriedCount = carriedPerZoom.values.reduce(0) { $0 + $1.reduce(0, +) }
        summary.reused = jobs.count + carriedCount - toRender.count
        log("plan: \(jobs.count + carriedCount) tiles in \(pyramids.count) pyramids, zooms \(config.minZoom)–\(config.maxZoom): \(toRender.count) to render, \(summary.reused) unchanged"
            + (carriedRecords.isEmpty ? "" : " (\(carriedRecords.count) pyramids with unchanged inputs not planned again)"))

        // Files no longer produced: previous tiles no job matched, previous other files
        // (TileJSON, meshes; rewritten or removed below) and what a killed build may have left.
        let tileJSONPaths = Set(pyramids.map { $0.directory + "/tilejson.json" })
        var stale = Set<String>()
        var plannedPaths: Set<String>?   // built only when a path must be looked up
        func planned(_ p: String) -> Bool {
            if plannedPaths == nil { plannedPaths = Set(paths) }
            return plannedPaths!.contains(p)
        }
        if reusable != nil {
            for (pi, e) in prevList.enumerated() where !matched[pi] { stale.insert(e.path) }
        } else {
            for e in previous?.tiles ?? [] where !planned(e.path) { stale.insert(e.path) }
        }
        for e in previous?.files ?? [] where !tileJSONPaths.contains(e.path) { stale.insert(e.path) }
        for p in crashed where !planned(p) && !tileJSONPaths.contains(p) { stale.insert(p) }

        if options.dryRun {
            summary.report = dryRunReport(jobs, decisions, pyramids, zooms, carried: carriedPerZoom, stale: stale)
            summary.rendered = toRender.count
            summary.deleted = stale.count
            summary.seconds = Date().timeIntervalSince(start)
            return summary
        }

        // From here on the output folder changes: one build at a time, and a note of
        // what this build may write so that a killed build is finished by the next one.
        try store.lock()
        defer { store.unlock() }
        // A small incremental build sets the files it replaces or removes aside,
        // for the next build to delete off the critical path (see Trash). A large
        // one frees them as it goes: its trash would outlast several builds.
        if reusable != nil && toRender.count + stale.count <= Trash.maxFiles { store.trash = try Trash(root: outputDir) }
        if !crashed.isEmpty {
            log("notice: the previous build into \(outputDir) did not finish; cleaning up after it")
            for p in crashed { store.removeTemporary(p) }
        }
        let nothingToDo = toRender.isEmpty && crashed.isEmpty && !stale.contains { store.fileStatus($0) != nil }
        if !nothingToDo {
            // Only what this build may write: the tiles it renders, TileJSON and meshes.
            var intent = toRender.map { paths[$0] } + Array(tileJSONPaths).sorted() + crashed
            if config.mesh != nil {
                for v in venues { intent += v.floors.map { "\(v.sourceID)/\($0.id)/mesh.glb" } + ["\(v.sourceID)/venue.glb"] }
            }
            try store.write(TileStore.intentName, Data(intent.joined(separator: "\n").utf8))
        }

        // Render and store.
        let workers = options.jobs
        var renderers = [[Int: TileRenderer]](repeating: [:], count: workers)
        let encodings = EncodedImageCache()
        for w in 0..<workers {
            for ts in config.tilesets where ts.format == .png && renderers[w][ts.scale] == nil {
                renderers[w][ts.scale] = try TileRenderer(scale: ts.scale, sprite: ts.scale >= 2 ? sprites.two : sprites.one, encodings: encodings)
            }
        }
        // Each worker's own scratch space for vector tiles.
        let vectorSpaces = (0..<workers).map { _ in MVTEncoder.Workspace() }
        var entries = [Manifest.TileEntry](repeating: .none, count: jobs.count)
        var blanks = [Manifest.BlankEntry?](repeating: nil, count: jobs.count)
        for i in jobs.indices {
            switch decisions[i] {
            case .reuse: entries[i] = prevList[Int(checks[i].previous)]
            case .reuseBlank: blanks[i] = Manifest.BlankEntry(path: paths[i], key: keys[i])
            case .render: break
            }
        }
        let writer = TileWriter(store: store, paths: paths, keys: keys, previous: { checks[$0].previous >= 0 ? prevList[Int(checks[$0].previous)] : nil }, intact: fileIntact,
                                entries: entries, blanks: blanks, writers: workers)
        // The writer owns these lists now: dropping ours avoids a copy-on-write of
        // millions of entries at its first write.
        entries = []
        blanks = []
        // Render units: a raster tile at z ≥ 19 is drawn together with the other
        // tiles of its metatile that this build renders; other tiles alone.
        // Flat, so that a million one-tile units cost no million small arrays.
        var units = RenderUnits()
        var groups = [MetatileKey: [Int32]](), order = [MetatileKey]()
        var current: (Int32, Int32)? = nil
        func flushGroups() {
            for k in order { units.append(groups[k]!, span: k.span) }
            groups.removeAll(keepingCapacity: true); order.removeAll(keepingCapacity: true)
        }
        let vectorGroups = vectorTileGroups(jobs, decisions, pyramids, jobStart)
        for ji in toRender where !vectorGroups.grouped[ji] {
            let j = jobs[ji]
            if current.map({ $0 != (j.pyramid, j.plan) }) ?? true { flushGroups(); current = (j.pyramid, j.plan) }
            let p = pyramids[Int(j.pyramid)]
            let t = p.plans[Int(j.plan)].tiles[Int(j.tile)]
            let span = config.tilesets[p.tileset].metatileSpan(zoom: t.z)
            guard span > 1 else { units.append(CollectionOfOne(Int32(ji)), span: 1); continue }
            let key = MetatileKey(pyramid: j.pyramid, plan: j.plan, x: t.x / span, y: t.y / span, span: span)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(Int32(ji))
        }
        flushGroups()
        for g in vectorGroups.groups { units.append(g, span: RenderUnits.vectorGroup) }
        // Batches of whole units, about 1,024 tiles each, go to the writer in
        // plan order while the workers render on.
        let batchSize = 1024
        var batchEnds = [Int]()
        var inBatch = 0
        for u in 0..<units.count {
            if inBatch > 0 && inBatch + units.size(u) > batchSize { batchEnds.append(u); inBatch = 0 }
            inBatch += units.size(u)
        }
        if units.count > 0 { batchEnds.append(units.count) }
        var lastReport = Date()
        var done = 0
        try Workers.stream(units.count, workers: workers, ends: batchEnds, placeholder: []) { w, u in
            self.render(units.jobs(u), span: units.span(u), jobs, pyramids, venues, renderers[w], vectorSpaces[w])
        } deliver: { range, results in
            var batch = [(job: Int, result: Result<TileWriter.Rendered?, Error>)]()
            for (u, r) in zip(range, results) {
                for (ji, result) in zip(units.jobs(u), r) { batch.append((Int(ji), result)) }
            }
            // One writer, writing this batch while the workers render the next ones.
            try writer.submit(batch)
            done += batch.count
            summary.rendered += batch.count
            if let progress {
                progress(done, toRender.count, Date().timeIntervalSince(start))
            } else if Date().timeIntervalSince(lastReport) > 2 || done == toRender.count {
                let el = Date().timeIntervalSince(start)
                log("render: \(done)/\(toRender.count) tiles (\(done * 100 / max(toRender.count, 1))%), \(Int(Double(done) / max(el, 0.001))) tiles/s")
                lastReport = Date()
            }
        }
        try writer.finish()
        clock.lap("render+encode", into: &summary)
        summary.timings.append(("write (overlapped)", writer.busySeconds, writer.cpuSeconds, StageClock.peakMiB()))
        let draw = renderers.reduce(0.0) { $0 + $1.values.reduce(0.0) { $0 + $1.drawSeconds } }
        let encode = renderers.reduce(0.0) { $0 + $1.values.reduce(0.0) { $0 + $1.encodeSeconds } }
        if draw > 0 {
            summary.timings.append(("  png draw", 0, draw, 0))
            summary.timings.append(("  png encode", 0, encode, 0))
        }
        (entries, blanks) = writer.takeResults()
        var changedFiles = writer.changedFiles
        summary.invalidPolygonsDropped = writer.invalidDropped
        if summary.invalidPolygonsDropped > 0 {
            log("warning: \(summary.invalidPolygonsDropped) polygon pieces were left out of vector tiles: quantisation to the tile grid made them invalid")
            summary.warnings += 1
        }

        // Per-pyramid counts.
        var counts = [Int](repeating: 0, count: pyramids.count)
        var bytes = counts, blankCounts = counts
        var perZoom = [[Int]](repeating: [Int](repeating: 0, count: zooms.count), count: pyramids.count)
        for (i, j) in jobs.enumerated() {
            let pi = Int(j.pyramid)
            let e = entries[i]
            if !e.isNone { counts[pi] += 1; bytes[pi] += e.bytes; perZoom[pi][Int(j.plan)] += 1 }
            else { blankCounts[pi] += 1 }
        }
        for (pi, r) in carriedRecords {
            counts[pi] = r.tiles.count
            bytes[pi] = prevList[r.tiles].reduce(0) { $0 + $1.bytes }
            blankCounts[pi] = r.blanks.count
            perZoom[pi] = carriedTilesPerZoom[pi]!
        }

        // TileJSON next to every pyramid that has tiles.
        var files = [Manifest.TileEntry]()
        var tilejsonPaths = [Int: [String]]()
        for (pi, p) in pyramids.enumerated() where counts[pi] > 0 {
            let data = try tileJSON(p, venues[p.venue]).encoded()
            let rel = "\(p.directory)/tilejson.json"
            if try store.writeIfChanged(rel, data) { changedFiles += 1 }
            files.append(Manifest.TileEntry(path: rel, sha256: Digest32(bytes: SHA256.hash(data: data)), bytes: data.count))
            tilejsonPaths[p.venue * 1000 + p.tileset, default: []].append(rel)
        }
        if config.baseURL == nil { log("notice: no base_url in \(config.file): TileJSON tile URLs are relative to the output folder") }

        // glTF meshes: one per floor, and the floors stacked in one per venue.
        var meshEntries = [Int: Manifest.MeshEntry]()
        if let mesh = config.mesh {
            for (vi, v) in venues.enumerated() {
                let origin = v.venue.displayPoint ?? v.bounds.center
                let frame = LocalFrame(origin: origin)
                let extras: [String: Any] = ["origin": ["lon": origin.lon, "lat": origin.lat, "height": 0.0],
                                             "frame": "ENU metres around origin: +X east, +Y up, +Z south",
                                             "venue": v.sourceID]
                var floorFiles = [String: String]()
                var stacked = [MeshNode]()
                for f in v.floors {
                    var problems = [String]()
                    let node = MeshBuild.floorNode(f, venue: v.venue, frame: frame, style: style, options: mesh, problems: &problems)
                    for p in problems { log("warning: \(v.sourceID) mesh: \(p)") }
                    summary.warnings += problems.count
                    let data = try GLBWriter.encode(nodes: [node], generator: "\(Generator.name) \(Generator.version)",
                                                    extras: extras.merging(["floor": f.id, "ordinal": f.floor.ordinal]) { a, _ in a })
                    let rel = "\(v.sourceID)/\(f.id)/mesh.glb"
                    if try store.writeIfChanged(rel, data) { changedFiles += 1 }
                    files.append(Manifest.TileEntry(path: rel, sha256: Digest32(bytes: SHA256.hash(data: data)), bytes: data.count))
                    floorFiles[f.id] = rel
                    var lifted = node
                    lifted.translation = (0, Double(f.floor.ordinal) * mesh.floorHeight, 0)
                    stacked.append(lifted)
                }
                let data = try GLBWriter.encode(nodes: stacked, generator: "\(Generator.name) \(Generator.version)",
                                                extras: extras.merging(["floor_height": mesh.floorHeight]) { a, _ in a })
                let rel = "\(v.sourceID)/venue.glb"
                if try store.writeIfChanged(rel, data) { changedFiles += 1 }
                files.append(Manifest.TileEntry(path: rel, sha256: Digest32(bytes: SHA256.hash(data: data)), bytes: data.count))
                meshEntries[vi] = Manifest.MeshEntry(origin: [origin.lon, origin.lat, 0], floor_height: mesh.floorHeight,
                                                     venue: rel, floors: floorFiles)
            }
        }

        // Files the previous build wrote that this one does not produce (blank tiles
        // that used to have a file were removed as they were found).
        let written = Set(files.map(\.path))
        let previousTileJSON = (previous?.files ?? []).map(\.path).filter { !written.contains($0) }
        for path in (Array(stale) + previousTileJSON).sorted() where store.fileStatus(path) != nil {
            store.remove(path)
            summary.deleted += 1
        }

        clock.lap("tilejson+delete", into: &summary)

        // Manifest, last. Its lists are in pyramid order: a carried pyramid's entries
        // come from the last build, in the order that build wrote them, which is
        // the order a clean build writes. Where each pyramid's entries are goes
        // into the index.
        var records = [BuildIndex.PyramidRecord]()
        var t = 0, b = 0
        for (pi, p) in pyramids.enumerated() {
            records.append(.init(directory: p.directory, digest: p.digest, tiles: t..<(t + counts[pi]), blanks: b..<(b + blankCounts[pi])))
            t += counts[pi]; b += blankCounts[pi]
        }
        var tileList = [Manifest.TileEntry](), blankList = [Manifest.BlankEntry]()
        if carriedRecords.isEmpty {
            // In place: the list moves into the manifest without a second copy.
            entries.removeAll { $0.isNone }
            swap(&tileList, &entries)
            blankList = blanks.compactMap { $0 }
        } else {
            tileList.reserveCapacity(t); blankList.reserveCapacity(b)
            for pi in pyramids.indices {
                if let r = carriedRecords[pi] {
                    tileList += prevList[r.tiles]; blankList += reusable!.blank[r.blanks]
                    continue
                }
                for i in jobStart[pi]..<jobStart[pi + 1] {
                    if !entries[i].isNone { tileList.append(entries[i]) } else if let e = blanks[i] { blankList.append(e) }
                }
            }
            entries = []
        }
        let manifest = Manifest(generator: .init(name: Generator.name, version: Generator.version),
                                venues: venueEntries(venues, loaded, pyramids, zooms, counts, bytes, blankCounts, perZoom, tilejsonPaths, meshEntries),
                                tiles: tileList, files: files, blank_tiles: blankList)
        tileList = []
        summary.tilesWritten = counts.reduce(0, +)
        summary.bytes = bytes.reduce(0, +)
        summary.blankSkipped = blankCounts.reduce(0, +)
        // The index is rewritten when anything was written (its mtime must stay the
        // newest) or when it describes other inputs; a no-op full check leaves it
        // alone. Its entries are written beside the manifest, on a thread of their
        // own; it is finished (and renamed into place) after the manifest.
        let pyramidRecords = records
        // The last manifest, mapped, when it is the one the index described: a
        // carried pyramid's lines are copied from it instead of formatted again.
        var oldManifest: MappedFile?
        if !carriedRecords.isEmpty, let id = reusable?.manifestIdentity, let m = MappedFile(path: store.path(Manifest.fileName)),
           m.size == id.size, m.mtime.tv_sec == id.mtime.tv_sec, m.mtime.tv_nsec == id.mtime.tv_nsec {
            oldManifest = m
        }
        let segments = pyramids.indices.map { pi -> Manifest.TileSegment in
            var text: UnsafeRawBufferPointer?
            if let r = carriedRecords[pi], let m = oldManifest, !r.manifestText.isEmpty, r.manifestText.upperBound <= m.size,
               m.bytes[r.manifestText.lowerBound] == UInt8(ascii: "{"), m.bytes[r.manifestText.upperBound - 1] == UInt8(ascii: "}") {
                text = UnsafeRawBufferPointer(rebasing: m.bytes[r.manifestText])
            }
            return Manifest.TileSegment(tiles: records[pi].tiles, text: text)
        }
        let carriedForIndex = pyramids.indices.map { carriedRecords[$0]?.tiles }
        let indexResult = IndexResult()
        // No file changed: the manifest may still (input keys, venue entries). It
        // is made in a temporary file and compared with the one in place, which
        // stays, mtime and all, when equal: parsing the old one to compare took
        // longer than the rest of such a build.
        var manifestWritten = changedFiles > 0 || summary.deleted > 0 || !crashed.isEmpty
        let manifestDecided = !manifestWritten
        if manifestDecided {
            manifestWritten = try withExtendedLifetime(oldManifest) {
                try store.writeStreamIfChanged(Manifest.fileName) { indexResult.text = try manifest.write(workers: options.jobs, segments: segments, written: { oldManifest?.release($0) }, $0) }
            }
        }
        let indexGroup = DispatchGroup()
        let manifestDone = DispatchSemaphore(value: 0)
        let writesIndex = fingerprint.map { fp in
            changedFiles > 0 || summary.deleted > 0 || manifestWritten || touchedSinceManifest || BuildIndex.recordedFingerprint(store) != fp
        } ?? false
        if writesIndex, let fp = fingerprint {
            let c = BuildIndex.Counts(tiles: summary.tilesWritten, bytes: summary.bytes, blank: summary.blankSkipped, warnings: summary.warnings)
            DispatchQueue.global().async(group: indexGroup) {
                do {
                    try BuildIndex.write(store, fingerprint: fp, counts: c, manifest: manifest, pyramids: pyramidRecords,
                                         copied: { pi in carriedForIndex[pi].flatMap { reusable?.tileEntryBytes($0) } }) {
                        manifestDone.wait()
                        guard indexResult.manifestOK, let st = store.fileStatus(Manifest.fileName) else { return nil }
                        return (st.size, st.mtime, indexResult.text)
                    }
                } catch {
                    indexResult.error = error
                }
            }
        }
        do {
            try withExtendedLifetime(oldManifest) {
                // Else written (or found equal) above.
                if !manifestDecided {
                    try store.writeStream(Manifest.fileName) { indexResult.text = try manifest.write(workers: options.jobs, segments: segments, written: { oldManifest?.release($0) }, $0) }
                }
            }
            indexResult.manifestOK = true
        } catch {
            manifestDone.signal()
            indexGroup.wait()
            throw error
        }
        manifestDone.signal()
        indexGroup.wait()
        if let e = indexResult.error { throw e }
        if !nothingToDo { store.remove(TileStore.intentName) }
        clock.lap("manifest", into: &summary)
        summary.seconds = Date().timeIntervalSince(start)
        keptUntilRelease = [pyramids, jobs, paths, keys, checks, decisions, fileIntact, previousEntry, matched, carriedEntry,
                            previous as Any, last as Any, manifest, venues, loaded, stale, records]
        return summary
    }

    // MARK: - stages

    /// Every pyramid the build makes, in output order, with its content and
    /// input digest; not planned yet.
    func describe(_ venues: [PreparedVenue], zooms: [Int]) -> [Pyramid] {
        let wantsRaster = config.tilesets.contains { $0.format == .png }
        let wantsVector = config.tilesets.contains { $0.format == .mvt }
        let vectors = wantsVector ? venues.map { PrepareVector.run($0, workers: options.jobs) } : []
        var pyramids = [Pyramid]()
        for (vi, v) in venues.enumerated() {
            for (ti, ts) in config.tilesets.enumerated() {
                switch ts.format {
                case .png:
                    for (fi, f) in v.floors.enumerated() {
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
        // Item hashes once per floor: a floor's raster items serve every scale, its
        // vector items its own pyramid and the venue-wide one (which has the same items).
        func perFloor(_ floorCounts: [Int], _ hash: (Int, Int) -> [InputKeys.ItemHash]) -> [[[InputKeys.ItemHash]]] {
            let refs = floorCounts.indices.flatMap { vi in (0..<floorCounts[vi]).map { (vi, $0) } }
            let flat = Workers.map(refs.count, workers: options.jobs, placeholder: [InputKeys.ItemHash]()) { _, i in hash(refs[i].0, refs[i].1) }
            var out = floorCounts.map { _ in [[InputKeys.ItemHash]]() }
            for (i, r) in refs.enumerated() { out[r.0].append(flat[i]) }
            return out
        }
        let rasterKeys = perFloor(wantsRaster ? venues.map(\.floors.count) : []) { venues[$0].floors[$1].items.map(InputKeys.raster) }
        let vectorKeys = perFloor(vectors.map(\.floors.count)) { vectors[$0].floors[$1].map(InputKeys.vector) }
        let allKeys = vectors.indices.map { vi in vectors[vi].allSource.map { vectorKeys[vi][$0.floor][$0.index] } }
        let digested = Workers.map(pyramids.count, workers: options.jobs, placeholder: (Digest16(high: 0, low: 0), [InputKeys.ItemHash]())) { _, pi in
            let p = pyramids[pi]
            let headers = zooms.map { keyHeader(p, zoom: $0) }
            switch p.content {
            case .raster:
                let keys = rasterKeys[p.venue][p.floor!]
                return (InputKeys.pyramid(directory: p.directory, headers: headers, zooms: zooms, items: keys, floor: venues[p.venue].floors[p.floor!]), keys)
            case .vector:
                let keys = p.floor.map { vectorKeys[p.venue][$0] } ?? allKeys[p.venue]
                return (InputKeys.pyramid(directory: p.directory, headers: headers, zooms: zooms, items: keys, floor: nil), keys)
            }
        }
        for pi in pyramids.indices { pyramids[pi].digest = digested[pi].0; pyramids[pi].itemKeys = digested[pi].1 }
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
        let results = Workers.map(units.count, workers: units.count, placeholder: (labels: [DrawItem](), plan: FloorZoomPlan(zoom: 0, tiles: [], items: []))) { _, u in
            switch units[u] {
            case .raster(let vi, let fi, let z):
                return Plan.raster(floor: venues[vi].floors[fi], zoom: z)
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
                let floor = venues[p.venue].floors[p.floor!]
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
    func matchPrevious(_ jobs: [Job], _ paths: [String], _ pyramids: [Pyramid], _ jobStart: [Int],
                       _ previous: BuildIndex.PreviousState?, _ records: [String: BuildIndex.PyramidRecord], _ carried: [Bool]) -> [Int32] {
        var out = [Int32](repeating: -1, count: jobs.count)
        guard let previous, !previous.tiles.isEmpty else { return out }
        var merged = [Bool](repeating: false, count: pyramids.count)
        var inMergedRange = [Bool](repeating: false, count: previous.tiles.count)
        for (pi, p) in pyramids.enumerated() where !p.carried {
            guard let r = records[p.directory] else { continue }
            merged[pi] = true
            for i in r.tiles { inMergedRange[i] = true }
            let dirLength = p.directory.utf8.count
            var e = r.tiles.lowerBound
            for ji in jobStart[pi]..<jobStart[pi + 1] {
                let j = jobs[ji]
                let t = p.plans[Int(j.plan)].tiles[Int(j.tile)]
                while e < r.tiles.upperBound, let pt = tileOf(previous.tiles[e].path, after: dirLength), pt < t { e += 1 }
                if e < r.tiles.upperBound, previous.tiles[e].path == paths[ji] { out[ji] = Int32(e); e += 1 }
            }
        }
        if merged.enumerated().contains(where: { !$0.element && !pyramids[$0.offset].carried }) {
            var d = [String: Int]()
            for (i, e) in previous.tiles.enumerated() where !carried[i] && !inMergedRange[i] { d[e.path] = i }
            for (pi, p) in pyramids.enumerated() where !merged[pi] && !p.carried {
                for ji in jobStart[pi]..<jobStart[pi + 1] { out[ji] = d[paths[ji]].map(Int32.init) ?? -1 }
            }
        }
        return out
    }

    /// The zoom of a carried tile path, as an index into the zooms (the index
    /// recorded it under its pyramid's directory).
    func zoomIndex(_ path: String, _ directoryLength: Int) -> Int {
        tileOf(path, after: directoryLength)!.z - config.minZoom
    }

    /// The tile of a path `<directory>/<z>/<x>/<y>.<ext>`; nil when it is not one.
    func tileOf(_ path: String, after directoryLength: Int) -> TileID? {
        var parts = (0, 0, 0), k = 0, digits = 0
        for c in path.utf8.dropFirst(directoryLength + 1) {
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

    /// Everything that decides a tile's bytes besides its items, as text.
    func keyHeader(_ p: Pyramid, zoom: Int) -> String {
        let ts = config.tilesets[p.tileset]
        switch ts.format {
        case .png:
            // The sprite's pixels are part of every raster tile that draws an icon or a pattern.
            // Drawn in metatiles or alone: the same pixels by design, but the key says which.
            return "\(Generator.name) \(Generator.version) png scale=\(ts.scale) metatile=\(ts.metatileSpan(zoom: zoom)) sprite=\(spriteDigests[ts.scale >= 2 ? 2 : 1] ?? "")\(ts.quantize ? " quantize=" + ImageQuantizer.Settings.tiles.keyDescription : "")"
        case .mvt:
            let tolerance = zoom < config.maxZoom ? ts.simplify : 0
            return "\(Generator.name) \(Generator.version) mvt extent=\(ts.extent) buffer=\(ts.buffer) gzip=\(ts.gzip) simplify=\(tolerance) pyramid=\(p.name == "all" ? "venue" : "floor")"
        }
    }

    /// One value per job, in job order (pyramid, zoom, tile), made by `body` for
    /// runs of at most 2048 tiles of one pyramid and zoom on all workers: each
    /// run reads its plan once, and the largest zooms spread over the workers.
    func perJob<T>(_ pyramids: [Pyramid], count: Int, placeholder: T,
                   _ body: (_ pyramid: Pyramid, _ plan: FloorZoomPlan, _ tiles: Range<Int>) -> [T]) -> [T] {
        let chunk = 2048
        var runs = [(pyramid: Int, plan: Int, tiles: Range<Int>)]()
        for (pi, p) in pyramids.enumerated() {
            for (zi, plan) in p.plans.enumerated() {
                for s in stride(from: 0, to: plan.tiles.count, by: chunk) { runs.append((pi, zi, s..<min(s + chunk, plan.tiles.count))) }
            }
        }
        let made = Workers.map(runs.count, workers: options.jobs, placeholder: [T]()) { _, r in
            let p = pyramids[runs[r].pyramid]
            return body(p, p.plans[runs[r].plan], runs[r].tiles)
        }
        var out = [T]()
        out.reserveCapacity(count)
        for m in made { out += m }
        precondition(out.count == count, "every tile of a planned zoom is a job")
        return out
    }

    /// `<directory>/<z>/<x>/<y>.<ext>` of every job, in job order, each path
    /// made from bytes (no string interpolation per tile).
    func tilePaths(_ pyramids: [Pyramid], count: Int) -> [String] {
        perJob(pyramids, count: count, placeholder: "") { p, plan, range in
            let prefix = Array("\(p.directory)/\(plan.zoom)/".utf8)
            let ext = Array(".\(config.tilesets[p.tileset].fileExtension)".utf8)
            var buf = [UInt8]()
            func decimal(_ v: Int) {
                let start = buf.count
                var v = v
                repeat { buf.append(UInt8(48 + v % 10)); v /= 10 } while v > 0
                buf[start...].reverse()
            }
            return range.map { i in
                buf.removeAll(keepingCapacity: true)
                buf += prefix
                decimal(plan.tiles[i].x); buf.append(UInt8(ascii: "/")); decimal(plan.tiles[i].y)
                buf += ext
                return String(decoding: buf, as: UTF8.self)
            }
        }
    }

    /// The input key of every job, in job order.
    func inputKeys(_ jobs: [Job], _ pyramids: [Pyramid]) -> [Digest16] {
        perJob(pyramids, count: jobs.count, placeholder: Digest16(high: 0, low: 0)) { p, plan, range in
            let header = InputKeys.headerBytes(keyHeader(p, zoom: plan.zoom))
            return range.map { InputKeys.tile(header: header, tile: plan.tiles[$0], items: p.itemKeys, indices: plan.items[$0]) }
        }
    }

    func dryRunReport(_ jobs: [Job], _ decisions: [Decision], _ pyramids: [Pyramid], _ zooms: [Int], carried: [Int: [Int]],
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
                let dels = stale.filter { $0.hasPrefix("\(p.directory)/\(z)/") }.count
                lines.append("\(p.directory) z\(z): render \(render[pi][zi]), reuse \(reuse[pi][zi]), delete \(dels)")
            }
        }
        let otherDeletes = stale.filter { s in !pyramids.contains { s.hasPrefix($0.directory + "/") } }
        if !otherDeletes.isEmpty { lines.append("elsewhere: delete \(otherDeletes.count) (floors or tilesets no longer built)") }
        return lines
    }

    func tileJSON(_ p: Pyramid, _ v: PreparedVenue) -> TileJSON {
        let ts = config.tilesets[p.tileset]
        let b = v.bounds
        let c = v.venue.displayPoint ?? b.center
        let floorName: String = p.name == "all" ? "all floors" :
            (v.floors.first { $0.id == p.name }.flatMap { $0.floor.shortName(language: v.venue.language) } ?? p.name)
        var layers: [TileJSON.VectorLayer]? = nil
        if case .vector(let items, let table) = p.content {
            layers = TileJSONLayers.describe(items, table: table, venueWide: p.name == "all", minzoom: config.minZoom, maxzoom: config.maxZoom)
        }
        return TileJSON(name: "\(v.venue.name.text(preferring: v.venue.language) ?? v.sourceID) — \(floorName)",
                        description: "\(Generator.name) \(ts.format.rawValue) tiles of \(v.sourceID), \(p.name)",
                        tiles: [TileJSON.url(base: config.baseURL, path: "\(p.directory)/{z}/{x}/{y}.\(ts.fileExtension)")],
                        minzoom: config.minZoom, maxzoom: config.maxZoom, bounds: [b.west, b.south, b.east, b.north],
                        center: [c.lon, c.lat, Double(config.minZoom)], vector_layers: layers,
                        format: ts.fileExtension, tile_size: ts.format == .png ? ts.tileSize : nil)
    }

    func venueEntries(_ venues: [PreparedVenue], _ loaded: [Load.Loaded], _ pyramids: [Pyramid], _ zooms: [Int],
                      _ counts: [Int], _ bytes: [Int], _ blanks: [Int], _ perZoom: [[Int]],
                      _ tilejsonPaths: [Int: [String]], _ meshes: [Int: Manifest.MeshEntry]) -> [Manifest.VenueEntry] {
        var out = [Manifest.VenueEntry]()
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
            out.append(Manifest.VenueEntry(id: v.venue.id, source_id: v.sourceID, name: v.venue.name.text(preferring: lang),
                                           center: [center.lon, center.lat], bounds: [b.west, b.south, b.east, b.north],
                                           floors: floors, tilesets: tilesets, warnings: warnings, mesh: meshes[vi]))
        }
        return out
    }
}

/// What the index thread and the build share: set before the semaphore or the
/// group that the other side waits on.
private final class IndexResult: @unchecked Sendable {
    var manifestOK = false
    /// Where each pyramid's tile lines are in the manifest.
    var text = [Range<Int>]()
    var error: Error?
}
