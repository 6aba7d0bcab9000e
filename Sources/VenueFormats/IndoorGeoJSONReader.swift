import Foundation
import VenueModel

/// Reads indoor floor plans from plain GeoJSON FeatureCollections (one file, or
/// every `.geojson`/`.json` file of a folder or zip).
///
/// Out of the box it understands OpenStreetMap Simple Indoor Tagging as
/// osmtogeojson exports it: tags flat in `properties` or nested under
/// `properties.tags`; `level` as a number or a string with `;` lists
/// (`"0;1"`: on both floors) and ranges (`"0-2"`); `repeat_on`;
/// `indoor=room|corridor|area|wall|level`, `room=*`, `shop=*`, `amenity=*`,
/// `highway=elevator|steps`, `door=*`/`entrance=*`; ids like `way/123`.
/// `levelProperty` and `categoryProperty` name other properties for other
/// exports (a category is then mapped like an IMDF unit category).
///
/// A feature without a level is reported and skipped, unless it is a building
/// outline (drawn as the building layer). Non-integer levels (`0.5`) are
/// reported and skipped: floors are integer ordinals.
public struct IndoorGeoJSONReader {
    public var levelProperty: String
    public var categoryProperty: String?
    public private(set) var diagnostics = Diagnostics()

    public var limits: ArchiveLimits

    public init(levelProperty: String = "level", categoryProperty: String? = nil, limits: ArchiveLimits = .default) {
        self.levelProperty = levelProperty
        self.categoryProperty = categoryProperty
        self.limits = limits
    }

    public mutating func read(path: String, venueID: String) throws -> Venue {
        if path.hasSuffix(".geojson") || path.hasSuffix(".json") {
            // One file: a bundle of its folder holding just that file.
            let url = URL(fileURLWithPath: path)
            guard FileManager.default.fileExists(atPath: path) else { throw VenueFormatError(file: path, problem: "no such file or folder") }
            return try read(DirectoryBundle(root: url.deletingLastPathComponent().path), only: url.lastPathComponent, venueID: venueID, location: path)
        }
        return try read(try openBundle(at: path, limits: limits), venueID: venueID, location: path)
    }

    /// Reads the `.geojson`/`.json` files of a bundle, or only the file `only`.
    public mutating func read(_ bundle: VenueBundle, only: String? = nil, venueID: String, location path: String) throws -> Venue {
        var files = [(name: String, display: String)]()
        if let only {
            files = [(only, bundle.describe(only))]
        } else {
            files = try bundle.fileNames().filter { $0.hasSuffix(".geojson") || $0.hasSuffix(".json") }
                .filter { !$0.hasPrefix("__MACOSX/") }.map { ($0, bundle.describe($0)) }
        }
        if files.isEmpty { throw VenueFormatError(file: path, problem: "no .geojson or .json file to read") }
        var raw = [(file: String, feature: RawFeature)]()
        for f in files {
            var r = GeoJSONReader(file: f.display, diagnostics: diagnostics)
            let feats = try r.features(try bundle.read(f.name))
            diagnostics = r.diagnostics
            raw += feats.map { (f.display, $0) }
        }
        return try build(raw, venueID: venueID, location: path)
    }

    /// Tags of a feature: `properties.tags` (nested osmtogeojson output) over flat properties.
    static func tags(_ p: [String: Any]) -> [String: String] {
        var out = [String: String]()
        func add(_ d: [String: Any]) {
            for (k, v) in d {
                if let s = GeoJSONReader.idString(v) { out[k] = s }
            }
        }
        add(p)
        if let nested = p["tags"] as? [String: Any] { add(nested) }
        return out
    }

