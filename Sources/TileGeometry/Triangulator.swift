/// A point in a local metric plane (metres east and north of an origin), the
/// space the triangulator and the mesh work in.
public struct PlanePoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// Ear-clipping triangulation of polygons with holes, after the earcut
/// algorithm's description (Agafonkin, mapbox/earcut): holes are bridged into
/// the outer ring from their leftmost vertex, then ears are cut; when no ear is
/// left, collinear and repeated points are filtered, then the polygon is split
/// along a valid diagonal and each half is triangulated.
///
/// Contract:
/// - Input: an exterior ring and holes (any orientation; closed or open), with
///   finite coordinates. Best results in a local frame (metres from a nearby
///   origin), not raw Web Mercator values.
/// - For a valid polygon (simple rings, holes inside the exterior, holes
///   disjoint or touching at points): the triangles cover the polygon exactly
///   — their areas sum to the polygon's area up to floating-point rounding —,
///   never cover a hole, and for n vertices and h holes without collinear or
///   repeated points there are n + 2h − 2 of them.
/// - Collinear runs, repeated points, touching holes and very thin rooms are
///   handled; exactly flat triangles are never emitted (near-collinear runs
///   may give triangles of near-zero area, as floating point has it).
/// - Invalid input (self-intersecting rings) never crashes and never loops: the
///   result then covers what it can.
///
/// Output: indices into the concatenation of the rings (exterior first, then
/// each hole, closing points dropped), three per triangle, counter-clockwise.
public enum Triangulator {
    public struct Result: Sendable {
        public var vertices: [PlanePoint]
        public var indices: [UInt32]
    }

    /// Working memory to reuse across calls on one thread (not thread-safe):
    /// triangulating many small rooms is otherwise dominated by allocating and
    /// freeing the linked-list arrays.
    public final class Workspace {
        var work = Work(points: [])
        public init() {}
    }

    public static func triangulate(_ rings: [[PlanePoint]], workspace: Workspace? = nil) -> Result {
        var vertices = [PlanePoint]()
        vertices.reserveCapacity(rings.reduce(0) { $0 + $1.count })
        var starts = [Int]()
        for (i, r) in rings.enumerated() {
            var n = r.count
            while n > 1 && r[0] == r[n - 1] { n -= 1 }
            if i == 0 && n < 3 { return Result(vertices: [], indices: []) }
            starts.append(vertices.count)
            vertices.append(contentsOf: r[0..<n])
        }
        // Triangles and convex quadrilaterals (most rooms and fixtures) need no ear search.
        if rings.count == 1, vertices.count <= 4, let quick = Triangulator.small(vertices) {
            return Result(vertices: vertices, indices: quick)
        }
        // Borrow the workspace's arrays (moved out, so they stay uniquely referenced).
        var t = Work(points: [])
        if let ws = workspace { swap(&t, &ws.work) }
        defer { if let ws = workspace { swap(&t, &ws.work) } }
        t.reset(points: vertices)
        // Large polygons: index vertices along a z-order curve so the ear test
        // only looks at vertices near the ear (the box of the exterior, scaled to 15 bits).
        let outerEnd = rings.count > 1 ? starts[1] : vertices.count
        if vertices.count > 80 {
            var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
            for p in vertices[0..<outerEnd] { minX = min(minX, p.x); minY = min(minY, p.y); maxX = max(maxX, p.x); maxY = max(maxY, p.y) }
            let size = max(maxX - minX, maxY - minY)
            if size > 0 { t.hash = (minX, minY, 32767 / size) }
        }
        guard let outer = t.linkedList(start: 0, end: rings.count > 1 ? starts[1] : vertices.count, clockwise: true) else {
            return Result(vertices: vertices, indices: [])
        }
        var outerNode = outer
        if rings.count > 1 {
            outerNode = t.eliminateHoles(starts: starts, total: vertices.count, outer: outerNode)
        }
        t.earcut(outerNode, pass: 0)
        // Counter-clockwise (y up) whatever the rings' orientation was; exactly
        // flat triangles (from collinear runs) are dropped.
        var tri = [UInt32]()
        tri.reserveCapacity(t.triangles.count)
        for k in stride(from: 0, to: t.triangles.count, by: 3) {
            let i = t.triangles[k], j = t.triangles[k + 1], l = t.triangles[k + 2]
            let a = vertices[Int(i)], b = vertices[Int(j)], c = vertices[Int(l)]
            let cross = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
            if cross > 0 { tri.append(i); tri.append(j); tri.append(l) } else if cross < 0 { tri.append(i); tri.append(l); tri.append(j) }
        }
        return Result(vertices: vertices, indices: tri)
    }

