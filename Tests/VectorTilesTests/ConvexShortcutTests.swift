import Foundation
@testable import VectorTiles
import TestSupport
import TileGeometry
import XCTest

/// `VectorTileGeometry.finish` returns a lone strictly convex ring without the
/// pinch split and the validity sweep; the result must be what those steps give.
final class ConvexShortcutTests: XCTestCase {
    func ring(_ pts: [(Double, Double)]) -> [TileUnitPoint] { pts.map { TileUnitPoint(x: $0.0, y: $0.1) } }

    func assertSameBothWays(_ r: [TileUnitPoint], _ g: VectorTileGeometry, file: StaticString = #filePath, line: UInt = #line) {
        let fast = g.finish([r], tolerance: g.tolerance)
        let slow = g.finish([r], tolerance: g.tolerance, convexShortcut: false)
        XCTAssertEqual(fast.polygons, slow.polygons, "\(r)", file: file, line: line)
        XCTAssertEqual(fast.invalid, slow.invalid, "\(r)", file: file, line: line)
    }

    func testShortcutGivesWhatTheFullStepsGive() {
        var rng = SeededRandom(state: 11)
        func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        var convex = 0, cases = 0
        for tolerance in [0.0, 2.0] {
            let g = VectorTileGeometry(extent: 4096, buffer: 80, tolerance: tolerance)
            for k in 0..<3000 {
                let n = 3 + Int(rng.next() % 9)
                // Small shapes, so that rounding collapses, pinches and straightens some of them.
                let scale = [0.8, 3, 20, 3000][k % 4]
                let cx = 2048 + unit() * 100, cy = 2048 + unit() * 100
                var pts = [(Double, Double)]()
                switch k % 5 {
                case 0, 1:
                    // Convex: points on an ellipse at sorted angles, either way round.
                    var angles = (0..<n).map { _ in unit() * 2 * Double.pi }.sorted()
                    if k % 2 == 0 { angles.reverse() }
                    pts = angles.map { (cx + scale * cos($0), cy + scale * 0.6 * sin($0)) }
                case 2:
                    // Any ring: random points (bow ties, spikes, repeats).
                    pts = (0..<n).map { _ in (cx + scale * unit(), cy + scale * unit()) }
                case 3:
                    // Stars that turn one way but wind twice or more.
                    let m = [5, 7, 9][Int(rng.next() % 3)], step = [2, 3][Int(rng.next() % 2)]
                    pts = (0..<m).map { i in
                        let a = Double(i * step % m) / Double(m) * 2 * Double.pi
                        return (cx + scale * cos(a), cy + scale * sin(a))
                    }
                default:
                    // Axis-aligned boxes with points on their edges (straight turns) and repeats.
                    let w = scale * (0.5 + unit()), h = scale * (0.5 + unit())
                    pts = [(cx, cy), (cx + w / 2, cy), (cx + w, cy), (cx + w, cy + h), (cx + w, cy + h), (cx, cy + h)]
                }
                let r = ring(pts)
                cases += 1
                if VectorTileGeometry.isStrictlyConvex(VectorTileGeometry.clean(Simplify.ring(r, tolerance: tolerance).map(g.quantise))) {
                    convex += 1
                }
                assertSameBothWays(r, g)
            }
        }
        // Both ways were exercised.
        XCTAssertGreaterThan(convex, cases / 5)
        XCTAssertLessThan(convex, cases * 4 / 5)
    }

    func testStarsAndStraightTurnsAreNotConvex() {
        let pentagram = (0..<5).map { i -> TileCoord in
            let a = Double(i * 2 % 5) / 5 * 2 * Double.pi
            return TileCoord(x: Int32(1000 * cos(a)), y: Int32(1000 * sin(a)))
        }
        XCTAssertFalse(VectorTileGeometry.isStrictlyConvex(pentagram), "turns one way but winds twice")
        XCTAssertFalse(VectorTileGeometry.isStrictlyConvex([TileCoord(x: 0, y: 0), TileCoord(x: 5, y: 0), TileCoord(x: 10, y: 0), TileCoord(x: 10, y: 10)]))
        XCTAssertFalse(VectorTileGeometry.isStrictlyConvex([TileCoord(x: 0, y: 0), TileCoord(x: 10, y: 0)]))
        XCTAssertTrue(VectorTileGeometry.isStrictlyConvex([TileCoord(x: 0, y: 0), TileCoord(x: 10, y: 0), TileCoord(x: 10, y: 10), TileCoord(x: 0, y: 10)]))
        XCTAssertTrue(VectorTileGeometry.isStrictlyConvex([TileCoord(x: 0, y: 0), TileCoord(x: 0, y: 10), TileCoord(x: 10, y: 10), TileCoord(x: 10, y: 0)]))
    }
}
