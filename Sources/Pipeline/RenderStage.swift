import Drawing
import Foundation
import Rendering
import Styling
import Threads
import VectorTiles

/// What the Render and Store stages leave: each job's outcome (its file's
/// hash and size, or blank), and how many files changed.
struct RenderedTiles {
    var outcomes: MappedColumn<TileWriter.Outcome>
    var changedFiles: Int
}

extension Builder {
    /// Render and Store: the plan's tiles to render, a venue at a time (read,
    /// prepared and planned again, `venueAgain`, and dropped once its tiles
    /// are written), grouped into units (`renderUnits`), drawn or encoded on
    /// `--jobs` workers, written by one writer in plan order; reused tiles keep
    /// the last build's entries.
    func renderAndStore(_ plan: BuildPlan, _ inputs: BuildInputs, commit: Commit, _ run: inout BuildRun) throws -> RenderedTiles {
        let workers = options.jobs
        var renderers = [[Int: TileRenderer]](repeating: [:], count: workers)
        let encodings = EncodedImageCache()
        for w in 0..<workers {
            for ts in config.tilesets where ts.format == .png && renderers[w][ts.scale] == nil {
                renderers[w][ts.scale] = try TileRenderer(scale: ts.scale, sprite: ts.scale >= 2 ? inputs.sprites.two : inputs.sprites.one,
                                                          encodings: encodings, quantize: ts.quantize ? .tiles(quality: ts.quality) : nil,
                                                          compression: ts.compression == .small ? .small : .fast)
            }
        }
        // Each worker's own scratch space for vector tiles.
        let vectorSpaces = (0..<workers).map { _ in MVTEncoder.Workspace() }
        let writer = makeWriter(plan, store: commit.store)
        plan.columns.drop()
        commit.writer = writer
        let (jobs, total, start) = (plan.jobs, plan.toRender.count, run.start)
        let decisions = plan.decisions
        var lastReport = Date()
        var done = 0, next = 0, batches = 0
        for (vi, range) in inputs.venuePyramids.enumerated() {
            // The venue's jobs are contiguous (pyramids in venue order), so are its tiles to render.
            let first = next
            while next < plan.toRender.count && plan.toRender[next] < plan.jobStart[range.upperBound] { next += 1 }
            guard next > first else { continue }
            try cancellation.check()
            let again = try inputs.kept.take(vi, planned: plan.pyramids[range], source: config.sources[vi])
                ?? venueAgain(vi, inputs, planned: plan.pyramids, plan: { !plan.pyramids[range.lowerBound + $0].carried }, zooms: plan.zooms)
            let pyramids = plan.pyramids.replacing(range, with: again.pyramids)
            let venues = inputs.venues.replacing(vi..<(vi + 1), with: [again.venue])
            run.lap("reread venue")
            let (units, batchEnds) = renderUnits(plan, plan.toRender[first..<next], decisions, pyramids)
            try Workers.stream(units.count, workers: workers, ends: batchEnds, placeholder: []) { w, u in
                self.render(units.jobs(u), span: units.span(u), jobs, pyramids, venues, renderers[w], vectorSpaces[w])
            } deliver: { range, results in
                var batch = [(job: Int, result: Result<TileWriter.Rendered?, Error>)]()
                for (u, r) in zip(range, results) {
                    for (ji, result) in zip(units.jobs(u), r) { batch.append((Int(ji), result)) }
                }
                // A stop request ends the stream here: the workers wind down, nothing half written.
                try self.cancellation.check()
                // One writer, writing this batch while the workers render the next ones.
                try writer.submit(batch)
                done += batch.count
                batches += 1
                // Tests stop a build here, its workers busy with the next batches.
                if batches == 1 { try pauseForTests("rendering", self.cancellation) }
                // The per-tile lists' pages behind the render and the writer go back to their files.
                plan.columns.advance(by: batch.count)
                if let progress {
                    progress(done, total, Date().timeIntervalSince(start))
                } else if Date().timeIntervalSince(lastReport) > 2 || done == total {
                    let el = Date().timeIntervalSince(start)
                    log("render: \(done)/\(total) tiles (\(done * 100 / max(total, 1))%), \(Int(Double(done) / max(el, 0.001))) tiles/s")
                    lastReport = Date()
                }
            }
            // The venue's part of the per-tile lists is done with, and its items, plans and repeated tiles are freed.
            plan.columns.drop()
            encodings.removeAll()
            FreedMemory.giveBack()
            run.lap("render+encode")
        }
        inputs.kept.drop()
        try writer.finish()
        run.summary.rendered = done
        run.lap("render+encode")
        run.summary.timings.append(("write (overlapped)", writer.busySeconds, writer.cpuSeconds, StageClock.peakMiB()))
        let draw = renderers.reduce(0.0) { $0 + $1.values.reduce(0.0) { $0 + $1.drawSeconds } }
        let encode = renderers.reduce(0.0) { $0 + $1.values.reduce(0.0) { $0 + $1.encodeSeconds } }
        if draw > 0 {
            run.summary.timings.append(("  png draw", 0, draw, 0))
            run.summary.timings.append(("  png encode", 0, encode, 0))
        }
        run.summary.invalidPolygonsDropped = writer.invalidDropped
        if writer.invalidDropped > 0 {
            log("warning: \(writer.invalidDropped) polygon pieces were left out of vector tiles: quantisation to the tile grid made them invalid")
            run.summary.warnings += 1
        }
        return RenderedTiles(outcomes: writer.takeOutcomes(), changedFiles: writer.changedFiles)
    }

