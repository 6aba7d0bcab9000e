import TileGeometry
import VenueModel

/// Organises the rings of a Polygon or MultiPolygon by containment (see the
/// table in `GeometryRepair`). All rings go into one pool; each ring's parent
/// is the smallest ring that contains it; an outermost ring is an exterior, a
/// ring inside an exterior of its own part is its hole, a ring inside a hole
/// is an exterior again (an island). Only rings that cross are dropped.
struct RingOrganizer {
    private var rings: [[LonLat]] = []
    /// The input polygon and the ring's place in it, for messages.
    private var part: [Int] = [], local: [Int] = []
    private let multi: Bool
    private var area: [Double] = []
    private var boxes: [Box] = [], boxArea: [Double] = []
    /// Rings with all positions on one line: they enclose nothing.
    private var flat: [Bool] = []
    /// Why a ring is dropped (nil: kept), and the position the reason points at.
    private var dropped: [String?] = []
    private var parent: [Int] = []
    private var indexes: [Int: RingIndex] = [:]

    init(_ polygons: [Polygon], multi: Bool) {
        self.multi = multi
        for (p, poly) in polygons.enumerated() {
            for (k, r) in poly.rings.enumerated() {
                rings.append(r); part.append(p); local.append(k)
                area.append(GeometryRepair.signedArea(r))
                var b = LonLatBounds.empty
                for p in r { b.extend(p) }
                boxes.append(Box(minX: b.west, minY: b.south, maxX: b.east, maxY: b.north))
                boxArea.append((b.east - b.west) * (b.north - b.south))
            }
        }
        flat = Array(repeating: false, count: rings.count)
        dropped = Array(repeating: nil, count: rings.count)
        parent = Array(repeating: -1, count: rings.count)
    }

    private func label(_ r: Int) -> String { multi ? "polygon \(part[r]) ring \(local[r])" : "ring \(local[r])" }

    mutating func run(file: String, featureID: String, diagnostics: inout Diagnostics) -> Geometry? {
        for r in rings.indices {
            let ring = rings[r]
            if ring.allSatisfy({ GeometryRepair.orient(ring[0], ring[1], $0) == 0 }) {
                flat[r] = true
                dropped[r] = "has zero area (all positions on one line)"
            }
        }
        findCrossings()
        // A ring of zero area that is not flat crosses itself (a bow tie whose
        // lobes cancel); in case rounding hid the crossing, it is dropped here.
        for r in rings.indices where dropped[r] == nil && area[r] == 0 { dropped[r] = "has zero area" }
        findParents()
        let (roles, insideDropped) = assignRoles()
        return assemble(roles, insideDropped, file: file, featureID: featureID, diagnostics: &diagnostics)
    }

    /// The order in which rings can contain one another: a container's box
    /// holds the box of what it contains, and when the boxes are equal its
    /// area is the larger. Used both to pick the smallest container and to
    /// treat parents before children.
    private func larger(_ a: Int, _ b: Int) -> Bool {
        (boxArea[a], abs(area[a]), -a) > (boxArea[b], abs(area[b]), -b)
    }

    /// Rings crossing themselves are dropped; of two rings crossing each other,
    /// the smaller. Positions are the first crossing in (lon, lat) order.
    private mutating func findCrossings() {
        var first = [Int: LonLat]()      // ring pair a * count + b → first crossing
        let n = rings.count
        GeometryRepair.crossings(rings.indices.map { flat[$0] ? [] : rings[$0] }) { a, b, h in
            let k = a * n + b
            if let f = first[k], (f.lon, f.lat) <= (h.lon, h.lat) { return }
            first[k] = h
        }
        for k in first.keys.sorted() where k / n == k % n {
            dropped[k / n] = "crosses itself at \(GeometryRepair.rounded(first[k]!)) (edges cross; cannot be repaired safely)"
        }
        for k in first.keys.sorted() where k / n != k % n {
            let a = k / n, b = k % n
            guard dropped[a] == nil, dropped[b] == nil else { continue }
            let small = abs(area[b]) <= abs(area[a]) ? b : a, big = small == a ? b : a
            dropped[small] = "crosses \(label(big)) at \(GeometryRepair.rounded(first[k]!)); dropped the smaller of the two"
        }
    }

    /// Each ring's smallest container. Candidates are the pairs whose boxes
    /// overlap (`BoxPairs`), kept when the larger box holds the smaller.
    private mutating func findParents() {
        let live = rings.indices.filter { !flat[$0] }
        var duplicateOf = [Int: Int]()
        BoxPairs.forEach(live.map { boxes[$0] }) { i, j in
            let (big, small) = larger(live[i], live[j]) ? (live[i], live[j]) : (live[j], live[i])
            guard boxes[big].contains(boxes[small]) else { return true }
            switch inside(small, big) {
            case .inside?:
                if parent[small] < 0 || larger(parent[small], big) { parent[small] = big }
            case .boundary?:
                if duplicateOf[small].map({ big < $0 }) ?? true { duplicateOf[small] = big }
            default: break
            }
            return true
        }
        for (r, of) in duplicateOf.sorted(by: { $0.key < $1.key }) where dropped[r] == nil { dropped[r] = "repeats \(label(of))" }
    }