    /// A triangle, or a strictly convex quadrilateral split along 0–2, counter-clockwise;
    /// nil when the ear clipper must decide (reflex or degenerate corners).
    static func small(_ v: [PlanePoint]) -> [UInt32]? {
        func cross(_ a: PlanePoint, _ b: PlanePoint, _ c: PlanePoint) -> Double { (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) }
        if v.count == 3 {
            let c = cross(v[0], v[1], v[2])
            return c > 0 ? [0, 1, 2] : c < 0 ? [0, 2, 1] : []
        }
        guard v.count == 4 else { return nil }
        let c = (0..<4).map { cross(v[$0], v[($0 + 1) % 4], v[($0 + 2) % 4]) }
        if c.allSatisfy({ $0 > 0 }) { return [0, 1, 2, 0, 2, 3] }
        if c.allSatisfy({ $0 < 0 }) { return [0, 2, 1, 0, 3, 2] }
        return nil
    }

    // MARK: - working state: a circular doubly linked list in arrays

    struct Work {
        var points: [PlanePoint]
        var x = [Double](), y = [Double](), index = [Int]()
        var prev = [Int](), next = [Int]()
        var steiner = [Bool]()
        var triangles = [UInt32]()
        /// z-order hashing: origin and scale, when on.
        var hash: (minX: Double, minY: Double, invSize: Double)? = nil
        var z = [Int32](), prevZ = [Int](), nextZ = [Int]()

        init(points: [PlanePoint]) {
            self.points = points
            x.reserveCapacity(points.count + 16); y.reserveCapacity(points.count + 16)
            index.reserveCapacity(points.count + 16); prev.reserveCapacity(points.count + 16); next.reserveCapacity(points.count + 16)
            triangles.reserveCapacity(points.count * 3)
        }

        /// Empties every array, keeping its capacity, for a new polygon.
        mutating func reset(points: [PlanePoint]) {
            self.points = points
            x.removeAll(keepingCapacity: true); y.removeAll(keepingCapacity: true); index.removeAll(keepingCapacity: true)
            prev.removeAll(keepingCapacity: true); next.removeAll(keepingCapacity: true); steiner.removeAll(keepingCapacity: true)
            triangles.removeAll(keepingCapacity: true)
            z.removeAll(keepingCapacity: true); prevZ.removeAll(keepingCapacity: true); nextZ.removeAll(keepingCapacity: true)
            hash = nil
            let n = points.count + 16
            x.reserveCapacity(n); y.reserveCapacity(n); index.reserveCapacity(n); prev.reserveCapacity(n); next.reserveCapacity(n)
            triangles.reserveCapacity(points.count * 3)
        }

        mutating func insert(_ i: Int, after last: Int?) -> Int {
            let n = x.count
            x.append(points[i].x); y.append(points[i].y); index.append(i); steiner.append(false)
            if hash != nil { z.append(-1); prevZ.append(-1); nextZ.append(-1) }
            if let l = last {
                next.append(next[l]); prev.append(l)
                prev[next[l]] = n; next[l] = n
            } else {
                prev.append(n); next.append(n)
            }
            return n
        }

        mutating func remove(_ p: Int) {
            next[prev[p]] = next[p]
            prev[next[p]] = prev[p]
            guard hash != nil else { return }
            if prevZ[p] >= 0 { nextZ[prevZ[p]] = nextZ[p] }
            if nextZ[p] >= 0 { prevZ[nextZ[p]] = prevZ[p] }
        }

        /// Interleaves the bits of the scaled coordinates (a Morton code).
        func zOrder(_ px: Double, _ py: Double) -> Int32 {
            guard let h = hash else { return 0 }
            var a = UInt32(max(0, (px - h.minX) * h.invSize)), b = UInt32(max(0, (py - h.minY) * h.invSize))
            a = (a | (a << 8)) & 0x00FF_00FF; a = (a | (a << 4)) & 0x0F0F_0F0F; a = (a | (a << 2)) & 0x3333_3333; a = (a | (a << 1)) & 0x5555_5555
            b = (b | (b << 8)) & 0x00FF_00FF; b = (b | (b << 4)) & 0x0F0F_0F0F; b = (b | (b << 2)) & 0x3333_3333; b = (b | (b << 1)) & 0x5555_5555
            return Int32(bitPattern: a | (b << 1))
        }

