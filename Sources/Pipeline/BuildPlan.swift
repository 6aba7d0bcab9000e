import Foundation
import Threads

/// The Plan, Keys and Diff stages' result: every tile the build makes, with its
/// path, input key and what to do with it (render, or reuse the last build's
/// file or blank), the pyramids carried whole from the last build, and the
/// files the last build wrote that this one no longer produces.
struct BuildPlan {
    var zooms: [Int]
    var pyramids: [Builder.Pyramid]
    /// One per tile of the planned (not carried) pyramids, in pyramid, zoom, tile order.
    /// This and the other per-tile lists are `MappedColumn`s, let go of by `columns`.
    var jobs: MappedColumn<Builder.Job>
    /// Where each pyramid's jobs start (and, last, the job count).
    var jobStart: [Int]
    var paths: TilePathTable
    var keys: MappedColumn<Digest16>
    var checks: MappedColumn<Builder.Check>
    var toRender: MappedColumn<Int>
    /// The per-tile lists' pages, handed back to their files between stages and batches.
    let columns: ResidentColumns
    /// The last build's state as read (any version), and its entries when they
    /// are of this version (matched with this build's tiles).
    var previous: BuildIndex.PreviousState?
    var reusable: BuildIndex.PreviousState?
    var carried: [Int: BuildIndex.PyramidRecord]
    /// Per carried pyramid and zoom: its tiles, and its tiles and blank ones.
    var carriedTilesPerZoom: [Int: [Int]]
    var carriedPerZoom: [Int: [Int]]
    /// Paths an unfinished build meant to write or delete.
    var crashed: [String]
    /// Files the last build (or an unfinished one) wrote that this one does not produce.
    var stale: Set<String>
    /// Every file besides tiles this build writes (TileJSON, meshes, web clients' files, archives).
    var otherFiles: Set<String>
    /// The archives among them (pipeline.json `archive`).
    var archivePaths: Set<String> = []
    /// A file was modified after the last manifest (the index is rewritten).
    var touchedSinceManifest: Bool
    /// A shard's build: every pyramid's planned tiles in all shards.
    var plannedBeforeShard: [Int]? = nil
    /// Large values kept until the builder is released (see `Builder.keptUntilRelease`).
    var kept: [Any] = []

    var prevList: Manifest.TileEntries { reusable?.tiles ?? [] }
    var decisions: [Builder.Decision] { checks.map(\.decision) }
    var carriedCount: Int { carriedPerZoom.values.reduce(0) { $0 + $1.reduce(0, +) } }
}

extension Builder {
    /// What each job finds of the last build.
    struct Check { var decision = Decision.render; var intact = false; var previous: Int32 = -1 }

