import Foundation
import VenueFormats
import VenueModel

/// Features that reach far beyond the rest of their venue. One swapped
/// coordinate pair or one stray vertex (latitude 5e-324) makes a feature span
/// thousands of kilometres, and the plan would then cover that span at z23 with
/// tiles for as long as one let it run. Such a feature is skipped with a
/// warning, by `validate` and `build` alike, the same way every time.
///
/// "Far" is measured from the venue's core, the median of every feature's first
/// position (a stray vertex is rarely the first), against the reach of most
/// features: a feature is far when one of its positions lies more than 20 times
/// the 90th-percentile reach, and at least 5 km, from the core. Indoor venues
/// span a few hundred metres; an airport with its car parks a few kilometres.
enum FarFeatures {
    static let minimumReach = 5_000.0
    static let reachFactor = 20.0

    /// Removes far features (a far level or venue outline loses its outline
    /// only, as features refer to it); one warning each, naming it.
    static func remove(from venue: inout Venue, file: String) -> [Diagnostic] {
        var firsts = [LonLat]()
        for f in venue.features { if let p = first(f.geometry) { firsts.append(p) } }
        for l in venue.levels { if let g = l.geometry, let p = first(g) { firsts.append(p) } }
        guard firsts.count >= 3 else { return [] }
        let core = LonLat(lon: median(firsts.map(\.lon)), lat: median(firsts.map(\.lat)))
        func reach(_ g: Geometry) -> Double {
            var r = 0.0
            g.forEachPosition { r = max(r, distance(core, $0)) }
            return r
        }
        let reaches = venue.features.map { reach($0.geometry) }
        let typical = reaches.sorted()[min(reaches.count - 1, reaches.count * 9 / 10)]
        let limit = max(minimumReach, reachFactor * typical)
        var out = [Diagnostic]()
        func warn(_ id: String, _ what: String, _ r: Double) {
            out.append(Diagnostic(kind: .warning, file: file, featureID: id,
                                  message: "\(what) reaches \(kilometres(r)) from the rest of the venue (most features lie within \(kilometres(typical))): a swapped or stray coordinate? skipped"))
        }
        var kept = [Feature]()
        kept.reserveCapacity(venue.features.count)
        for (f, r) in zip(venue.features, reaches) {
            if r > limit { warn(f.id, "the feature", r) } else { kept.append(f) }
        }
        venue.features = kept
        for i in venue.levels.indices {
            if let g = venue.levels[i].geometry, reach(g) > limit { warn(venue.levels[i].id, "the level outline", reach(g)); venue.levels[i].geometry = nil }
        }
        if let g = venue.geometry, reach(g) > limit { warn(venue.id, "the venue outline", reach(g)); venue.geometry = nil }
        if let p = venue.displayPoint, distance(core, p) > limit { warn(venue.id, "the venue's display point", distance(core, p)); venue.displayPoint = nil }
        return out
    }

    private static func first(_ g: Geometry) -> LonLat? {
        var p: LonLat?
        g.forEachPosition { if p == nil { p = $0 } }
        return p
    }

    private static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s[s.count / 2]
    }

    /// Metres along the ground (equirectangular: exact enough at these distances to tell near from far).
    static func distance(_ a: LonLat, _ b: LonLat) -> Double {
        let r = 6_371_008.8, rad = Double.pi / 180
        let x = (b.lon - a.lon) * rad * cos((a.lat + b.lat) / 2 * rad), y = (b.lat - a.lat) * rad
        return (x * x + y * y).squareRoot() * r
    }

    private static func kilometres(_ m: Double) -> String {
        m >= 10_000 ? "\(Int((m / 1000).rounded())) km" : String(format: "%.1f km", m / 1000)
    }
}
