import Foundation
import VenueModel

/// Reads a Mappedin Venue Format bundle (a folder or a `.zip`), version 2 or 3,
/// into a `Venue`. The version is told by the files present, not by the
/// manifest's `contents` list, which bundles in the wild do not keep accurate.
///
/// How MVF maps onto the style spec's layers (the same classes as IMDF units
/// and fixtures):
///
/// | MVF | feature class (layer) |
/// |---|---|
/// | v2 space polygon, kind `room`/`space`/unset; v3 kind `room` | room (floor_rooms) |
/// | v2 space kind `hallway`; v3 kind `hallway` | walkway (floor_walkways) |
/// | v2 space of another kind; v3 polygon of an unknown kind | otherRoom (floor_other_rooms) |
/// | v3 kind `area` | section (not drawn, as the MVF default style says) |
/// | v2 obstruction polygon; v3 kind `object` | fixture (floor_fixtures) |
/// | v2 obstruction line or kind `wall`; v3 kind `wall` | wall (floor_walls) |
/// | v2 entrance line; v3 line without a kind, or a `door` connection's geometry | opening (floor_openings) |
/// | v2/v3 `stairs`/`escalator`/`elevator` connection: polygons it names | stairs / elevator |
/// | v2 connection nodes, v3 connection points | amenity points (floor_amenities), category = connection type |
/// | floor outline (v3 `floors.geojson` geometry) | levelOutline (floor_outlines) |
///
/// Floors are grouped by `elevation` the way IMDF levels are by ordinal (a
/// non-integer elevation is rounded, with a warning). Floor stacks become
/// buildings. v2 `styles.json` and v3 `default-style.json` colours, opacity,
/// heights and `hidden` become each feature's `sourcePaint`.
public struct MVFReader {
    public private(set) var diagnostics = Diagnostics()
    public var limits: ArchiveLimits

    public init(limits: ArchiveLimits = .default) { self.limits = limits }

    public mutating func read(path: String) throws -> Venue {
        try read(try openBundle(at: path, limits: limits))
    }