    /// Whether ring `small` lies inside ring `big`, judged at the first of its
    /// vertices (then edge middles) that is not on `big`'s boundary; `.boundary`
    /// when all of them are (the same ring twice). Rings here do not cross.
    private mutating func inside(_ small: Int, _ big: Int) -> RingSide? {
        if indexes[big] == nil { indexes[big] = RingIndex(rings[big]) }
        let index = indexes[big]!
        let r = rings[small]
        for p in r.dropLast() {
            let s = index.side(of: p)
            if s != .boundary { return s }
        }
        for i in 0..<(r.count - 1) {
            let m = LonLat(lon: (r[i].lon + r[i + 1].lon) / 2, lat: (r[i].lat + r[i + 1].lat) / 2)
            let s = index.side(of: m)
            if s != .boundary { return s }
        }
        return .boundary
    }
}

extension RingOrganizer {
    enum Role { case exterior, hole, dropped }

    /// Roles in order of decreasing area (a parent before its children). A
    /// ring inside a dropped ring of its own polygon goes with it (its meaning
    /// was relative to it); inside a dropped ring of another part, it is judged
    /// against the next ring out. Returns, per dropped ring, how many went with it.
    private mutating func assignRoles() -> ([Role], [Int: Int]) {
        var role = [Role](repeating: .dropped, count: rings.count)
        var effective = [Int](repeating: -1, count: rings.count)
        var withIt = [Int: Int](), carrier = [Int: Int]()
        let order = rings.indices.sorted { larger($0, $1) }
        for r in order {
            if dropped[r] != nil { continue }
            var p = parent[r], root = -1
            while p >= 0 && role[p] == .dropped {
                if part[p] == part[r] { root = p; break }
                p = effective[p] >= 0 ? effective[p] : parent[p]
            }
            if root >= 0 {
                let top = carrier[root] ?? root
                carrier[r] = top
                withIt[top, default: 0] += 1
                dropped[r] = "inside a dropped ring"
                continue
            }
            effective[r] = p
            if p < 0 { role[r] = .exterior; continue }
            if part[p] == part[r] { role[r] = role[p] == .exterior ? .hole : .exterior; continue }
            if role[p] == .hole { role[r] = .exterior; continue }
            // A part inside another part's filled area: drawn even-odd it would punch a hole.
            dropped[r] = "lies inside polygon \(part[p]); dropped (the other polygon draws its area)"
        }
        for r in rings.indices where role[r] != .dropped { parent[r] = effective[r] }
        return (role, withIt)
    }

    /// The parts, each exterior in ring order with its holes in ring order;
    /// warnings for what was dropped, counted notices for routine repairs.
    private func assemble(_ role: [Role], _ withIt: [Int: Int], file: String, featureID: String,
                          diagnostics: inout Diagnostics) -> Geometry? {
        let onlyRing = rings.count == 1
        for r in rings.indices where role[r] == .dropped && dropped[r] != "inside a dropped ring" {
            let also = withIt[r].map { " (and \($0) ring\($0 == 1 ? "" : "s") inside it)" } ?? ""
            let what = dropped[r]!
            if onlyRing {
                let reason = what.hasPrefix("crosses itself at ") ? "self-intersection at " + what.dropFirst("crosses itself at ".count) : what
                diagnostics.warn(file, featureID, "skipped: \(reason.hasPrefix("has zero") ? "the exterior ring " + reason : reason)")
            } else if what.hasPrefix("lies inside") {
                diagnostics.warn(file, featureID, "polygon \(part[r]) \(what)\(also)")
            } else {
                let why = what.hasPrefix("crosses itself at ") ? "self-intersection at " + what.dropFirst("crosses itself at ".count) : what
                diagnostics.warn(file, featureID, "dropped \(label(r)): \(why.hasPrefix("has zero") ? "it " + why : why)\(also)")
            }
        }
        var out = [Polygon]()
        var partOf = [Int: Int]()
        for r in rings.indices where role[r] == .exterior {
            partOf[r] = out.count
            out.append(Polygon(rings: [oriented(r, ccw: true, file: file, diagnostics: &diagnostics)]))
            if local[r] != 0 { diagnostics.tally(file, "polygon rings outside the others kept as polygons of their own") }
        }
        for r in rings.indices where role[r] == .hole {
            out[partOf[parent[r]]!].rings.append(oriented(r, ccw: false, file: file, diagnostics: &diagnostics))
            if local[r] == 0 { diagnostics.tally(file, "polygons whose first ring lies inside another ring: rings reordered") }
        }
        if out.isEmpty {
            if !onlyRing { diagnostics.warn(file, featureID, "skipped: no ring left to draw") }
            return nil
        }
        return out.count == 1 ? .polygon(out[0]) : .multiPolygon(out)
    }

    private func oriented(_ r: Int, ccw: Bool, file: String, diagnostics: inout Diagnostics) -> [LonLat] {
        guard (area[r] > 0) != ccw else { return rings[r] }
        diagnostics.tally(file, "rings wound the wrong way reversed (RFC 7946 §3.1.6)")
        return rings[r].reversed()
    }
}
