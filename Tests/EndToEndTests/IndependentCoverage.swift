import Foundation
import TestSupport
import VenueFormats
import VenueModel

/// Which tiles a floor must have, computed without the project's projection or
/// coverage code: positions go to fractional tile coordinates with the OSM
/// wiki formula, and polygons are clipped against each tile square
/// (Sutherland–Hodgman) to measure the area inside it.
enum IndependentCoverage {
    typealias P = (x: Double, y: Double)

    static func tileXY(_ p: LonLat, zoom: Int) -> P {
        let n = pow(2.0, Double(zoom))
        let lat = p.lat * Double.pi / 180
        return ((p.lon + 180) / 360 * n, (1 - asinh(tan(lat)) / Double.pi) / 2 * n)
    }

    static func clippedArea(_ ring: [P], minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
        TestSupport.clippedArea(ring, minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }

    /// Geometries the default style draws on a floor: level outlines and every
    /// level-bound feature except sections and anchors.
    static func drawnGeometries(_ v: Venue, floor: Floor) -> [Geometry] {
        let ids = Set(floor.levels.map(\.id))
        var out = floor.levels.compactMap(\.geometry)
        for f in v.features where f.levelID.map(ids.contains) == true && f.featureClass != .section && f.featureClass != .anchor {
            out.append(f.geometry)
        }
        return out
    }

    /// Tiles a placed label, icon or dot may make exist (issue 17 item 2): those
    /// within `padPx` of a drawn geometry's or a building footprint's bounding
    /// box (building labels sit on footprints; the widest label box is the
    /// building label's 160 px text plus halo, half of it either side).
    static func labelReach(_ v: Venue, floor: Floor, zoom: Int, padPx: Double = 100) -> Set<[Int]> {
        var out = Set<[Int]>()
        let pad = padPx / 256
        let footprints = v.features.filter { $0.featureClass == .building }.map(\.geometry)
        for g in drawnGeometries(v, floor: floor) + footprints {
            let pts: [LonLat]
            switch g {
            case .point(let p): pts = [p]
            case .multiPoint(let ps): pts = ps
            case .lineString(let l): pts = l
            case .multiLineString(let ls): pts = ls.flatMap { $0 }
            case .polygon, .multiPolygon: pts = g.polygons.flatMap { $0.rings.flatMap { $0 } }
            }
            let xy = pts.map { tileXY($0, zoom: zoom) }
            guard !xy.isEmpty else { continue }
            let x0 = Int((xy.map(\.x).min()! - pad).rounded(.down)), x1 = Int((xy.map(\.x).max()! + pad).rounded(.down))
            let y0 = Int((xy.map(\.y).min()! - pad).rounded(.down)), y1 = Int((xy.map(\.y).max()! + pad).rounded(.down))
            for ty in y0...y1 { for tx in x0...x1 { out.insert([tx, ty]) } }
        }
        return out
    }

    /// Tiles that must exist (a drawn polygon covers at least one pixel of them)
    /// and tiles that may exist (some geometry comes within `padPx` pixels).
    static func tiles(_ v: Venue, floor: Floor, zoom: Int, padPx: Double = 5) -> (must: Set<[Int]>, may: Set<[Int]>) {
        var must = Set<[Int]>(), may = Set<[Int]>()
        let pad = padPx / 256
        for g in drawnGeometries(v, floor: floor) {
            var parts = [[P]]()
            var polys = [[[P]]]()
            switch g {
            case .point(let p): parts = [[tileXY(p, zoom: zoom)]]
            case .multiPoint(let ps): parts = ps.map { [tileXY($0, zoom: zoom)] }
            case .lineString(let l): parts = [l.map { tileXY($0, zoom: zoom) }]
            case .multiLineString(let ls): parts = ls.map { $0.map { tileXY($0, zoom: zoom) } }
            case .polygon, .multiPolygon:
                polys = g.polygons.map { $0.rings.map { $0.map { tileXY($0, zoom: zoom) } } }
                parts = polys.flatMap { $0 }
            }
            let all = parts.joined()
            let x0 = Int((all.map(\.x).min()! - pad).rounded(.down)), x1 = Int((all.map(\.x).max()! + pad).rounded(.down))
            let y0 = Int((all.map(\.y).min()! - pad).rounded(.down)), y1 = Int((all.map(\.y).max()! + pad).rounded(.down))
            for ty in y0...y1 {
                for tx in x0...x1 {
                    let key = [tx, ty]
                    let fx = Double(tx), fy = Double(ty)
                    var area = 0.0, grown = 0.0
                    for rings in polys {
                        area += clippedArea(rings[0], minX: fx, minY: fy, maxX: fx + 1, maxY: fy + 1)
                        grown += clippedArea(rings[0], minX: fx - pad, minY: fy - pad, maxX: fx + 1 + pad, maxY: fy + 1 + pad)
                        for h in rings.dropFirst() {
                            area -= clippedArea(h, minX: fx, minY: fy, maxX: fx + 1, maxY: fy + 1)
                            grown -= clippedArea(h, minX: fx - pad, minY: fy - pad, maxX: fx + 1 + pad, maxY: fy + 1 + pad)
                        }
                    }
                    if area >= 1.0 / 65536 { must.insert(key) }
                    // Lines and points: a generous test on their sample points and segment boxes.
                    let nearLine = polys.isEmpty && parts.contains { part in
                        zip(part, part.dropFirst().isEmpty ? part : Array(part.dropFirst())).contains { a, b in
                            max(a.x, b.x) >= fx - pad && min(a.x, b.x) <= fx + 1 + pad && max(a.y, b.y) >= fy - pad && min(a.y, b.y) <= fy + 1 + pad
                        }
                    }
                    if grown > 1e-12 || nearLine { may.insert(key) }
                }
            }
        }
        return (must, may)
    }
}