    public mutating func read(_ bundle: VenueBundle) throws -> Venue {
        guard let (all, prefix) = try bundle.datasetRoot(marker: "manifest.geojson") else {
            throw VenueFormatError(file: bundle.location, problem: "not an MVF bundle: manifest.geojson is missing")
        }
        let files = Set(all.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        var ctx = Context(bundle: bundle, prefix: prefix, files: files, diagnostics: diagnostics)
        defer { diagnostics = ctx.diagnostics }

        let manifest = try ctx.featureCollection("manifest.geojson")
        let m = manifest.first
        let name = (m?.properties["name"] as? String).map { LocalizedName(["und": $0]) } ?? LocalizedName()
        var displayPoint: LonLat?
        if case .point(let p)? = m?.geometry { displayPoint = p }
        let venueID = (m?.properties["id"] as? String) ?? (m?.properties["name"] as? String) ?? "mvf"

        let venue: Venue
        if files.contains("floors.geojson") {
            venue = try readV3(&ctx, venueID: venueID, name: name, displayPoint: displayPoint)
        } else if files.contains("floor.geojson") || files.contains("map.geojson") {
            venue = try readV2(&ctx, venueID: venueID, name: name, displayPoint: displayPoint)
        } else {
            throw VenueFormatError(file: bundle.describe(prefix + "floors.geojson"),
                                   problem: "required MVF file is missing (v3: floors.geojson; v2: floor.geojson or map.geojson)")
        }
        return venue
    }

    // MARK: - Version 3

    private func readV3(_ ctx: inout Context, venueID: String, name: LocalizedName, displayPoint: LonLat?) throws -> Venue {
        let floorsFile = ctx.describe("floors.geojson")
        var levels = [Level]()
        for f in try ctx.featureCollection("floors.geojson") {
            let details = f.properties["details"] as? [String: Any] ?? [:]
            guard let id = f.id ?? (f.properties["id"] as? String) else { ctx.diagnostics.warn(floorsFile, nil, "floor without id skipped"); continue }
            guard let elevation = ctx.ordinal(f.properties["elevation"], file: floorsFile, id: id) else { continue }
            let outline = FeatureSink.repairOutline(f.geometry.flatMap { $0.isAreal ? $0 : nil }, levelID: id, file: floorsFile, diagnostics: &ctx.diagnostics)
            levels.append(Level(id: id, ordinal: elevation, name: ctx.label(details["name"]) ?? ctx.label(f.properties["name"]) ?? LocalizedName(["und": id]),
                                shortName: ctx.label(details["shortName"]) ?? LocalizedName(), outdoor: false, buildingIDs: [],
                                category: "unspecified", geometry: outline))
        }
        let buildings = try ctx.floorStacks(["floor-stacks.json", "floorStacks.json"], levels: &levels)
        try ctx.requireLevels(levels, file: floorsFile)

        // Kinds: kinds/<floorId>.json (geometry id → kind), or one kinds.json keyed by floor.
        var kinds = [String: [String: String]]()
        if let all = try ctx.jsonObject("kinds.json") as? [String: Any] {
            for (floor, v) in all { if let m = v as? [String: Any] { kinds[floor] = m.compactMapValues { $0 as? String } } }
        }
        for l in levels {
            if let m = try ctx.jsonObject("kinds/\(l.id).json") as? [String: Any] { kinds[l.id] = m.compactMapValues { $0 as? String } }
        }

        // Connections: what a geometry is for (door, stairs, elevator), by floor and geometry id.
        var connectionType = [String: String]()
        if let list = try ctx.jsonArray("connections.json", key: "connections") {
            for (i, c) in list.enumerated() {
                guard let c = c as? [String: Any], let type = c["type"] as? String else {
                    ctx.diagnostics.warn(ctx.describe("connections.json"), "#\(i)", "connection without a type skipped"); continue
                }
                for end in ((c["entrances"] as? [Any]) ?? []) + ((c["exits"] as? [Any]) ?? []) {
                    if let e = end as? [String: Any], let g = e["geometryId"] as? String, let fl = e["floorId"] as? String {
                        connectionType[fl + "/" + g] = type
                    }
                }
            }
        }

        // Locations: the names shown as labels, anchored to geometries.
        var locationName = [String: LocalizedName]()
        if let list = try ctx.jsonArray("locations.json", key: "locations") {
            for item in list {
                guard let loc = item as? [String: Any], let n = ctx.label((loc["details"] as? [String: Any])?["name"]) else { continue }
                for a in (loc["geometryAnchors"] as? [Any]) ?? [] {
                    if let a = a as? [String: Any], let g = a["geometryId"] as? String, let fl = a["floorId"] as? String,
                       locationName[fl + "/" + g] == nil { locationName[fl + "/" + g] = n }
                }
            }
        }

        // default-style.json: named groups of geometry anchors with paint.
        var paint = [String: SourcePaint]()
        if let styles = try ctx.jsonObject("default-style.json") as? [String: Any] {
            for token in styles.keys.sorted() {
                guard let st = styles[token] as? [String: Any] else { continue }
                let sp = ctx.sourcePaint(st, file: ctx.describe("default-style.json"), entry: token)
                for a in (st["geometryAnchors"] as? [Any]) ?? [] {
                    if let a = a as? [String: Any], let g = a["geometryId"] as? String, let fl = a["floorId"] as? String {
                        paint[fl + "/" + g] = sp
                    }
                }
            }
        }

        var sink = FeatureSink()
        let buildingOf = MVFReader.buildingOf(levels)
        try Context.forEachFloorFeature(&ctx, "geometry", floors: levels, floorsFile: "floors.geojson") { ctx, ff in
            let (floorID, id, g) = (ff.floor, ff.id, ff.geometry)
            let key = floorID + "/" + id
            let kind = kinds[floorID]?[id]
            guard let (cls, category) = MVFReader.classifyV3(kind: kind, connection: connectionType[key], geometry: g) else {
                ctx.diagnostics.notice(ff.file, "feature \(id): kind \(kind ?? "none") on a \(g.isPuntal ? "point" : "line") is not drawn")
                return
            }
            let details = ff.feature.properties["details"] as? [String: Any] ?? [:]
            sink.add(Feature(id: id, featureClass: cls, category: category, levelID: floorID, buildingID: buildingOf[floorID],
                             name: locationName[key] ?? ctx.label(details["name"]) ?? LocalizedName(),
                             geometry: g, sourcePaint: paint[key]), file: ff.file, diagnostics: &ctx.diagnostics)
        }
        for l in levels where !ctx.files.contains("geometry/\(l.id).geojson") {
            ctx.diagnostics.warn(ctx.describe("geometry/\(l.id).geojson"), nil, "floor \(l.id) has no geometry file")
        }
        let features = sink.finish(reference: nil, levels: levels, location: floorsFile, diagnostics: &ctx.diagnostics)
        try ctx.diagnostics.throwIfErrors()
        return Venue(id: venueID, name: name, category: "unspecified", language: nil, displayPoint: displayPoint, geometry: nil,
                     buildings: buildings, levels: levels, features: features)
    }

    static func classifyV3(kind: String?, connection: String?, geometry g: Geometry) -> (FeatureClass, String)? {
        if let c = connection {
            switch c {
            case "door": if !g.isAreal { return (.opening, "door") }
            case "elevator": return g.isPuntal ? (.amenity, "elevator") : (.elevator, "elevator")
            case "stairs", "escalator", "ramp", "travelator", "ladder": return g.isPuntal ? (.amenity, c) : (.stairs, c)
            default: break
            }
        }
        switch kind {
        case "wall": return g.isPuntal ? nil : (.wall, "wall")
        case "room": return g.isAreal ? (.room, "room") : nil
        case "hallway": return g.isAreal ? (.walkway, "hallway") : nil
        case "object": return g.isAreal ? (.fixture, "object") : (g.isPuntal ? nil : (.wall, "object"))
        case "area": return g.isAreal ? (.section, "area") : nil
        case nil:
            // Door lines carry no kind; kind-less polygons are still rooms of some sort.
            if g.isPuntal { return nil }
            return g.isAreal ? (.otherRoom, "unspecified") : (.opening, "door")
        case let k?:
            return g.isAreal ? (.otherRoom, k) : nil
        }
    }

    /// Each floor's building (its first floor stack); the first floor of an id decides.
    static func buildingOf(_ levels: [Level]) -> [String: String] {
        var out = [String: String](), seen = Set<String>()
        for l in levels where seen.insert(l.id).inserted { out[l.id] = l.buildingIDs.first }
        return out
    }

    // MARK: - Version 2

    private func readV2(_ ctx: inout Context, venueID: String, name: LocalizedName, displayPoint: LonLat?) throws -> Venue {
        let floorName = ctx.files.contains("floor.geojson") ? "floor.geojson" : "map.geojson"
        let floorsFile = ctx.describe(floorName)
        var levels = [Level]()
        for f in try ctx.featureCollection(floorName) {
            guard let id = f.id ?? (f.properties["id"] as? String) else { ctx.diagnostics.warn(floorsFile, nil, "floor without id skipped"); continue }
            guard let elevation = ctx.ordinal(f.properties["elevation"], file: floorsFile, id: id) else { continue }
            let details = f.properties["details"] as? [String: Any] ?? [:]
            let outline = FeatureSink.repairOutline(f.geometry.flatMap { $0.isAreal ? $0 : nil }, levelID: id, file: floorsFile, diagnostics: &ctx.diagnostics)
            levels.append(Level(id: id, ordinal: elevation,
                                name: ctx.label(f.properties["name"]) ?? ctx.label(details["name"]) ?? LocalizedName(["und": id]),
                                shortName: ctx.label(f.properties["shortName"]) ?? ctx.label(details["shortName"]) ?? LocalizedName(),
                                outdoor: false, buildingIDs: [], category: "unspecified", geometry: outline))
        }
        let buildings = try ctx.floorStacks(["floorstack.json", "floorstack.geojson", "mapstack.geojson"], levels: &levels)
        try ctx.requireLevels(levels, file: floorsFile)

        // styles.json: { name: { color, opacity, height, polygons: [ids] } } (or a list of such entries).
        var paint = [String: SourcePaint]()
        if let root = try ctx.jsonObject("styles.json") {
            var entries = [(String, [String: Any])]()
            if let d = root as? [String: Any] { for k in d.keys.sorted() { if let e = d[k] as? [String: Any] { entries.append((k, e)) } } }
            else if let a = root as? [Any] { for (i, e) in a.enumerated() { if let e = e as? [String: Any] { entries.append(("#\(i)", e)) } } }
            for (key, e) in entries {
                let sp = ctx.sourcePaint(e, file: ctx.describe("styles.json"), entry: key)
                for id in (e["polygons"] as? [Any] ?? []).compactMap({ $0 as? String }) { paint[id] = sp }
            }
        }

        var sink = FeatureSink()
        let levelIDs = Set(levels.map(\.id))
        let buildingOf = MVFReader.buildingOf(levels)
        func perFloor(_ folder: String, _ classify: (String?, Geometry) -> (FeatureClass, String)?) throws {
            try Context.forEachFloorFeature(&ctx, folder, floors: levels, floorsFile: floorName) { ctx, ff in
                let p = ff.feature.properties
                guard let (cls, category) = classify(p["kind"] as? String, ff.geometry) else {
                    ctx.diagnostics.notice(ff.file, "feature \(ff.id): \(folder) of this shape is not drawn"); return
                }
                let details = p["details"] as? [String: Any] ?? [:]
                sink.add(Feature(id: ff.id, featureClass: cls, category: category, levelID: ff.floor, buildingID: buildingOf[ff.floor],
                                 name: ctx.label(details["name"]) ?? ctx.label(p["name"]) ?? LocalizedName(),
                                 geometry: ff.geometry, sourcePaint: paint[ff.id]), file: ff.file, diagnostics: &ctx.diagnostics)
            }
        }
        try perFloor("space") { kind, g in
            if g.isAreal {
                switch kind {
                case nil, "space", "room": return (.room, kind ?? "space")
                case "hallway": return (.walkway, "hallway")
                case let k?: return (.otherRoom, k)
                }
            }
            return g.isPuntal ? nil : (.wall, kind ?? "wall")
        }
        try perFloor("obstruction") { kind, g in
            if g.isPuntal { return nil }
            if kind == "wall" || !g.isAreal { return (.wall, kind ?? "wall") }
            return (.fixture, kind ?? "obstruction")
        }
        try perFloor("entrance") { _, g in g.isAreal || g.isPuntal ? nil : (.opening, "entrance") }

        // connection.json names nodes; node/<floorId>.geojson places them.
        if let list = try ctx.jsonArray("connection.json", key: nil) {
            var nodeType = [String: String]()
            for c in list {
                guard let c = c as? [String: Any], let type = c["type"] as? String else { continue }
                for n in (c["nodes"] as? [Any] ?? []).compactMap({ $0 as? String }) { nodeType[n] = type }
            }
            for file in ctx.files.sorted() where file.hasPrefix("node/") && file.hasSuffix(".geojson") && !nodeType.isEmpty {
                let floorID = String(file.dropFirst("node/".count).dropLast(".geojson".count))
                guard levelIDs.contains(floorID) else { continue }
                for f in try ctx.featureCollection(file) {
                    guard let id = f.id ?? (f.properties["id"] as? String), let type = nodeType[id], let g = f.geometry, g.isPuntal else { continue }
                    sink.add(Feature(id: id, featureClass: .amenity, category: type, levelID: floorID,
                                     buildingID: buildingOf[floorID], geometry: g),
                             file: ctx.describe(file), diagnostics: &ctx.diagnostics)
                }
            }
        }
        let features = sink.finish(reference: nil, levels: levels, location: floorsFile, diagnostics: &ctx.diagnostics)
        try ctx.diagnostics.throwIfErrors()
        return Venue(id: venueID, name: name, category: "unspecified", language: nil, displayPoint: displayPoint, geometry: nil,
                     buildings: buildings, levels: levels, features: features)
    }
}

/// The bundle, its root folder and the diagnostics while one MVF is read.
private struct Context {
    let bundle: VenueBundle
    let prefix: String
    let files: Set<String>
    var diagnostics: Diagnostics

