import Crypto
import Foundation
import Clients
import Rendering
import Styling
import Threads
import TileGeometry
import VectorTiles
import VenueModel

/// What Load, Prepare and Plan leave of every venue for the whole-build
/// stages: its metadata (floors, levels, bounds; no features, drawing or
/// vector items), its pyramids planned and keyed (tiles and keys, no item
/// lists), its web clients' files and meshes (made now, written at the commit;
/// their bytes wait in `spill`, a temporary file, not in memory).
struct BuildInputs {
    var style: Style
    var sprites: (one: Sprite, two: Sprite)
    /// Each source's diagnostics and bundle (its venue's features dropped).
    var loaded: [Load.Loaded] = []
    /// Of the bytes parsed (see `InputFingerprint`); nil when an input could not be read again.
    var fingerprint: [UInt8]?
    var venues: [PreparedVenue] = []
    var pyramids: [Builder.Pyramid] = []
    /// Each venue's pyramids in `pyramids`.
    var venuePyramids: [Range<Int>] = []
    var clients: (files: [SpilledFile], warnings: [String]) = ([], [])
    var meshes: [VenueMeshes] = []
    let spill = FileSpill()
    /// The last venue as planned, whole, for rendering without reading it again.
    var kept = KeptVenue()
}

/// The last venue planned, whole (features, items, item lists), kept from
/// planning to rendering: read again, a one-venue build loaded, prepared and
/// planned twice (0.2–0.6 s of the medium venue's vector build). Taken (and
/// dropped) when rendering starts a venue, or before a venue is read again
/// to plan a damaged pyramid, so no two venues are alive at once.
final class KeptVenue {
    /// `inputs`: the source's file names and the digests of the bytes parsed
    /// (nil: a file its reader did not read).
    private var kept: (index: Int, venue: PreparedVenue, pyramids: [Builder.Pyramid], inputs: [(name: String, digest: Digest32?)])?

    func keep(_ vi: Int, _ venue: PreparedVenue, _ pyramids: [Builder.Pyramid], inputs: [(name: String, digest: Digest32?)]) {
        kept = (vi, venue, pyramids, inputs)
    }

    func drop() { kept = nil }

    /// Venue `vi` as `venueAgain` would give it for rendering `planned` (its
    /// pyramids in the build's plan; a shard's plan holds some of each
    /// pyramid's tiles, and the kept plans are cut to those, as a venue read
    /// again is): nil when another venue is kept, when the plan changed since
    /// (a damaged pyramid planned after all), or when `source` has other files
    /// or bytes on disk now (read again, an edited source stops the build as
    /// before). Empties the box either way.
    func take(_ vi: Int, planned: ArraySlice<Builder.Pyramid>, source: PipelineConfig.Source) -> (venue: PreparedVenue, pyramids: [Builder.Pyramid])? {
        defer { kept = nil }
        guard let k = kept, k.index == vi, k.pyramids.count == planned.count else { return nil }
        var pyramids = k.pyramids
        for (i, b) in zip(pyramids.indices, planned) {
            let a = pyramids[i]
            guard a.directory == b.directory, a.digest == b.digest, a.carried == b.carried, a.plans.count == b.plans.count else { return nil }
            for zi in a.plans.indices {
                guard a.plans[zi].zoom == b.plans[zi].zoom, let cut = a.plans[zi].restricted(to: b.plans[zi].tiles) else { return nil }
                pyramids[i].plans[zi] = cut
            }
        }
        return KeptVenue.unchanged(source, k.inputs) ? (k.venue, pyramids) : nil
    }

    private static func unchanged(_ s: PipelineConfig.Source, _ inputs: [(name: String, digest: Digest32?)]) -> Bool {
        guard let (bundle, names) = try? InputFingerprint.bundle(s), names == inputs.map(\.name) else { return false }
        return inputs.allSatisfy { f in
            guard let d = f.digest else { return true }
            return (try? bundle.read(f.name)).map { Digest32.sha256($0) == d } ?? false
        }
    }
}

/// The last build as this one plans against it (see `makePlan`).
struct LastBuild {
    var previous: BuildIndex.PreviousState?
    /// Its entries when they are of this version (matched with this build's tiles).
    var reusable: BuildIndex.PreviousState?
    /// Paths an unfinished build meant to write or delete.
    var crashed: [String]
    var records: [String: BuildIndex.PyramidRecord]
}