    /// The writer, holding each job's outcome: the last build's file for a
    /// reused tile (same path, same key), blank for a reused blank, pending
    /// for one to render.
    func makeWriter(_ plan: BuildPlan, store: TileStore) -> TileWriter {
        let previous = plan.reusable, checks = plan.checks
        let outcomes = plan.columns.track(MappedColumn(repeating: TileWriter.Outcome.pending, count: plan.jobs.count))
        let intact = plan.columns.track(MappedColumn(repeating: false, count: plan.jobs.count))
        plan.columns.sweep(plan.jobs.count) { i in
            intact[i] = checks[i].intact
            switch checks[i].decision {
            case .reuse: outcomes[i] = TileWriter.Outcome(sha256: previous!.sha256(Int(checks[i].previous)), size: previous!.size(Int(checks[i].previous)))
            case .reuseBlank: outcomes[i] = .blank
            case .render: break
            }
        }
        return TileWriter(store: store, paths: plan.paths, previous: { checks[$0].previous >= 0 ? previous!.sha256(Int(checks[$0].previous)) : nil },
                          intact: intact, outcomes: outcomes, columns: plan.columns, writers: options.jobs)
    }

    /// Render units: a raster tile at z ≥ 19 is drawn together with the other
    /// tiles of its metatile that this build renders, a vector tile with its
    /// venue-wide twin (`vectorTileGroups`); other tiles alone. Flat, so that a
    /// million one-tile units cost no million small arrays. Then batches of
    /// whole units, about 1,024 tiles each, that go to the writer in plan order.
    func renderUnits(_ plan: BuildPlan, _ toRender: Slice<MappedColumn<Int>>, _ decisions: [Decision], _ pyramids: [Pyramid]) -> (units: RenderUnits, batchEnds: [Int]) {
        var units = RenderUnits()
        var groups = [MetatileKey: [Int32]](), order = [MetatileKey]()
        var current: (Int32, Int32)? = nil
        func flushGroups() {
            for k in order { units.append(groups[k]!, span: k.span) }
            groups.removeAll(keepingCapacity: true); order.removeAll(keepingCapacity: true)
        }
        // Only the venue being rendered has its pyramids' item sources: its groups.
        let vectorGroups = vectorTileGroups(plan.jobs, decisions, pyramids, plan.jobStart)
        for ji in toRender where !vectorGroups.grouped[ji] {
            let j = plan.jobs[ji]
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
        let batchSize = 1024
        var batchEnds = [Int]()
        var inBatch = 0
        for u in 0..<units.count {
            if inBatch > 0 && inBatch + units.size(u) > batchSize { batchEnds.append(u); inBatch = 0 }
            inBatch += units.size(u)
        }
        if units.count > 0 { batchEnds.append(units.count) }
        return (units, batchEnds)
    }
}

extension Array {
    /// A copy with `range` replaced.
    func replacing(_ range: Range<Int>, with elements: [Element]) -> [Element] {
        var copy = self
        copy.replaceSubrange(range, with: elements)
        return copy
    }
}
