/// A WGS84 position in degrees. The only coordinate space readers produce.
///
/// Projected spaces (Web Mercator metres, tile pixels) live in TileGeometry as
/// their own types so that mixing spaces fails to compile.
public struct LonLat: Hashable, Sendable, CustomStringConvertible {
    public var lon: Double
    public var lat: Double

    public init(lon: Double, lat: Double) {
        self.lon = lon
        self.lat = lat
    }

    /// True when the position is finite and inside WGS84 ranges.
    public var isValidWGS84: Bool {
        lon.isFinite && lat.isFinite && lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90
    }

    public var description: String { "(\(lon), \(lat))" }
}

/// An axis-aligned box in lon/lat degrees.
public struct LonLatBounds: Hashable, Sendable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west; self.south = south; self.east = east; self.north = north
    }

    public static let empty = LonLatBounds(west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)

    public var isEmpty: Bool { west > east || south > north }

    public var center: LonLat { LonLat(lon: (west + east) / 2, lat: (south + north) / 2) }

    public mutating func extend(_ p: LonLat) {
        west = min(west, p.lon); east = max(east, p.lon)
        south = min(south, p.lat); north = max(north, p.lat)
    }

    public mutating func extend(_ b: LonLatBounds) {
        guard !b.isEmpty else { return }
        west = min(west, b.west); east = max(east, b.east)
        south = min(south, b.south); north = max(north, b.north)
    }
}