    /// Plan, Keys and Diff over the whole build: the venues' planned and keyed
    /// pyramids (`loadAndPlan`) put in job order, carried pyramids checked, and
    /// every tile decided, against the last build, rendered or reused.
    /// The pyramids move from `inputs` to the plan: their keys, cleared once
    /// in the plan's lists, must have one owner.
    func makePlan(_ inputs: inout BuildInputs, _ last: LastBuild, zooms: [Int], pending: PreviousBuild.Pending,
                  store: TileStore, _ run: inout BuildRun) throws -> BuildPlan {
        var plan = BuildPlan(zooms: zooms, pyramids: inputs.pyramids, jobs: MappedColumn(repeating: Job(), count: 0), jobStart: [], paths: TilePathTable(paths: 0, bytes: 0, columns: ResidentColumns()),
                             keys: MappedColumn(repeating: Digest16(high: 0, low: 0), count: 0), checks: MappedColumn(repeating: Check(), count: 0),
                             toRender: MappedColumn(repeating: 0, count: 0), columns: ResidentColumns(), previous: last.previous, reusable: last.reusable, carried: [:], carriedTilesPerZoom: [:], carriedPerZoom: [:],
                             crashed: last.crashed, stale: [], otherFiles: [], touchedSinceManifest: false)
        inputs.pyramids = []
        // The last build's entries (an incremental build's) are let go of with the plan's lists.
        for c in [last.previous?.indexed?.columns, last.reusable?.indexed?.columns].compactMap({ $0 }) { plan.columns.track(c) }
        var carriedEntry = carryUnchanged(&plan, last.records)
        let lastBuild = try planUntilIntact(&plan, inputs, pending: pending, store: store, carriedEntry: &carriedEntry, &run)
        let previousEntry = matchPrevious(plan.jobs, plan.paths, plan.pyramids, plan.jobStart, last.reusable, last.records, carriedEntry,
                                          columns: plan.columns)
        plan.checks = diff(plan, previousEntry, intact: lastBuild?.intact ?? [], store: store)
        plan.touchedSinceManifest = lastBuild?.touched ?? false
        // Paths are unique, so each previous entry is matched by one job at most.
        var matched = carriedEntry
        var renders = 0
        plan.columns.sweep(plan.checks.count) { i in
            let c = plan.checks[i]
            if c.previous >= 0 { matched[Int(c.previous)] = true }
            if c.decision == .render { renders += 1 }
        }
        plan.toRender = plan.columns.track(MappedColumn(repeating: 0, count: renders))
        var k = 0
        plan.columns.sweep(plan.checks.count) { i in
            if plan.checks[i].decision == .render { plan.toRender[k] = i; k += 1 }
        }
        run.lap("diff")
        countCarried(&plan)
        run.summary.reused = plan.jobs.count + plan.carriedCount - plan.toRender.count
        log("plan: \(plan.jobs.count + plan.carriedCount) tiles in \(plan.pyramids.count) pyramids, zooms \(config.minZoom)–\(config.maxZoom): \(plan.toRender.count) to render, \(run.summary.reused) unchanged"
            + (plan.carried.isEmpty ? "" : " (\(plan.carried.count) pyramids with unchanged inputs not planned again)"))
        findStale(&plan, inputs.venues, clientFiles: inputs.clients.files.map(\.path), matched: matched)
        plan.kept = [previousEntry, matched, carriedEntry, lastBuild as Any]
        FreedMemory.giveBack()
        return plan
    }

    /// A pyramid whose inputs did not change is the last build's: not planned
    /// again (`carryUnchanged(_:_:)` per venue), provided every file of it is
    /// intact and no file is where it had a blank tile. That is known only once
    /// the files are checked, so the carry is decided on the digests first and
    /// undone for a damaged pyramid (`planUntilIntact`). Returns which of the
    /// last build's entries are carried.
    func carryUnchanged(_ plan: inout BuildPlan, _ lastRecords: [String: BuildIndex.PyramidRecord]) -> [Bool] {
        var carriedEntry = [Bool](repeating: false, count: plan.prevList.count)
        for pi in plan.pyramids.indices where plan.pyramids[pi].carried {
            let r = lastRecords[plan.pyramids[pi].directory]!
            plan.carried[pi] = r
            for i in r.tiles { carriedEntry[i] = true }
        }
        return carriedEntry
    }