    /// Parses an OSM level value into integer ordinals; nil when it cannot be read.
    static func levels(_ value: String) -> (ordinals: [Int], nonInteger: Bool)? {
        var out = [Int]()
        for part in value.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            if let n = Int(part) { out.append(n); continue }
            // A range "a-b"; either end may be negative ("-2--1").
            if let dash = part.dropFirst().firstIndex(of: "-"),
               let a = Int(part[..<dash]), let b = Int(part[part.index(after: dash)...]), a <= b, b - a < 200 {
                out += Array(a...b); continue
            }
            if Double(part) != nil { return (out, true) }
            return nil
        }
        return out.isEmpty ? nil : (Array(Set(out)).sorted(), false)
    }

    func classify(_ t: [String: String], _ g: Geometry) -> (FeatureClass, String)? {
        if let cp = categoryProperty {
            guard let c = t[cp] else { return nil }
            if g.isAreal { return (FeatureClass.imdfUnit(c), c) }
            return g.isPuntal ? (.amenity, c) : (.opening, c)
        }
        let indoor = t["indoor"], room = t["room"], amenity = t["amenity"], highway = t["highway"]
        if g.isPuntal {
            if let d = t["door"] ?? t["entrance"] { return (.amenity, t["entrance"] != nil ? "entrance" : "door.\(d)") }
            if highway == "elevator" { return (.amenity, "elevator") }
            if let a = amenity { return (.amenity, a) }
            if let s = t["shop"] { return (.amenity, "shop.\(s)") }
            return nil
        }
        if !g.isAreal {
            if indoor == "wall" || t["barrier"] == "wall" { return (.wall, "wall") }
            if t["door"] != nil || t["entrance"] != nil { return (.opening, "door") }
            if highway == "steps" { return (.stairs, "steps") }
            return nil
        }
        if indoor == "level" { return (.levelOutline, "level") }
        if highway == "elevator" || room == "elevator" { return (.elevator, "elevator") }
        if highway == "steps" || room == "stairs" || room == "steps" { return (.stairs, room ?? "steps") }
        if amenity == "toilets" || room == "toilets" || room == "toilet" { return (.restroom, "restroom") }
        if indoor == "corridor" || indoor == "area" || highway == "corridor" || highway == "footway" { return (.walkway, indoor ?? "walkway") }
        if indoor == "wall" || indoor == "column" { return (.nonPublic, indoor!) }
        if room == "disused" || t["shop"] == "vacant" { return (.otherRoom, "unspecified") }
        if room == "technical" || room == "storage" || t["access"] == "private" || t["access"] == "no" { return (.nonPublic, room ?? "nonpublic") }
        if indoor == "room" || room != nil || t["shop"] != nil { return (.room, t["shop"].map { "shop.\($0)" } ?? room ?? "room") }
        return nil
    }

    static func name(_ t: [String: String]) -> LocalizedName {
        var m = [String: String]()
        if let n = t["name"] { m["und"] = n }
        for (k, v) in t where k.hasPrefix("name:") { m[String(k.dropFirst(5))] = v }
        return LocalizedName(m)
    }

    mutating func build(_ raw: [(file: String, feature: RawFeature)], venueID: String, location: String) throws -> Venue {
        var sink = FeatureSink()
        var outlines = [Int: [Geometry]]()
        var buildings = [Building]()
        var venueName = LocalizedName()
        var largestBuilding = 0.0
        for (i, (file, f)) in raw.enumerated() {
            let t = IndoorGeoJSONReader.tags(f.properties)
            let id = f.id ?? t["id"] ?? "#\(i)"
            guard let g = f.geometry else { diagnostics.warn(file, id, "skipped: no geometry"); continue }
            let levelValue = t[levelProperty]
            if levelValue == nil {
                if t["building"] != nil || t["building:part"] != nil, g.isAreal {
                    let b = g.bounds
                    let size = (b.east - b.west) * (b.north - b.south)
                    if t["building"] != nil, !IndoorGeoJSONReader.name(t).isEmpty, size > largestBuilding {
                        largestBuilding = size; venueName = IndoorGeoJSONReader.name(t)
                    }
                    if t["building"] != nil { buildings.append(Building(id: id, name: IndoorGeoJSONReader.name(t), category: t["building"]!, displayPoint: nil)) }
                    sink.add(Feature(id: id, featureClass: .building, category: t["building"] ?? "building:part", levelID: nil,
                                     buildingID: t["building"] != nil ? id : nil, name: IndoorGeoJSONReader.name(t), geometry: g),
                             file: file, diagnostics: &diagnostics)
                } else {
                    diagnostics.warn(file, id, "skipped: no \"\(levelProperty)\" property, so no floor to put it on")
                }
                continue
            }
            guard let parsed = IndoorGeoJSONReader.levels(levelValue!) else {
                diagnostics.warn(file, id, "skipped: cannot read \(levelProperty)=\"\(levelValue!)\""); continue
            }
            if parsed.nonInteger {
                diagnostics.warn(file, id, "skipped: \(levelProperty)=\"\(levelValue!)\" is not an integer floor"); continue
            }
            var ordinals = parsed.ordinals
            if let r = t["repeat_on"], let extra = IndoorGeoJSONReader.levels(r), !extra.nonInteger {
                ordinals = Array(Set(ordinals + extra.ordinals)).sorted()
            }
            guard let (cls, category) = classify(t, g) else {
                diagnostics.notice(file, "feature \(id): no indoor meaning recognised; not drawn")
                continue
            }
            guard let repaired = GeometryRepair.repair(g, file: file, featureID: id, diagnostics: &diagnostics) else { continue }
            for o in ordinals {
                if cls == .levelOutline { outlines[o, default: []].append(repaired); continue }
                sink.add(Feature(id: id, featureClass: cls, category: category, levelID: IndoorGeoJSONReader.levelID(o),
                                 name: IndoorGeoJSONReader.name(t), geometry: repaired),
                         file: file, repaired: true, diagnostics: &diagnostics)
            }
        }
        try diagnostics.throwIfErrors()
        let ordinals = Set(sink.features.compactMap { $0.levelID }.compactMap { Int($0.dropFirst("level:".count)) }).union(outlines.keys)
        guard !ordinals.isEmpty else {
            throw VenueFormatError(file: location, problem: "no feature with a usable \"\(levelProperty)\" property: nothing to put on a floor")
        }
        let levels = ordinals.sorted().map { o -> Level in
            let outline: Geometry? = outlines[o].flatMap { gs in
                let polys = gs.flatMap(\.polygons)
                return polys.isEmpty ? nil : (polys.count == 1 ? .polygon(polys[0]) : .multiPolygon(polys))
            }
            return Level(id: IndoorGeoJSONReader.levelID(o), ordinal: o, name: LocalizedName(["und": "Level \(o)"]),
                         shortName: LocalizedName(["und": String(o)]), outdoor: false, buildingIDs: [], category: "unspecified",
                         geometry: outline)
        }
        if venueName.isEmpty { venueName = LocalizedName(["und": venueID]) }
        let features = sink.finish(reference: nil, levels: levels, location: location, diagnostics: &diagnostics)
        return Venue(id: venueID, name: venueName, category: "unspecified", language: "und", displayPoint: nil, geometry: nil,
                     buildings: buildings, levels: levels, features: features)
    }

    static func levelID(_ ordinal: Int) -> String { "level:\(ordinal)" }
}

/// Level-value parsing, exposed for tests.
public enum IndoorGeoJSONReaderProbe {
    public static func levels(_ value: String) -> [Int]? {
        guard let r = IndoorGeoJSONReader.levels(value), !r.nonInteger else { return nil }
        return r.ordinals
    }
}