        /// Links the ring's nodes in z order (prevZ/nextZ).
        mutating func indexCurve(_ start: Int) {
            var nodes = [Int]()
            var p = start
            repeat {
                if z[p] < 0 { z[p] = zOrder(x[p], y[p]) }
                nodes.append(p)
                p = next[p]
            } while p != start
            nodes.sort { z[$0] != z[$1] ? z[$0] < z[$1] : $0 < $1 }
            for (k, n) in nodes.enumerated() {
                prevZ[n] = k > 0 ? nodes[k - 1] : -1
                nextZ[n] = k + 1 < nodes.count ? nodes[k + 1] : -1
            }
        }

        func signedArea(_ start: Int, _ end: Int) -> Double {
            var s = 0.0
            var j = end - 1
            for i in start..<end {
                s += (points[j].x - points[i].x) * (points[i].y + points[j].y)
                j = i
            }
            return s
        }

        /// Links points[start..<end] in the requested orientation; removes a repeated closing point.
        mutating func linkedList(start: Int, end: Int, clockwise: Bool) -> Int? {
            guard end - start >= 3 else { return nil }
            var last: Int? = nil
            // signedArea > 0 means clockwise in a y-up plane.
            if clockwise == (signedArea(start, end) > 0) {
                for i in start..<end { last = insert(i, after: last) }
            } else {
                for i in stride(from: end - 1, through: start, by: -1) { last = insert(i, after: last) }
            }
            if let l = last, equals(l, next[l]) { let n = next[l]; remove(l); last = n }
            return last
        }

        @inline(__always) func equals(_ a: Int, _ b: Int) -> Bool { x[a] == x[b] && y[a] == y[b] }

        /// Twice the signed area of triangle p, q, r, with the sign convention of the linked rings.
        @inline(__always) func area(_ p: Int, _ q: Int, _ r: Int) -> Double {
            (y[q] - y[p]) * (x[r] - x[q]) - (x[q] - x[p]) * (y[r] - y[q])
        }

        @inline(__always)
        func pointInTriangle(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double,
                             _ px: Double, _ py: Double) -> Bool {
            (cx - px) * (ay - py) >= (ax - px) * (cy - py) &&
            (ax - px) * (by - py) >= (bx - px) * (ay - py) &&
            (bx - px) * (cy - py) >= (cx - px) * (by - py)
        }

        /// Removes repeated and collinear points between start and end.
        mutating func filterPoints(_ start: Int, _ end: Int? = nil) -> Int {
            var end = end ?? start
            var p = start
            var again: Bool
            repeat {
                again = false
                if !steiner[p] && (equals(p, next[p]) || area(prev[p], p, next[p]) == 0) {
                    remove(p)
                    p = prev[p]; end = p
                    if p == next[p] { break }
                    again = true
                } else {
                    p = next[p]
                }
            } while again || p != end
            return end
        }

        mutating func earcut(_ start: Int, pass: Int) {
            if pass == 0 && hash != nil { indexCurve(start) }
            var ear = start
            var stop = ear
            var guardSteps = 0
            while prev[ear] != next[ear] {
                guardSteps += 1
                if guardSteps > 10 * x.count * x.count + 1000 { return }   // invalid input: never loop
                let p = prev[ear], n = next[ear]
                if hash != nil ? isEarHashed(ear) : isEar(ear) {
                    triangles.append(UInt32(index[p])); triangles.append(UInt32(index[ear])); triangles.append(UInt32(index[n]))
                    remove(ear)
                    ear = next[n]; stop = next[n]
                    continue
                }
                ear = n
                if ear == stop {
                    // No ear in a whole round.
                    switch pass {
                    case 0: earcut(filterPoints(ear), pass: 1)
                    case 1:
                        let cured = cureLocalIntersections(filterPoints(ear))
                        earcut(cured, pass: 2)
                    default: splitEarcut(ear)
                    }
                    return
                }
            }
        }

        func isEar(_ e: Int) -> Bool {
            let a = prev[e], b = e, c = next[e]
            if area(a, b, c) >= 0 { return false }   // reflex or degenerate
            let ax = x[a], ay = y[a], bx = x[b], by = y[b], cx = x[c], cy = y[c]
            let minX = min(ax, bx, cx), maxX = max(ax, bx, cx), minY = min(ay, by, cy), maxY = max(ay, by, cy)
            var p = next[c]
            while p != a {
                if x[p] >= minX && x[p] <= maxX && y[p] >= minY && y[p] <= maxY &&
                    
                    pointInTriangle(ax, ay, bx, by, cx, cy, x[p], y[p]) && area(prev[p], p, next[p]) >= 0 {
                    return false
                }
                p = next[p]
            }
            return true
        }