extension Builder {
    /// The last build's state (read on its own thread since the start; its
    /// pyramids' digests decide what to plan) and what an unfinished build left.
    func lastBuild(_ pending: PreviousBuild.Pending, store: TileStore) throws -> LastBuild {
        let previous = try pending.state()
        // Matched with this build's tiles under --force too (identical files are
        // left alone); their keys are trusted only without --force.
        let reusable = previous.flatMap { $0.version == Generator.version ? $0 : nil }
        return LastBuild(previous: previous, reusable: reusable, crashed: try readIntent(store),
                         records: Dictionary((reusable?.pyramids ?? []).map { ($0.directory, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    /// Load, Prepare and Plan, one venue at a time: each venue is read,
    /// prepared, described, planned and keyed, what the later stages need of
    /// it is kept and the rest dropped before the next venue is read.
    /// `last` is first asked for when the first venue is planned, so the last
    /// build's index is read on its thread while that venue loads. Rendering
    /// reads a venue again (`venueAgain`), except the last one, kept whole
    /// (`BuildInputs.kept`) until rendering starts a venue. Nothing in the output folder is
    /// touched here; the checks over every venue (tile budget, layouts, style
    /// ids) come at the end, before anything is written.
    func loadAndPlan(_ last: () throws -> LastBuild, zooms: [Int], _ run: inout BuildRun) throws -> BuildInputs {
        try pauseForTests("loading", cancellation)
        let (style, styleBytes) = try Load.styleAndBytes(config.style)
        style.warnings.forEach { log("warning: \($0)") }
        run.summary.warnings += style.warnings.count
        let sprites = try Load.sprites(config.sprite)
        let spriteWarnings = Load.missingSpriteImages(style, sprites.one)
        spriteWarnings.forEach { log("warning: \($0)") }
        run.summary.warnings += spriteWarnings.count
        spriteDigests = [1: Digest32.sha256(sprites.one.png).hex, 2: Digest32.sha256(sprites.two.png).hex]
        var inputs = BuildInputs(style: style, sprites: sprites)
        let fonts = writesVenueFiles ? try FontCatalog() : nil
        if let fonts { inputs.clients.warnings = fontWarnings(style, fonts) }
        let recorder = InputFingerprint.Recorder()
        let legend = FloorsIndex.legendEntries(style)
        var overBudget = false
        for (vi, s) in config.sources.enumerated() {
            try cancellation.check()
            var l = try Load.source(s, threads: options.jobs, recorder: recorder)
            for d in l.diagnostics { log(d.description) }
            let w = l.diagnostics.filter { $0.kind == .warning }.count
            log("load: \(s.id): \(l.venue.levels.count) levels, \(l.venue.features.count) features, \(w) warnings")
            run.summary.warnings += w
            run.lap("load")
            let v = prepareVenue(l, style: style, sprites: sprites)
            v.warnings.forEach { log("warning: \($0)") }
            run.summary.warnings += v.warnings.count
            var pyramids = describe([v], zooms: zooms)
            // Past max_tiles the remaining venues are only described: the error names them all.
            overBudget = overBudget || (try? checkTileBudget(inputs.pyramids + pyramids.map { $0.of(venue: vi) }, inputs.venues + [v], zooms: zooms)) == nil
            if let fonts {
                let made = try clientFiles(v, pyramids, style: style, sprites: sprites, fonts: fonts, spill: inputs.spill)
                inputs.clients.files += made.files; inputs.clients.warnings += made.warnings
            }
            if writesVenueFiles && !options.dryRun, let m = try meshFiles(v, style: style, spill: inputs.spill, &run) { inputs.meshes.append(m) }
            run.lap("prepare")
            if !overBudget {
                let last = try last()
                run.lap("last build")
                carryUnchanged(&pyramids, last)
                self.plan(&pyramids, [v], zooms: zooms)
                run.lap("plan")
                try keyPlans(&pyramids, spill: inputs.spill)
                run.lap("keys")
            }
            if !overBudget && vi == config.sources.count - 1 && !options.dryRun {
                inputs.kept.keep(vi, v, pyramids.map { $0.of(venue: vi) }, inputs: l.names.map { ($0, recorder.digest(source: s.id, name: $0)) })
            }
            inputs.venuePyramids.append(inputs.pyramids.count..<(inputs.pyramids.count + pyramids.count))
            var hollow = pyramids.map { $0.of(venue: vi).hollowed(tileJSON: writesVenueFiles, minZoom: config.minZoom, maxZoom: config.maxZoom) }
            if writesVenueFiles && !options.dryRun { try spillTileJSON(&hollow, v, legend: legend, spill: inputs.spill) }
            inputs.pyramids += hollow
            inputs.venues.append(v.hollowed())
            l.venue.features = []
            inputs.loaded.append(l)
            FreedMemory.giveBack()
        }
        inputs.fingerprint = try? InputFingerprint.parsed(config, configBytes: config.parsedBytes, styleBytes: styleBytes,
                                                          sources: inputs.loaded.map { ($0.bundle!, $0.names) }, recorder: recorder)
        try checkTileLayouts(inputs.pyramids)
        try checkTileBudget(inputs.pyramids, inputs.venues, zooms: zooms)
        let unmatched = StyleIDCheck.unmatched(style, floors: Set(inputs.venues.flatMap { $0.floors.flatMap(\.floor.styleIDs) }),
                                               buildings: Set(inputs.venues.flatMap { v in v.venue.buildingIndex.flatMap { [$0.id, $0.specID] } }))
        unmatched.forEach { log("warning: \($0)") }
        run.summary.warnings += unmatched.count
        inputs.clients.warnings.forEach { log("warning: \($0)") }
        run.summary.warnings += inputs.clients.warnings.count
        run.lap("prepare")
        return inputs
    }

    /// Each pyramid's TileJSON document made now, into `spill`, and its
    /// `vectorLayers` dropped (per venue they were the largest part of what a
    /// pyramid keeps for the whole build).
    func spillTileJSON(_ pyramids: inout [Pyramid], _ v: PreparedVenue, legend: [FloorsIndex.LegendEntry], spill: FileSpill) throws {
        for k in pyramids.indices {
            pyramids[k].tileJSONFile = try spill.put(tileJSON(pyramids[k], v, legend: legend).encoded())
            pyramids[k].vectorLayers = nil
        }
    }

    /// Pyramids whose inputs the last build had (same digest) are carried,
    /// not planned (see `carryUnchanged(_:_:)` for the whole plan).
    func carryUnchanged(_ pyramids: inout [Pyramid], _ last: LastBuild) {
        // A shard's folder holds part of each pyramid: its tiles are reused one by one (by key).
        guard last.reusable != nil, last.crashed.isEmpty, !options.force, options.shard == nil else { return }
        for pi in pyramids.indices where last.records[pyramids[pi].directory]?.digest == pyramids[pi].digest {
            pyramids[pi].carried = true
        }
    }

    /// The input key of every planned tile of the pyramids not keyed yet
    /// (`Pyramid.tileKeys`), in runs of at most 2048 tiles over the workers.
    func keyPlans(_ pyramids: inout [Pyramid], spill: FileSpill) throws {
        let chunk = 2048
        var runs = [(pyramid: Int, plan: Int, tiles: Range<Int>)]()
        var keyed = [Int]()
        for (pi, p) in pyramids.enumerated() where !p.carried && p.tileKeys == nil {
            keyed.append(pi)
            for (zi, plan) in p.plans.enumerated() {
                for s in stride(from: 0, to: plan.tiles.count, by: chunk) { runs.append((pi, zi, s..<min(s + chunk, plan.tiles.count))) }
            }
        }
        let snapshot = pyramids
        let made = Workers.map(runs.count, workers: options.jobs, placeholder: [Digest16]()) { _, r in
            let p = snapshot[runs[r].pyramid], plan = p.plans[runs[r].plan]
            let header = InputKeys.headerBytes(keyHeader(p, zoom: plan.zoom))
            return runs[r].tiles.map { InputKeys.tile(header: header, tile: plan.tiles[$0], items: p.itemKeys, indices: plan.items[$0]) }
        }
        var bytes = [Int: Data]()
        for (r, keys) in zip(runs, made) { keys.withUnsafeBytes { bytes[r.pyramid, default: Data()].append(contentsOf: $0) } }
        for pi in keyed { pyramids[pi].tileKeys = try spill.put(bytes[pi] ?? Data()) }
    }

    /// Prepare for one venue: its floors and the raster pyramids asked for besides them.
    func prepareVenue(_ l: Load.Loaded, style: Style, sprites: (one: Sprite, two: Sprite)) -> PreparedVenue {
        var options = PrepareOptions()
        options.floorKinds = config.floorKinds
        let layers = config.tilesets.filter { $0.format == .png }.reduce(into: Set<PipelineConfig.Tileset.Layer>()) { $0.formUnion($1.layers) }
        options.outdoors = layers.contains(.outdoors)
        options.buildingOutlines = layers.contains(.buildingOutlines)
        options.floorShadows = layers.contains(.floorShadows)
        var v = Prepare.run(sourceID: l.sourceID, venue: l.venue, style: style, sprite: sprites.one, options: options)
        v.liveToken = LiveVenues.Token(liveVenues)
        return v
    }

    /// Venue `vi` read, prepared, described and planned again, for rendering
    /// its tiles or for planning a carried pyramid found damaged (`plan`: which
    /// of its pyramids to plan; their tiles restricted to the ones in
    /// `planned`, the build's pyramids, as a shard keeps them). Its digests must be the ones planned: an
    /// input that changed since is refused, not rendered against another plan.
    func venueAgain(_ vi: Int, _ inputs: BuildInputs, planned: [Pyramid], plan: (Int) -> Bool, zooms: [Int]) throws -> (venue: PreparedVenue, pyramids: [Pyramid]) {
        let s = config.sources[vi]
        let l = try Load.source(s, threads: options.jobs, recorder: nil)
        let v = prepareVenue(l, style: inputs.style, sprites: inputs.sprites)
        var pyramids = describe([v], zooms: zooms)
        let kept = planned[inputs.venuePyramids[vi]]
        guard pyramids.count == kept.count, zip(pyramids, kept).allSatisfy({ $0.directory == $1.directory && $0.digest == $1.digest }) else {
            throw ConfigError(file: s.path, key: nil, problem: "source \(s.id) changed while the build was running (read again to render, it gives other tiles than the plan); build again")
        }
        for k in pyramids.indices { pyramids[k].carried = !plan(k) }
        self.plan(&pyramids, [v], zooms: zooms)
        for (k, p) in kept.enumerated() where plan(k) {
            // Planned before (not a carried pyramid planned now): the tiles planned then.
            for zi in pyramids[k].plans.indices where !p.plans.isEmpty {
                guard let restricted = pyramids[k].plans[zi].restricted(to: p.plans.indices.contains(zi) ? p.plans[zi].tiles : nil) else {
                    throw ConfigError(file: s.path, key: nil, problem: "source \(s.id) planned other tiles when read again (\(p.directory) z\(pyramids[k].plans[zi].zoom)); build again")
                }
                pyramids[k].plans[zi] = restricted
            }
            pyramids[k].carried = p.carried
        }
        return (v, pyramids.map { $0.of(venue: vi) })
    }
}

extension FloorZoomPlan {
    /// This plan kept to `tiles` (a sorted subset of its own, as a shard keeps
    /// them; nil: none planned before); nil when one of them is not in it.
    func restricted(to tiles: PlannedTiles?) -> FloorZoomPlan? {
        guard let tiles else { return nil }
        if tiles == self.tiles { return self }
        var keep = [Int](), k = 0
        for t in tiles {
            while k < self.tiles.count && self.tiles[k] < t { k += 1 }
            guard k < self.tiles.count && self.tiles[k] == t else { return nil }
            keep.append(k)
        }
        return FloorZoomPlan(zoom: zoom, tiles: self.tiles.selecting(keep), items: items.selecting(keep))
    }
}

extension Builder.Pyramid {
    /// The same pyramid, of venue `vi` of the build (`describe` numbers the venues it is given from 0).
    func of(venue vi: Int) -> Builder.Pyramid {
        var p = self
        p.venue = vi
        return p
    }

    /// What the whole-build stages need once its venue is planned: tiles,
    /// keys and TileJSON facts; its items, item lists and item keys dropped.
    func hollowed(tileJSON: Bool, minZoom: Int, maxZoom: Int) -> Builder.Pyramid {
        var p = self
        switch content {
        case .raster: p.content = .raster([])
        case .vector(let items, let table):
            if tileJSON { p.vectorLayers = TileJSONLayers.describe(items, table: table, venueWide: name == "all", minzoom: minZoom, maxzoom: maxZoom) }
            p.content = .vector([], MVTPropertyTable())
        }
        p.plans = plans.map { FloorZoomPlan(zoom: $0.zoom, tiles: $0.tiles, items: TileItemLists()) }
        p.itemKeys = []
        p.sources = []
        return p
    }
}

extension PreparedVenue {
    /// Its metadata (floors, levels, buildings, bounds) without features or drawing.
    func hollowed() -> PreparedVenue {
        var v = self
        v.liveToken = nil
        v.venue.features = []
        v.floors = floors.map { $0.hollowed() }
        v.overlays = overlays.map { $0.hollowed() }
        return v
    }
}

extension PreparedFloor {
    func hollowed() -> PreparedFloor {
        var f = self
        f.items = []; f.featureIDs = []; f.labels = []; f.icons = []; f.area = []; f.obstacles = []
        return f
    }
}
