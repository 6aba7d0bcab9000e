import Foundation
import VenueModel

/// One GeoJSON feature as read from a file, before any format-specific meaning.
struct RawFeature {
    var id: String?
    var properties: [String: Any]
    /// nil for `"geometry": null`.
    var geometry: Geometry?
}

/// Strict GeoJSON (RFC 7946) reading into VenueModel geometry.
///
/// Coordinates must be finite and inside WGS84 ranges; anything else is a
/// `VenueFormatError` naming the file and feature. Repairable ring problems
/// (unclosed rings, repeated points) are fixed and reported as warnings.
struct GeoJSONReader {
    let file: String
    var diagnostics: Diagnostics

    init(file: String, diagnostics: Diagnostics) {
        self.file = file
        self.diagnostics = diagnostics
    }

    static func parseJSON(_ data: Data, file: String) throws -> Any {
        do {
            return try JSONParser.parse(data)
        } catch let f as JSONParser.Failure {
            throw VenueFormatError(file: file, problem: "malformed JSON: \(f)")
        }
    }

    /// Reads a FeatureCollection. Features that cannot be repaired are skipped with a warning.
    mutating func features(_ data: Data) throws -> [RawFeature] {
        guard let root = try GeoJSONReader.parseJSON(data, file: file) as? [String: Any] else {
            throw VenueFormatError(file: file, problem: "expected a GeoJSON object at the top level")
        }
        guard root["type"] as? String == "FeatureCollection" else {
            throw VenueFormatError(file: file, problem: "expected \"type\": \"FeatureCollection\", found \(root["type"].map { "\($0)" } ?? "none")")
        }
        guard let list = root["features"] as? [Any] else {
            throw VenueFormatError(file: file, problem: "\"features\" is missing or not an array")
        }
        var out = [RawFeature]()
        out.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            guard let f = item as? [String: Any] else {
                diagnostics.error(file, "#\(i)", "feature is not an object")
                continue
            }
            let id = GeoJSONReader.idString(f["id"]) ?? GeoJSONReader.idString((f["properties"] as? [String: Any])?["id"])
            let label = id ?? "#\(i)"
            let props = f["properties"] as? [String: Any] ?? [:]
            var geometry: Geometry?
            if let g = f["geometry"], !JSONTypes.isNull(g) {
                do {
                    geometry = try self.geometry(g, feature: label)
                } catch let skip as SkipFeature {
                    diagnostics.warn(file, label, "skipped: \(skip.reason)")
                    continue
                } catch let bad as VenueFormatError {
                    // Listed, and reading goes on: the reader stops the venue once every error is known.
                    diagnostics.error(bad)
                    continue
                }
            }
            out.append(RawFeature(id: id, properties: props, geometry: geometry))
        }
        return out
    }

    /// A string, or a number as text (feature ids, tag values); nil otherwise.
    static func idString(_ v: Any?) -> String? {
        if let s = v as? String { return s }
        return JSONTypes.nsNumber(v)?.stringValue
    }

    /// A geometry that is well-formed JSON but unusable (e.g. a ring of two points).
    struct SkipFeature: Error { var reason: String }

    mutating func geometry(_ any: Any, feature: String) throws -> Geometry {
        guard let g = any as? [String: Any], let type = g["type"] as? String else {
            throw VenueFormatError(file: file, featureID: feature, problem: "geometry has no \"type\"")
        }
        let c = g["coordinates"]
        switch type {
        case "Point":
            return .point(try position(c, feature))
        case "MultiPoint":
            return .multiPoint(try positions(c, feature))
        case "LineString":
            let line = try lineString(c, feature)
            return .lineString(line)
        case "MultiLineString":
            guard let parts = c as? [Any] else { throw shape(feature, "MultiLineString") }
            return .multiLineString(try parts.map { try lineString($0, feature) })
        case "Polygon":
            return .polygon(try polygon(c, feature))
        case "MultiPolygon":
            guard let parts = c as? [Any] else { throw shape(feature, "MultiPolygon") }
            var polys = [Polygon]()
            for p in parts {
                do { polys.append(try polygon(p, feature)) } catch let s as SkipFeature {
                    diagnostics.warn(file, feature, "dropped one polygon of a MultiPolygon: \(s.reason)")
                }
            }
            guard !polys.isEmpty else { throw SkipFeature(reason: "MultiPolygon has no usable polygon") }
            return polys.count == 1 ? .polygon(polys[0]) : .multiPolygon(polys)
        default:
            throw VenueFormatError(file: file, featureID: feature, problem: "unsupported geometry type \"\(type)\"")
        }
    }

    private func shape(_ feature: String, _ type: String) -> VenueFormatError {
        VenueFormatError(file: file, featureID: feature, problem: "\(type) coordinates have the wrong nesting")
    }

    func position(_ any: Any?, _ feature: String) throws -> LonLat {
        guard let a = any as? [Any], a.count >= 2,
              let lon = JSONTypes.number(a[0]), let lat = JSONTypes.number(a[1]) else {
            throw VenueFormatError(file: file, featureID: feature, problem: "a position is not [longitude, latitude]: \(String(describing: any ?? "null").prefix(60))")
        }
        let p = LonLat(lon: lon, lat: lat)
        guard p.isValidWGS84 else {
            throw VenueFormatError(file: file, featureID: feature, problem: "coordinate \(p) is outside WGS84 ranges (lon −180…180, lat −90…90) or not finite")
        }
        return p
    }

    func positions(_ any: Any?, _ feature: String) throws -> [LonLat] {
        guard let a = any as? [Any] else {
            throw VenueFormatError(file: file, featureID: feature, problem: "expected an array of positions")
        }
        return try a.map { try position($0, feature) }
    }

    private func lineString(_ any: Any?, _ feature: String) throws -> [LonLat] {
        let pts = dedupe(try positions(any, feature))
        guard pts.count >= 2 else { throw SkipFeature(reason: "LineString has fewer than two distinct positions") }
        return pts
    }

    private mutating func polygon(_ any: Any?, _ feature: String) throws -> Polygon {
        guard let ringsAny = any as? [Any], !ringsAny.isEmpty else {
            throw SkipFeature(reason: "Polygon has no rings")
        }
        var rings = [[LonLat]]()
        for (i, r) in ringsAny.enumerated() {
            var ring = dedupe(try positions(r, feature))
            if let first = ring.first, ring.count > 1, first != ring.last! {
                diagnostics.warn(file, feature, "ring \(i) was not closed; closed it")
                ring.append(first)
            }
            if ring.count < 4 {
                if i == 0 { throw SkipFeature(reason: "exterior ring has fewer than three distinct positions") }
                diagnostics.warn(file, feature, "dropped hole \(i): fewer than three distinct positions")
                continue
            }
            rings.append(ring)
        }
        return Polygon(rings: rings)
    }

    /// Drops consecutive repeated positions (harmless, and they upset winding and clipping).
    private func dedupe(_ pts: [LonLat]) -> [LonLat] {
        var out = [LonLat]()
        out.reserveCapacity(pts.count)
        for p in pts where out.last != p { out.append(p) }
        return out
    }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ k: String) -> String? { self[k] as? String }

    /// An IMDF labels object (language → text), or nil when absent or null.
    func labels(_ k: String) -> LocalizedName {
        guard let m = self[k] as? [String: Any] else { return LocalizedName() }
        var out = [String: String]()
        for (lang, v) in m { if let s = v as? String { out[lang] = s } }
        return LocalizedName(out)
    }

    func stringArray(_ k: String) -> [String] {
        (self[k] as? [Any])?.compactMap { $0 as? String } ?? []
    }
}