        /// The ear test for large polygons: only vertices whose z-order code lies
        /// within the triangle's box are looked at, walking both ways from the ear.
        func isEarHashed(_ e: Int) -> Bool {
            let a = prev[e], b = e, c = next[e]
            if area(a, b, c) >= 0 { return false }
            let ax = x[a], ay = y[a], bx = x[b], by = y[b], cx = x[c], cy = y[c]
            let minX = min(ax, bx, cx), maxX = max(ax, bx, cx), minY = min(ay, by, cy), maxY = max(ay, by, cy)
            let minZ = zOrder(minX, minY), maxZ = zOrder(maxX, maxY)
            func blocks(_ p: Int) -> Bool {
                p != a && p != c && x[p] >= minX && x[p] <= maxX && y[p] >= minY && y[p] <= maxY &&
                    pointInTriangle(ax, ay, bx, by, cx, cy, x[p], y[p]) && area(prev[p], p, next[p]) >= 0
            }
            var p = prevZ[e], n = nextZ[e]
            while p >= 0 && z[p] >= minZ && n >= 0 && z[n] <= maxZ {
                if blocks(p) { return false }
                p = prevZ[p]
                if blocks(n) { return false }
                n = nextZ[n]
            }
            while p >= 0 && z[p] >= minZ { if blocks(p) { return false }; p = prevZ[p] }
            while n >= 0 && z[n] <= maxZ { if blocks(n) { return false }; n = nextZ[n] }
            return true
        }

        /// Cuts off triangles at local self-intersections (a–b crossing c–d with b, c adjacent).
        mutating func cureLocalIntersections(_ start: Int) -> Int {
            var s = start
            var p = start
            var steps = 0
            repeat {
                steps += 1
                let a = prev[p], b = next[next[p]]
                if !equals(a, b) && intersects(a, p, next[p], b) && locallyInside(a, b) && locallyInside(b, a) {
                    triangles.append(UInt32(index[a])); triangles.append(UInt32(index[p])); triangles.append(UInt32(index[b]))
                    remove(p); remove(next[p])
                    p = b; s = b
                }
                p = next[p]
            } while p != s && steps < 4 * x.count
            return filterPoints(p)
        }

        /// Splits the polygon along a valid diagonal and triangulates both halves.
        mutating func splitEarcut(_ start: Int) {
            var a = start
            repeat {
                var b = next[next[a]]
                while b != prev[a] {
                    if index[a] != index[b] && isValidDiagonal(a, b) {
                        var c = splitPolygon(a, b)
                        let a2 = filterPoints(a, next[a])
                        c = filterPoints(c, next[c])
                        earcut(a2, pass: 0)
                        earcut(c, pass: 0)
                        return
                    }
                    b = next[b]
                }
                a = next[a]
            } while a != start
        }

        func sign(_ v: Double) -> Int { v > 0 ? 1 : (v < 0 ? -1 : 0) }

        func onSegment(_ p: Int, _ q: Int, _ r: Int) -> Bool {
            x[q] <= max(x[p], x[r]) && x[q] >= min(x[p], x[r]) && y[q] <= max(y[p], y[r]) && y[q] >= min(y[p], y[r])
        }

        func intersects(_ p1: Int, _ q1: Int, _ p2: Int, _ q2: Int) -> Bool {
            let o1 = sign(area(p1, q1, p2)), o2 = sign(area(p1, q1, q2)), o3 = sign(area(p2, q2, p1)), o4 = sign(area(p2, q2, q1))
            if o1 != o2 && o3 != o4 { return true }
            if o1 == 0 && onSegment(p1, p2, q1) { return true }
            if o2 == 0 && onSegment(p1, q2, q1) { return true }
            if o3 == 0 && onSegment(p2, p1, q2) { return true }
            if o4 == 0 && onSegment(p2, q1, q2) { return true }
            return false
        }

        func intersectsPolygon(_ a: Int, _ b: Int) -> Bool {
            var p = a
            repeat {
                let n = next[p]
                if index[p] != index[a] && index[n] != index[a] && index[p] != index[b] && index[n] != index[b] && intersects(p, n, a, b) {
                    return true
                }
                p = n
            } while p != a
            return false
        }

        func locallyInside(_ a: Int, _ b: Int) -> Bool {
            area(prev[a], a, next[a]) < 0
                ? area(a, b, next[a]) >= 0 && area(a, prev[a], b) >= 0
                : area(a, b, prev[a]) < 0 || area(a, next[a], b) < 0
        }

        func middleInside(_ a: Int, _ b: Int) -> Bool {
            var p = a
            var inside = false
            let px = (x[a] + x[b]) / 2, py = (y[a] + y[b]) / 2
            repeat {
                let n = next[p]
                if (y[p] > py) != (y[n] > py) && y[n] != y[p] && px < (x[n] - x[p]) * (py - y[p]) / (y[n] - y[p]) + x[p] {
                    inside.toggle()
                }
                p = n
            } while p != a
            return inside
        }

