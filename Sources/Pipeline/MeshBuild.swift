import Drawing
import Foundation
import Meshes
import Styling
import TileGeometry
import VenueModel

/// Builds the per-floor and venue meshes: floor slabs, units extruded to a
/// height per class with walls along their outlines, colours from the style.
/// Coordinates: a local East-North-Up frame in metres around the venue origin,
/// written in glTF's axes (+X east, +Y up, +Z south).
enum MeshBuild {
    /// `problems` receives one line per polygon whose triangles do not cover it
    /// exactly (area off by more than 1e-6 relative): invalid input, reported.
    static func floorNode(_ pf: PreparedFloor, venue: Venue, frame: LocalFrame, style: Style, options: MeshOptions,
                          translation: (Double, Double, Double) = (0, 0, 0), problems: inout [String]) -> MeshNode {
        let levelIDs = Set(pf.floor.levels.map(\.id))
        var feats = pf.floor.levels.compactMap(\.outlineFeature)
        feats += venue.features.filter { $0.levelID.map(levelIDs.contains) == true && $0.geometry.isAreal }
        var prims = [String: MeshPrimitive]()
        var order = [String]()
        let workspace = Triangulator.Workspace()
        for f in feats {
            guard let template = LayerTable.template(for: f.featureClass),
                  let ls = style.resolve(template, floor: pf.id, building: f.buildingID), !ls.hidden,
                  let color = ls.fillColor ?? ls.outlineColor else { continue }
            let name = LayerTable.genericID(template)
            if prims[name] == nil { prims[name] = MeshPrimitive(material: name, color: color); order.append(name) }
            // The venue's own height (MVF styles) wins over the per-class table.
            let h = max(0, f.sourcePaint?.height ?? options.heights[f.featureClass.rawValue] ?? 3.0)
            for poly in f.geometry.polygons {
                if let (covered, area) = add(poly, height: h, frame: frame, into: &prims[name]!, workspace: workspace), abs(covered - area) > 1e-6 * max(area, 1e-9) {
                    problems.append("feature \(f.id): its triangles cover \(String(format: "%.3f", covered)) m² of its \(String(format: "%.3f", area)) m² (the polygon is not valid)")
                }
            }
        }
        let sorted = order.sorted { LayerTable.drawIndex(of: templateOf($0)) < LayerTable.drawIndex(of: templateOf($1)) }
        return MeshNode(name: pf.id, translation: translation, primitives: sorted.map { prims[$0]! })
    }

    static func templateOf(_ generic: String) -> String {
        LayerTable.drawingOrder.first { LayerTable.genericID($0) == generic } ?? generic
    }

    /// A prism: the top face at `height` (triangulated with holes) and one wall quad per ring edge.
    /// Returns the area the triangles cover and the polygon's own area, in m².
    @discardableResult
    static func add(_ poly: Polygon, height h: Double, frame: LocalFrame, into p: inout MeshPrimitive,
                    workspace: Triangulator.Workspace? = nil) -> (Double, Double)? {
        var rings = poly.rings.map { r -> [PlanePoint] in
            var pts = r.map(frame.planar)
            while pts.count > 1 && pts.first == pts.last { pts.removeLast() }
            return pts
        }
        // Exterior counter-clockwise, holes clockwise (seen from above): walls then face outwards.
        for i in rings.indices {
            let a = ringArea(rings[i])
            if (i == 0) != (a > 0) { rings[i].reverse() }
        }
        let t = Triangulator.triangulate(rings, workspace: workspace)
        let area = rings.enumerated().reduce(0.0) { $0 + ($1.offset == 0 ? 1 : -1) * abs(ringArea($1.element)) }
        var covered = 0.0
        for k in stride(from: 0, to: t.indices.count, by: 3) {
            let a = t.vertices[Int(t.indices[k])], b = t.vertices[Int(t.indices[k + 1])], c = t.vertices[Int(t.indices[k + 2])]
            covered += ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) / 2
        }
        guard !t.indices.isEmpty else { return (covered, area) }
        let base = UInt32(p.positions.count / 3)
        for v in t.vertices { _ = p.vertex(v.x, h, -v.y, normal: (0, 1, 0)) }
        p.indices += t.indices.map { $0 + base }
        guard h > 0.05 else { return (covered, area) }
        for ring in rings {
            for i in ring.indices {
                let a = ring[i], b = ring[(i + 1) % ring.count]
                let dx = b.x - a.x, dy = b.y - a.y
                let len = (dx * dx + dy * dy).squareRoot()
                guard len > 0 else { continue }
                let n = (Float(dy / len), Float(0), Float(dx / len))   // outward (east, up, south)
                let a0 = p.vertex(a.x, 0, -a.y, normal: n), b0 = p.vertex(b.x, 0, -b.y, normal: n)
                let b1 = p.vertex(b.x, h, -b.y, normal: n), a1 = p.vertex(a.x, h, -a.y, normal: n)
                p.indices += [a0, b0, b1, a0, b1, a1]
            }
        }
        return (covered, area)
    }

    static func ringArea(_ r: [PlanePoint]) -> Double {
        var s = 0.0
        for i in r.indices { let a = r[i], b = r[(i + 1) % r.count]; s += a.x * b.y - b.x * a.y }
        return s / 2
    }
}