    /// Puts the planned tiles in job order with their paths and keys; when
    /// the last build's file checks find a carried pyramid damaged, it is
    /// planned after all (its venue read again).
    func planUntilIntact(_ plan: inout BuildPlan, _ inputs: BuildInputs, pending: PreviousBuild.Pending, store: TileStore,
                         carriedEntry: inout [Bool], _ run: inout BuildRun) throws -> PreviousBuild? {
        var last: PreviousBuild?
        if let shard = options.shard { plan.plannedBeforeShard = try restrictToShard(&plan.pyramids, shard, spill: inputs.spill) }
        while true {
            try cancellation.check()
            let count = plan.pyramids.reduce(0) { $0 + $1.plans.reduce(0) { $0 + $1.tiles.count } }
            plan.jobs = plan.columns.track(MappedColumn(repeating: Job(), count: count))
            plan.jobStart = [Int](repeating: 0, count: plan.pyramids.count + 1)
            var j = 0
            for (pi, p) in plan.pyramids.enumerated() {
                plan.jobStart[pi] = j
                for (zi, zp) in p.plans.enumerated() {
                    for t in zp.tiles.indices { plan.jobs[j] = Job(pyramid: Int32(pi), plan: Int32(zi), tile: Int32(t)); j += 1 }
                    // Written pages go back to the file as the column fills: it is never resident whole.
                    plan.columns.advance(by: zp.tiles.count)
                }
            }
            plan.columns.drop()
            plan.jobStart[plan.pyramids.count] = count
            plan.paths = tilePaths(plan.pyramids, count: count, columns: plan.columns)
            run.lap("plan")
            plan.keys = plan.columns.track(MappedColumn(repeating: Digest16(high: 0, low: 0), count: count))
            j = 0
            for p in plan.pyramids {
                let keys = try p.tileKeys.map { try Digest16.list(inputs.spill.get($0)) } ?? []
                for key in keys { plan.keys[j] = key; j += 1 }
                plan.columns.advance(by: keys.count)
            }
            precondition(j == count, "every planned tile is keyed")
            plan.columns.drop()
            run.lap("keys")
            if last == nil {
                last = pending.result()
                run.lap("previous build")
            }
            let intact = last?.intact ?? []
            let blanks = plan.reusable?.blank ?? []
            let damaged = plan.carried.filter { _, r in
                !r.tiles.allSatisfy({ intact[$0] }) || !blanks[r.blanks].allSatisfy({ store.fileStatus($0.path) == nil })
            }
            if damaged.isEmpty {
                for pi in plan.pyramids.indices { plan.pyramids[pi].tileKeys = nil }
                return last
            }
            for (pi, r) in damaged {
                plan.pyramids[pi].carried = false
                plan.carried[pi] = nil
                for i in r.tiles { carriedEntry[i] = false }
            }
            try planDamaged(&plan.pyramids, inputs)
        }
    }

    /// Plans and keys the pyramids that are neither carried nor planned (a
    /// carried one found damaged), reading their venues again.
    func planDamaged(_ pyramids: inout [Pyramid], _ inputs: BuildInputs) throws {
        // One venue alive at a time: the kept one goes before another is read.
        inputs.kept.drop()
        for (vi, range) in inputs.venuePyramids.enumerated() {
            let wanted = Set(range.filter { !pyramids[$0].carried && pyramids[$0].plans.isEmpty })
            guard !wanted.isEmpty else { continue }
            var again = try venueAgain(vi, inputs, planned: pyramids, plan: { wanted.contains(range.lowerBound + $0) }, zooms: Array(config.minZoom...config.maxZoom))
            try keyPlans(&again.pyramids, spill: inputs.spill)
            for k in again.pyramids.indices where wanted.contains(range.lowerBound + k) {
                // Same digest, same TileJSON: the document made when the venue was first planned stays.
                let file = pyramids[range.lowerBound + k].tileJSONFile
                pyramids[range.lowerBound + k] = again.pyramids[k].hollowed(tileJSON: writesVenueFiles && file == nil, minZoom: config.minZoom, maxZoom: config.maxZoom)
                pyramids[range.lowerBound + k].tileJSONFile = file
            }
        }
    }

