import Foundation
import TileGeometry
import VenueModel

/// A build whose tile estimate passes `max_tiles`: refused before planning.
public struct TileLimitError: Error, CustomStringConvertible {
    public var limit: Int
    public var estimate: Double
    /// The largest pyramids' estimates, largest first.
    public var pyramids: [(directory: String, tiles: Double)]
    public var description: String {
        let lines = pyramids.prefix(12).map { "  \($0.directory): about \(TileLimitError.count($0.tiles)) tiles" }
        return (["the plan would make about \(TileLimitError.count(estimate)) tiles, more than max_tiles (\(limit)); nothing was written. "
                 + "Check the zoom range and the venue's extent (a stray coordinate is reported by `venuetiles validate`), "
                 + "or raise \"max_tiles\" in pipeline.json. Estimate per pyramid:"] + lines
                + (pyramids.count > 12 ? ["  … and \(pyramids.count - 12) more"] : [])).joined(separator: "\n")
    }

    static func count(_ n: Double) -> String { n < 1e15 ? String(Int64(n)) : String(format: "%.2e", n) }
}

extension Builder {
    /// Estimates the tiles of every pyramid from its venue's extent (the
    /// covering tile range at each zoom, one tile of margin: an upper bound of
    /// what the plan makes) and refuses the build past `max_tiles`, before the
    /// plan allocates anything for them.
    func checkTileBudget(_ pyramids: [Pyramid], _ venues: [PreparedVenue], zooms: [Int]) throws {
        var perVenue = [Double](repeating: 0, count: venues.count)
        for (vi, v) in venues.enumerated() where !v.bounds.isEmpty {
            let sw = WebMercator.project(LonLat(lon: v.bounds.west, lat: v.bounds.south))
            let ne = WebMercator.project(LonLat(lon: v.bounds.east, lat: v.bounds.north))
            for z in zooms {
                let span = WebMercator.tileSpan(zoom: z)
                let w = ((ne.x - sw.x) / span).rounded(.down) + 3, h = ((ne.y - sw.y) / span).rounded(.down) + 3
                perVenue[vi] += w * h
            }
        }
        let estimates = pyramids.map { (directory: $0.directory, tiles: perVenue[$0.venue]) }
        let total = estimates.reduce(0) { $0 + $1.tiles }
        guard total > Double(config.maxTiles) else { return }
        throw TileLimitError(limit: config.maxTiles, estimate: total, pyramids: estimates.sorted { $0.tiles > $1.tiles })
    }
}
