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
/// outline (drawn as the building layer). A level between whole floors (`0.5`,
/// a mezzanine) is a floor of its own (`Level.fraction`, floor id `floor_0_5`).
/// Level values are range-checked before any arithmetic (`OSMLevels`).
///
/// The venue's name is that of the named feature without a level that
/// encloses the most of the others (the mall), not of any shop.
public struct IndoorGeoJSONReader {
    /// The credit OpenStreetMap's licence (ODbL) requires on tiles made from its data.
    public static let osmAttribution = "© OpenStreetMap contributors"
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
        // A room's amenity (restaurant, cafe, ...) says what it is where no room tag does.
        if indoor == "room" || room != nil || t["shop"] != nil { return (.room, t["shop"].map { "shop.\($0)" } ?? room ?? amenity ?? "room") }
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
        var names = VenueNameCandidates()
        var used = Set<Int>()
        for (i, (file, f)) in raw.enumerated() {
            let t = IndoorGeoJSONReader.tags(f.properties)
            let id = f.id ?? t["id"] ?? "#\(i)"
            guard let g = f.geometry else { diagnostics.warn(file, id, "skipped: no geometry"); continue }
            guard let levelValue = t[levelProperty] else {
                if g.isAreal { names.add(IndoorGeoJSONReader.name(t), g, building: t["building"] != nil) }
                if t["building"] != nil || t["building:part"] != nil, g.isAreal {
                    if t["building"] != nil { buildings.append(Building(id: id, name: IndoorGeoJSONReader.name(t), category: t["building"]!, displayPoint: nil)) }
                    sink.add(Feature(id: id, featureClass: .building, category: t["building"] ?? "building:part", levelID: nil,
                                     buildingID: t["building"] != nil ? id : nil, name: IndoorGeoJSONReader.name(t), geometry: g),
                             file: file, diagnostics: &diagnostics)
                } else {
                    diagnostics.warn(file, id, "skipped: no \"\(levelProperty)\" property, so no floor to put it on")
                }
                continue
            }
            var floors: [Int]
            switch OSMLevels.parse(levelValue) {
            case .floors(let v): floors = v
            case .unreadable(let why):
                diagnostics.warn(file, id, "skipped: \(levelProperty)=\"\(IndoorGeoJSONReader.clip(levelValue))\": \(why)"); continue
            }
            if let r = t["repeat_on"] {
                switch OSMLevels.parse(r) {
                case .floors(let extra) where Set(floors + extra).count <= OSMLevels.maxFloorsPerFeature:
                    floors = Array(Set(floors + extra)).sorted()
                case .floors:
                    diagnostics.warn(file, id, "repeat_on ignored: with \(levelProperty) it names more than \(OSMLevels.maxFloorsPerFeature) floors")
                case .unreadable(let why):
                    diagnostics.warn(file, id, "repeat_on=\"\(IndoorGeoJSONReader.clip(r))\" ignored: \(why)")
                }
            }
            guard let (cls, category) = classify(t, g) else {
                diagnostics.notice(file, "feature \(id): no indoor meaning recognised; not drawn")
                continue
            }
            guard let repaired = GeometryRepair.repair(g, file: file, featureID: id, diagnostics: &diagnostics) else { continue }
            for v in floors {
                if cls == .levelOutline { outlines[v, default: []].append(repaired); continue }
                used.insert(v)
                sink.add(Feature(id: id, featureClass: cls, category: category, levelID: IndoorGeoJSONReader.levelID(v),
                                 name: IndoorGeoJSONReader.name(t), geometry: repaired),
                         file: file, repaired: true, diagnostics: &diagnostics)
            }
        }
        try diagnostics.throwIfErrors()
        let values = used.union(outlines.keys)
        guard !values.isEmpty else {
            throw VenueFormatError(file: location, problem: "no feature with a usable \"\(levelProperty)\" property: nothing to put on a floor")
        }
        let levels = values.sorted().map { v -> Level in
            let outline: Geometry? = outlines[v].flatMap { gs in
                let polys = gs.flatMap(\.polygons)
                return polys.isEmpty ? nil : (polys.count == 1 ? .polygon(polys[0]) : .multiPolygon(polys))
            }
            let (ordinal, fraction) = OSMLevels.place(v)
            return Level(id: IndoorGeoJSONReader.levelID(v), ordinal: ordinal, fraction: fraction,
                         name: LocalizedName(["und": "Level \(OSMLevels.text(v))"]),
                         shortName: LocalizedName(["und": OSMLevels.text(v)]), outdoor: false, buildingIDs: [], category: "unspecified",
                         geometry: outline)
        }
        let venueName = names.best(enclosing: sink.features.filter { $0.levelID != nil }) ?? LocalizedName(["und": venueID])
        let features = sink.finish(reference: nil, levels: levels, location: location, diagnostics: &diagnostics)
        return Venue(id: venueID, name: venueName, category: "unspecified", language: "und", displayPoint: nil, geometry: nil,
                     buildings: buildings, levels: levels, features: features)
    }

    /// A level id from the level in millionths: `level:0`, `level:-1`, `level:0.5`.
    static func levelID(_ value: Int) -> String { "level:\(OSMLevels.text(value))" }

    /// A value as a message quotes it: at most 40 characters (a list of 100,000 levels is not repeated whole).
    static func clip(_ s: String) -> String { s.count <= 40 ? s : String(s.prefix(40)) + "…" }
}

/// Level-value parsing, exposed for tests: whole floors only (nil for a list
/// with a level between floors, or one that cannot be read).
public enum IndoorGeoJSONReaderProbe {
    public static func levels(_ value: String) -> [Int]? {
        guard case .floors(let v) = OSMLevels.parse(value), v.allSatisfy({ $0 % Floor.fractionScale == 0 }) else { return nil }
        return v.map { $0 / Floor.fractionScale }
    }
}

/// Named areal features without a level: the venue (a mall drawn as
/// `shop=mall`, a building) is the one that encloses the most of the venue's
/// features. A shop or restaurant with a name and no level (OSM maps small
/// stand-alone buildings that way) encloses none and is never picked over it.
struct VenueNameCandidates {
    private var items: [(name: LocalizedName, geometry: Geometry, building: Bool)] = []

    mutating func add(_ name: LocalizedName, _ g: Geometry, building: Bool) {
        if !name.isEmpty { items.append((name, g, building)) }
    }

    /// The name of the candidate whose polygons hold the most feature centres
    /// (ties: the larger box, then the earlier); nil when none holds any:
    /// then the largest named building, else nil.
    func best(enclosing features: [Feature]) -> LocalizedName? {
        let centres = features.map { $0.geometry.bounds.center }
        var best: (count: Int, size: Double, index: Int)?
        for (i, c) in items.enumerated() {
            let b = c.geometry.bounds
            let exteriors = c.geometry.polygons.map { RingIndex($0.exterior) }
            var n = 0
            for p in centres where b.west <= p.lon && p.lon <= b.east && b.south <= p.lat && p.lat <= b.north {
                if exteriors.contains(where: { $0.side(of: p) != .outside }) { n += 1 }
            }
            let size = (b.east - b.west) * (b.north - b.south)
            if n > 0, best.map({ (n, size) > ($0.count, $0.size) }) ?? true { best = (n, size, i) }
        }
        if let best { return items[best.index].name }
        return items.filter(\.building).max { a, b in
            let x = a.geometry.bounds, y = b.geometry.bounds
            return (x.east - x.west) * (x.north - x.south) < (y.east - y.west) * (y.north - y.south)
        }?.name
    }
}
