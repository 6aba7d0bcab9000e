import Foundation
import VenueModel

/// A local East-North-Up frame in metres around an origin on the WGS84
/// ellipsoid: positions go through Earth-centred coordinates (ECEF) and are
/// rotated into the origin's tangent plane, so distances are true metres.
public struct LocalFrame: Sendable {
    public let origin: LonLat
    private let ox: Double, oy: Double, oz: Double
    private let sinLat: Double, cosLat: Double, sinLon: Double, cosLon: Double

    static let a = 6_378_137.0                  // WGS84 semi-major axis
    static let e2 = 6.694_379_990_14e-3         // first eccentricity squared

    public init(origin: LonLat) {
        self.origin = origin
        (ox, oy, oz) = LocalFrame.ecef(origin, height: 0)
        let lat = origin.lat * Double.pi / 180, lon = origin.lon * Double.pi / 180
        sinLat = sin(lat); cosLat = cos(lat); sinLon = sin(lon); cosLon = cos(lon)
    }

    static func ecef(_ p: LonLat, height: Double) -> (Double, Double, Double) {
        let lat = p.lat * Double.pi / 180, lon = p.lon * Double.pi / 180
        let n = a / (1 - e2 * sin(lat) * sin(lat)).squareRoot()
        return ((n + height) * cos(lat) * cos(lon), (n + height) * cos(lat) * sin(lon), (n * (1 - e2) + height) * sin(lat))
    }

    /// East and north of the origin, in metres (on the ellipsoid surface).
    public func planar(_ p: LonLat) -> PlanePoint {
        let (x, y, z) = LocalFrame.ecef(p, height: 0)
        let dx = x - ox, dy = y - oy, dz = z - oz
        let east = -sinLon * dx + cosLon * dy
        let north = -sinLat * cosLon * dx - sinLat * sinLon * dy + cosLat * dz
        return PlanePoint(x: east, y: north)
    }
}