    func describe(_ name: String) -> String { bundle.describe(prefix + name) }

    mutating func featureCollection(_ name: String) throws -> [RawFeature] {
        var r = GeoJSONReader(file: describe(name), diagnostics: diagnostics)
        let out = try r.features(try bundle.read(prefix + name))
        diagnostics = r.diagnostics
        return out
    }

    /// A JSON file's root, or nil when the bundle does not have it.
    func jsonObject(_ name: String) throws -> Any? {
        guard files.contains(name) else { return nil }
        return try GeoJSONReader.parseJSON(try bundle.read(prefix + name), file: describe(name))
    }

    /// A JSON array, either the root or under `key` of a root object.
    func jsonArray(_ name: String, key: String?) throws -> [Any]? {
        guard let root = try jsonObject(name) else { return nil }
        if let a = root as? [Any] { return a }
        if let key, let o = root as? [String: Any], let a = o[key] as? [Any] { return a }
        throw VenueFormatError(file: describe(name), problem: "expected a JSON array\(key.map { " (or an object with \"\($0)\")" } ?? "")")
    }

    func label(_ v: Any?) -> LocalizedName? {
        guard let s = v as? String, !s.isEmpty else { return nil }
        return LocalizedName(["und": s])
    }

    /// An elevation as a floor ordinal; a non-integer one is rounded (with a warning).
    mutating func ordinal(_ v: Any?, file: String, id: String) -> Int? {
        guard let d = JSONTypes.nsNumber(v)?.doubleValue, d.isFinite, abs(d) < 1000 else {
            diagnostics.warn(file, id, "skipped: \"elevation\" is missing or not a number")
            return nil
        }
        if d != d.rounded() { diagnostics.warn(file, id, "elevation \(d) is not an integer; floor grouped with elevation \(Int(d.rounded()))") }
        return Int(d.rounded())
    }

