import Foundation
import VenueModel

/// A position in Web Mercator (EPSG:3857) metres.
public struct MercatorPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// An axis-aligned box in Web Mercator metres (y grows north).
public struct MercatorRect: Hashable, Sendable {
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    public static let empty = MercatorRect(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
    public var isEmpty: Bool { minX > maxX || minY > maxY }
    public mutating func extend(_ p: MercatorPoint) {
        minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
    }
    public mutating func extend(_ r: MercatorRect) {
        minX = min(minX, r.minX); maxX = max(maxX, r.maxX); minY = min(minY, r.minY); maxY = max(maxY, r.maxY)
    }
    public func expanded(by d: Double) -> MercatorRect {
        MercatorRect(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d)
    }
    public func contains(_ p: MercatorPoint) -> Bool {
        p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY
    }
    public func intersects(_ r: MercatorRect) -> Bool {
        minX <= r.maxX && r.minX <= maxX && minY <= r.maxY && r.minY <= maxY
    }
}

/// Spherical Web Mercator as used by every XYZ tile scheme.
public enum WebMercator {
    public static let earthRadius = 6_378_137.0
    /// Half the width of the projected world: π·R.
    public static let originShift = Double.pi * earthRadius
    /// Latitude at which the projected world is square.
    public static let maxLatitude = 85.051_128_779_806_59

    public static func project(_ p: LonLat) -> MercatorPoint {
        let lat = min(max(p.lat, -maxLatitude), maxLatitude)
        let x = p.lon * Double.pi / 180 * earthRadius
        let y = log(tan(Double.pi / 4 + lat * Double.pi / 360)) * earthRadius
        return MercatorPoint(x: x, y: y)
    }

    public static func unproject(_ m: MercatorPoint) -> LonLat {
        let lon = m.x / earthRadius * 180 / Double.pi
        let lat = (2 * atan(exp(m.y / earthRadius)) - Double.pi / 2) * 180 / Double.pi
        return LonLat(lon: lon, lat: lat)
    }

    /// Width of one tile at `zoom`, in metres.
    public static func tileSpan(zoom: Int) -> Double {
        2 * originShift / Double(Int64(1) << Int64(zoom))
    }

    /// Ground metres per pixel at the equator for a tile of `tileSize` pixels.
    public static func metresPerPixel(zoom: Int, tileSize: Int) -> Double {
        tileSpan(zoom: zoom) / Double(tileSize)
    }
}
