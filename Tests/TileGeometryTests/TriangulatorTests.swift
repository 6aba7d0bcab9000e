import TestSupport
import TileGeometry
import XCTest

/// Property tests: triangles cover the polygon exactly, never a hole, and
/// come in the number the Euler formula predicts.
final class TriangulatorTests: XCTestCase {
    typealias P = PlanePoint

    static func area(_ r: [P]) -> Double {
        var s = 0.0
        for i in r.indices { let a = r[i], b = r[(i + 1) % r.count]; s += a.x * b.y - b.x * a.y }
        return s / 2
    }

    static func contains(_ r: [P], _ p: P) -> Bool {
        var inside = false
        var j = r.count - 1
        for i in r.indices {
            if (r[i].y > p.y) != (r[j].y > p.y) && p.x < (r[j].x - r[i].x) * (p.y - r[i].y) / (r[j].y - r[i].y) + r[i].x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// Checks the contract; returns the triangle count.
    @discardableResult
    func check(_ rings: [[P]], expectCount: Int? = nil, tolerance: Double = 1e-9, _ label: String, file: StaticString = #filePath, line: UInt = #line) -> Int {
        let r = Triangulator.triangulate(rings)
        let polygonArea = abs(TriangulatorTests.area(rings[0])) - rings.dropFirst().reduce(0) { $0 + abs(TriangulatorTests.area($1)) }
        var total = 0.0
        for k in stride(from: 0, to: r.indices.count, by: 3) {
            let a = r.vertices[Int(r.indices[k])], b = r.vertices[Int(r.indices[k + 1])], c = r.vertices[Int(r.indices[k + 2])]
            let t = ((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) / 2
            XCTAssertGreaterThan(t, 0, "\(label): triangle \(k / 3) is not counter-clockwise or has no area", file: file, line: line)
            total += t
            // Slivers along collinear runs have their centroid on the boundary: nothing to test there.
            if t < abs(polygonArea) * 1e-9 { continue }
            let centroid = P(x: (a.x + b.x + c.x) / 3, y: (a.y + b.y + c.y) / 3)
            if !TriangulatorTests.contains(rings[0], centroid) || rings.dropFirst().contains(where: { TriangulatorTests.contains($0, centroid) }) {
                XCTFail("\(label): triangle \(k / 3) (\(a), \(b), \(c)) lies outside the polygon or in a hole", file: file, line: line)
            }
        }
        XCTAssertEqual(total, polygonArea, accuracy: abs(polygonArea) * tolerance, "\(label): area", file: file, line: line)
        if let n = expectCount { XCTAssertEqual(r.indices.count / 3, n, "\(label): triangle count", file: file, line: line) }
        return r.indices.count / 3
    }

    func star(_ rng: inout SeededRandom, n: Int, radius: Double, spikes: Bool = false) -> [P] {
        let step = 2 * Double.pi / Double(n)
        return (0..<n).map { i in
            let a = Double(i) * step + Double.random(in: 0..<(step / 2), using: &rng)
            var r = radius * Double.random(in: 0.6...1, using: &rng)
            if spikes && i % 5 == 0 { r = radius * 2.5 }   // long thin spikes
            return P(x: r * cos(a), y: r * sin(a))
        }
    }

    /// Up to 25 small jittered squares on a grid well inside the star's inner disk.
    func holes(_ rng: inout SeededRandom, count: Int, radius: Double) -> [[P]] {
        let cell = radius * 0.12
        return (0..<count).map { k in
            let cx = (Double(k % 5) - 2) * cell, cy = (Double(k / 5) - 2) * cell
            let s = cell * 0.3
            let j = (0..<8).map { _ in Double.random(in: -s * 0.2...s * 0.2, using: &rng) }
            return [P(x: cx - s + j[0], y: cy - s + j[1]), P(x: cx - s + j[2], y: cy + s + j[3]),
                    P(x: cx + s + j[4], y: cy + s + j[5]), P(x: cx + s + j[6], y: cy - s + j[7])]
        }
    }

    func testRandomPolygonsWithHoles() {
        var rng = SeededRandom(state: 11)
        for trial in 0..<300 {
            let n = Int.random(in: 8...80, using: &rng)
            let ext = star(&rng, n: n, radius: Double.random(in: 1...500, using: &rng))
            let radius = ext.map { hypot($0.x, $0.y) }.min()! / 0.6
            let h = trial % 4 == 0 ? 0 : Int.random(in: 1...20, using: &rng)
            let hs = holes(&rng, count: h, radius: radius * 0.6)
            let rings = [trial % 2 == 0 ? ext : ext.reversed()] + hs
            check(rings, expectCount: n + 4 * h + 2 * h - 2, "trial \(trial)")
        }
    }

    func testSpikesAndCollinearRuns() {
        var rng = SeededRandom(state: 12)
        for trial in 0..<100 {
            let ext = star(&rng, n: 40, radius: 100, spikes: true)
            // Collinear runs: every edge gets two extra points on it.
            var withRuns = [P]()
            for i in ext.indices {
                let a = ext[i], b = ext[(i + 1) % ext.count]
                withRuns += [a, P(x: a.x + (b.x - a.x) / 3, y: a.y + (b.y - a.y) / 3), P(x: a.x + 2 * (b.x - a.x) / 3, y: a.y + 2 * (b.y - a.y) / 3)]
            }
            check([withRuns] + holes(&rng, count: 3, radius: 60), "trial \(trial)")
        }
    }

    func testDegenerateInputs() {
        let square = [P(x: 0, y: 0), P(x: 10, y: 0), P(x: 10, y: 10), P(x: 0, y: 10)]
        check([square], expectCount: 2, "square")
        check([square + [square[0]]], expectCount: 2, "closed ring")
        check([[square[0], square[0], square[1], square[1], square[2], square[3], square[3]]], "repeated points")
        // A hole touching the exterior at a vertex, and two holes touching each other.
        check([square, [P(x: 0, y: 5), P(x: 3, y: 6), P(x: 3, y: 4)]], "hole touching the exterior")
        check([square, [P(x: 2, y: 2), P(x: 2, y: 4), P(x: 5, y: 4), P(x: 5, y: 2)], [P(x: 5, y: 4), P(x: 5, y: 7), P(x: 8, y: 7), P(x: 8, y: 4)]], "holes touching")
        // A concave quadrilateral (an arrowhead) is not split along 0–2.
        check([[P(x: 0, y: 0), P(x: 5, y: 2), P(x: 10, y: 0), P(x: 5, y: 10)]], expectCount: 2, "arrowhead")
        check([[P(x: 5, y: 2), P(x: 10, y: 0), P(x: 5, y: 10), P(x: 0, y: 0)]], expectCount: 2, "arrowhead rotated")
        check([[P(x: 0, y: 0), P(x: 1, y: 0), P(x: 0, y: 1)].reversed()], expectCount: 1, "clockwise triangle")
        // A corridor 1 mm wide and 50 m long.
        check([[P(x: 0, y: 0), P(x: 50, y: 0), P(x: 50, y: 0.001), P(x: 0, y: 0.001)]], expectCount: 2, "thin room")
        // Nothing to triangulate, and no crash.
        XCTAssertTrue(Triangulator.triangulate([[P(x: 0, y: 0), P(x: 1, y: 1)]]).indices.isEmpty)
        XCTAssertTrue(Triangulator.triangulate([[P(x: 0, y: 0), P(x: 1, y: 1), P(x: 2, y: 2)]]).indices.isEmpty)
        // A self-intersecting bow tie: no crash, no loop.
        _ = Triangulator.triangulate([[P(x: 0, y: 0), P(x: 10, y: 10), P(x: 10, y: 0), P(x: 0, y: 10)]])
    }

    /// In the spirit of earcut's "water" fixtures: a wavy shoreline around many islands.
    func testWaterWithManyIslands() {
        var rng = SeededRandom(state: 13)
        let outline = (0..<400).map { i -> P in
            let a = Double(i) / 400 * 2 * Double.pi
            let r = 1000 + 40 * sin(a * 17) + 15 * sin(a * 53) + Double.random(in: 0...5, using: &rng)
            return P(x: r * cos(a), y: r * sin(a))
        }
        var islands = [[P]]()
        for gx in -4...4 { for gy in -4...4 where (gx + gy) % 2 == 0 {
            let cx = Double(gx) * 160, cy = Double(gy) * 160
            islands.append((0..<9).map { k in
                let a = Double(k) / 9 * 2 * Double.pi
                let r = 30 + Double.random(in: 0...25, using: &rng)
                return P(x: cx + r * cos(a), y: cy + r * sin(a))
            })
        } }
        check([outline] + islands, tolerance: 1e-9, "water")
    }
}