    /// Floor stacks (buildings) from the first of `names` present; sets each level's building.
    mutating func floorStacks(_ names: [String], levels: inout [Level]) throws -> [Building] {
        guard let name = names.first(where: files.contains) else { return [] }
        let file = describe(name)
        var items = [[String: Any]]()
        // Older v2 bundles write `mapstack.geojson` as a plain array, the
        // shape of `floorstack.json`; others as a FeatureCollection. Both are read.
        if name.hasSuffix(".geojson"), !(try jsonObject(name) is [Any]) {
            items = try featureCollection(name).map { f in
                var p = f.properties
                if p["id"] == nil, let id = f.id { p["id"] = id }
                return p
            }
        } else if let list = try jsonArray(name, key: "floorStacks") {
            items = list.compactMap { $0 as? [String: Any] }
        }
        var buildings = [Building]()
        let known = Set(levels.map(\.id))
        for (i, s) in items.enumerated() {
            guard let id = s["id"] as? String else { diagnostics.warn(file, "#\(i)", "floor stack without id skipped"); continue }
            let details = s["details"] as? [String: Any] ?? [:]
            buildings.append(Building(id: id, name: label(details["name"]) ?? label(s["name"]) ?? LocalizedName(),
                                      category: "unspecified", displayPoint: nil))
            for fl in ((s["floors"] ?? s["maps"]) as? [Any] ?? []).compactMap({ $0 as? String }) {
                guard known.contains(fl) else { diagnostics.warn(file, id, "names floor \(fl), which is not a floor"); continue }
                for li in levels.indices where levels[li].id == fl { levels[li].buildingIDs.append(id) }
            }
        }
        return buildings
    }