        func isValidDiagonal(_ a: Int, _ b: Int) -> Bool {
            index[next[a]] != index[b] && index[prev[a]] != index[b] && !intersectsPolygon(a, b) &&
            ((locallyInside(a, b) && locallyInside(b, a) && middleInside(a, b) &&
              (area(prev[a], a, prev[b]) != 0 || area(a, prev[b], b) != 0)) ||
             (equals(a, b) && area(prev[a], a, next[a]) > 0 && area(prev[b], b, next[b]) > 0))
        }

        /// Links a to b with two new nodes so the ring splits into two; returns the copy of b.
        mutating func splitPolygon(_ a: Int, _ b: Int) -> Int {
            let a2 = x.count
            x.append(x[a]); y.append(y[a]); index.append(index[a]); steiner.append(steiner[a]); prev.append(0); next.append(0)
            let b2 = x.count
            x.append(x[b]); y.append(y[b]); index.append(index[b]); steiner.append(steiner[b]); prev.append(0); next.append(0)
            if hash != nil { z += [-1, -1]; prevZ += [-1, -1]; nextZ += [-1, -1] }
            let an = next[a], bp = prev[b]
            next[a] = b; prev[b] = a
            next[a2] = an; prev[an] = a2
            next[b2] = a2; prev[a2] = b2
            next[bp] = b2; prev[b2] = bp
            return b2
        }

        // MARK: holes

        mutating func eliminateHoles(starts: [Int], total: Int, outer: Int) -> Int {
            var queue = [Int]()
            for h in 1..<starts.count {
                let s = starts[h], e = h + 1 < starts.count ? starts[h + 1] : total
                guard let list = linkedList(start: s, end: e, clockwise: false) else { continue }
                if list == next[list] { steiner[list] = true }
                queue.append(leftmost(list))
            }
            queue.sort { x[$0] != x[$1] ? x[$0] < x[$1] : y[$0] < y[$1] }
            var outerNode = outer
            for h in queue {
                outerNode = eliminateHole(h, outerNode)
            }
            return outerNode
        }

        func leftmost(_ start: Int) -> Int {
            var p = start, best = start
            repeat {
                if x[p] < x[best] || (x[p] == x[best] && y[p] < y[best]) { best = p }
                p = next[p]
            } while p != start
            return best
        }

        mutating func eliminateHole(_ hole: Int, _ outer: Int) -> Int {
            guard let bridge = findHoleBridge(hole, outer) else { return outer }
            let b2 = splitPolygon(bridge, hole)
            _ = filterPoints(b2, next[b2])
            return filterPoints(bridge, next[bridge])
        }

        /// A vertex of the outer ring the hole's leftmost point can see: cast a ray
        /// to the left, take the nearest edge it hits, then the best-placed vertex
        /// inside the triangle it spans.
        func findHoleBridge(_ hole: Int, _ outer: Int) -> Int? {
            var p = outer
            let hx = x[hole], hy = y[hole]
            var qx = -Double.infinity
            var m: Int? = nil
            repeat {
                let n = next[p]
                if hy <= y[p] && hy >= y[n] && y[n] != y[p] {
                    let ix = x[p] + (hy - y[p]) * (x[n] - x[p]) / (y[n] - y[p])
                    if ix <= hx && ix > qx {
                        qx = ix
                        m = x[p] < x[n] ? p : n
                        if ix == hx { return m }   // the hole touches the outer ring here
                    }
                }
                p = n
            } while p != outer
            guard var best = m else { return nil }
            let stop = best
            let mx = x[best], my = y[best]
            var tanMin = Double.infinity
            p = best
            repeat {
                if hx >= x[p] && x[p] >= mx && hx != x[p] &&
                    pointInTriangle(hy < my ? hx : qx, hy, mx, my, hy < my ? qx : hx, hy, x[p], y[p]) {
                    let tan = abs(hy - y[p]) / (hx - x[p])
                    if locallyInside(p, hole) && (tan < tanMin || (tan == tanMin && (x[p] > x[best] || (x[p] == x[best] && sectorContainsSector(best, p))))) {
                        best = p; tanMin = tan
                    }
                }
                p = next[p]
            } while p != stop
            return best
        }

        func sectorContainsSector(_ m: Int, _ p: Int) -> Bool {
            area(prev[m], m, prev[p]) < 0 && area(next[p], m, next[m]) < 0
        }
    }
}