    /// What each job finds of the last build: its entry, whether its file is
    /// intact, and so whether it is rendered or reused (the file checks were
    /// made with the last build).
    func diff(_ plan: BuildPlan, _ previousEntry: MappedColumn<Int32>, intact: [Bool], store: TileStore) -> MappedColumn<Check> {
        let trustKeys = !options.force
        // Taken out of the optional once: a `PreviousState` copied per tile costs a retain and release of each of its lists.
        let previous = plan.reusable
        let carriedBlank = Set(plan.carried.values.flatMap { r in r.blanks.map { plan.reusable!.blank[$0].path } })
        let prevBlank = Dictionary((plan.reusable?.blank ?? []).filter { !carriedBlank.contains($0.path) }.map { ($0.path, $0.key) },
                                   uniquingKeysWith: { a, _ in a })
        let (paths, keys) = (plan.paths, plan.keys)
        let checks = plan.columns.track(MappedColumn(repeating: Check(), count: plan.jobs.count))
        // Runs of jobs on the workers, each writing its own jobs' checks; the
        // columns let go of a window of rows at a time (the other worker's
        // pages too: a page let go of is read back from its file).
        let chunk = 4096
        _ = Workers.map((plan.jobs.count + chunk - 1) / chunk, workers: options.jobs, placeholder: ()) { _, r in
            defer { plan.columns.advance(by: chunk) }
            for i in (r * chunk)..<min((r + 1) * chunk, checks.count) {
                var c = Check()
                if previousEntry[i] >= 0 {
                    let pi = Int(previousEntry[i])
                    c.previous = Int32(pi)
                    c.intact = intact[pi]
                    if trustKeys && c.intact && previous!.key(pi) == keys[i] { c.decision = .reuse }
                } else if trustKeys, !prevBlank.isEmpty, prevBlank[paths[i]] == keys[i], store.fileStatus(paths[i]) == nil {
                    c.decision = .reuseBlank
                }
                checks[i] = c
            }
        }
        return checks
    }

    /// Tiles, and tiles with blank ones, per pyramid and zoom of the pyramids carried over.
    func countCarried(_ plan: inout BuildPlan) {
        guard let previous = plan.reusable else { return }
        for (pi, r) in plan.carried {
            var z = [Int](repeating: 0, count: plan.zooms.count)
            let p = plan.pyramids[pi]
            for i in r.tiles { z[previous.withPath(i) { tileOf(utf8: $0, in: p)! }.z - config.minZoom] += 1 }
            plan.carriedTilesPerZoom[pi] = z
            for i in r.blanks { z[zoomIndex(plan.reusable!.blank[i].path, p)] += 1 }
            plan.carriedPerZoom[pi] = z
        }
    }

    /// Files no longer produced: previous tiles no job matched, previous other
    /// files (TileJSON, meshes) this build does not write, and what a killed
    /// build may have left.
    func findStale(_ plan: inout BuildPlan, _ venues: [PreparedVenue], clientFiles: [String], matched: [Bool]) {
        plan.archivePaths = writesVenueFiles ? archivePaths(plan.pyramids, venues) : []
        plan.otherFiles = Set(plan.pyramids.map { $0.directory + "/tilejson.json" }).union(clientFiles).union(plan.archivePaths)
        if !writesVenueFiles { plan.otherFiles = [] }
        if config.mesh != nil && writesVenueFiles {
            for v in venues { plan.otherFiles.formUnion(v.primaryFloors.map { "\(v.sourceID)/\($0.id)/mesh.glb" } + ["\(v.sourceID)/venue.glb"]) }
        }
        var plannedPaths: Set<String>?   // built only when a path must be looked up
        func planned(_ p: String) -> Bool {
            if plannedPaths == nil { plannedPaths = Set(plan.paths) }
            return plannedPaths!.contains(p)
        }
        if plan.reusable != nil {
            for pi in plan.prevList.indices where !matched[pi] { plan.stale.insert(plan.prevList[pi].path) }
        } else {
            for e in plan.previous?.tiles ?? [] where !planned(e.path) { plan.stale.insert(e.path) }
        }
        for e in plan.previous?.files ?? [] where !plan.otherFiles.contains(e.path) { plan.stale.insert(e.path) }
        for p in plan.crashed where !planned(p) && !plan.otherFiles.contains(p) { plan.stale.insert(p) }
    }
}