    /// One feature of a per-floor file (`<folder>/<floorId>.geojson`).
    struct FloorFeature { var floor: String; var file: String; var id: String; var feature: RawFeature; var geometry: Geometry }

    /// Calls `body` for each feature of every `<folder>/<floorId>.geojson` whose
    /// floor is in `floors`, file by file. Files of other floors, and features
    /// without an id or a geometry, are reported and skipped.
    static func forEachFloorFeature(_ ctx: inout Context, _ folder: String, floors: [Level], floorsFile: String,
                                    _ body: (inout Context, FloorFeature) throws -> Void) throws {
        let known = Set(floors.map(\.id))
        for file in ctx.files.sorted() where file.hasPrefix(folder + "/") && file.hasSuffix(".geojson") {
            let floorID = String(file.dropFirst(folder.count + 1).dropLast(".geojson".count))
            let display = ctx.describe(file)
            guard known.contains(floorID) else {
                ctx.diagnostics.warn(display, nil, "skipped: floor \(floorID) is not in \(floorsFile)"); continue
            }
            for f in try ctx.featureCollection(file) {
                guard let id = f.id ?? (f.properties["id"] as? String) else { ctx.diagnostics.warn(display, nil, "\(folder) without id skipped"); continue }
                guard let g = f.geometry else { ctx.diagnostics.warn(display, id, "skipped: no geometry"); continue }
                try body(&ctx, FloorFeature(floor: floorID, file: display, id: id, feature: f, geometry: g))
            }
        }
    }

    func requireLevels(_ levels: [Level], file: String) throws {
        if levels.isEmpty {
            try diagnostics.throwIfErrors()
            throw VenueFormatError(file: file, problem: "no usable floor: the venue is empty")
        }
    }

    mutating func sourcePaint(_ e: [String: Any], file: String, entry: String) -> SourcePaint {
        var sp = SourcePaint()
        if let c = e["color"] as? String {
            if c.hasPrefix("#"), [4, 7, 9].contains(c.count), c.dropFirst().allSatisfy(\.isHexDigit) { sp.color = c }
            else { diagnostics.warn(file, entry, "color \"\(c)\" is not #RRGGBB; ignored") }
        }
        if let o = JSONTypes.nsNumber(e["opacity"])?.doubleValue, o.isFinite { sp.opacity = min(1, max(0, o)) }
        if let h = JSONTypes.nsNumber(e["height"])?.doubleValue, h.isFinite { sp.height = h }
        sp.hidden = JSONTypes.boolean(e["hidden"]) ?? false
        return sp
    }
}
