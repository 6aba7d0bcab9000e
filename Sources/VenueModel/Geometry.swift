/// A polygon as GeoJSON has it: the exterior ring first, then holes.
/// Rings are closed (first == last) once a reader has accepted them.
public struct Polygon: Hashable, Sendable {
    public var rings: [[LonLat]]
    public init(rings: [[LonLat]]) { self.rings = rings }
    public var exterior: [LonLat] { rings[0] }
    public var holes: ArraySlice<[LonLat]> { rings.dropFirst() }
}

/// The geometry kinds venue formats carry. Coordinates are WGS84.
public enum Geometry: Hashable, Sendable {
    case point(LonLat)
    case multiPoint([LonLat])
    case lineString([LonLat])
    case multiLineString([[LonLat]])
    case polygon(Polygon)
    case multiPolygon([Polygon])

    public var bounds: LonLatBounds {
        var b = LonLatBounds.empty
        forEachPosition { b.extend($0) }
        return b
    }

    public func forEachPosition(_ body: (LonLat) -> Void) {
        switch self {
        case .point(let p): body(p)
        case .multiPoint(let ps), .lineString(let ps): ps.forEach(body)
        case .multiLineString(let ls): ls.forEach { $0.forEach(body) }
        case .polygon(let p): p.rings.forEach { $0.forEach(body) }
        case .multiPolygon(let ps): ps.forEach { $0.rings.forEach { $0.forEach(body) } }
        }
    }

    /// Polygons of this geometry (empty for points and lines).
    public var polygons: [Polygon] {
        switch self {
        case .polygon(let p): return [p]
        case .multiPolygon(let ps): return ps
        default: return []
        }
    }

    public var isAreal: Bool {
        switch self {
        case .polygon, .multiPolygon: return true
        default: return false
        }
    }

    public var isPuntal: Bool {
        switch self {
        case .point, .multiPoint: return true
        default: return false
        }
    }
}
