import Foundation
import Threads
import VenueModel

/// Reads an Apple IMDF dataset (a folder or a `.zip`) into a `Venue`.
///
/// Required: `manifest.json`, `venue.geojson`, `level.geojson`. Every other
/// IMDF file is optional. A feature that cannot be placed (a unit whose
/// `level_id` names no level) is skipped with a warning naming it.
public struct IMDFReader {
    /// IMDF files this reader turns into features.
    static let readFiles: Set<String> = [
        "manifest.json", "venue.geojson", "building.geojson", "footprint.geojson", "level.geojson",
        "unit.geojson", "opening.geojson", "fixture.geojson", "amenity.geojson", "section.geojson",
        "occupant.geojson", "anchor.geojson", "kiosk.geojson",
    ]
    /// IMDF files that are valid but carry nothing a tile draws.
    static let unusedFiles: Set<String> = [
        "address.geojson", "detail.geojson", "geofence.geojson", "relationship.geojson",
    ]

    public private(set) var diagnostics = Diagnostics()
    public var limits: ArchiveLimits
    /// Threads parsing the dataset's files at once (a build passes its `--jobs`).
    public var threads: Int

    public init(limits: ArchiveLimits = .default, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        precondition(threads >= 1, "threads \(threads) < 1")
        self.limits = limits
        self.threads = threads
    }

    public mutating func read(path: String) throws -> Venue {
        let bundle = try openBundle(at: path, limits: limits)
        return try read(bundle)
    }

    public mutating func read(_ bundle: VenueBundle) throws -> Venue {
        guard let (all, prefix) = try bundle.datasetRoot(marker: "manifest.json") else {
            throw VenueFormatError(file: bundle.location, problem: "not an IMDF dataset: manifest.json is missing")
        }
        let manifestPath = prefix + "manifest.json"
        let (present, actual) = IMDFReader.fileNames(all, prefix: prefix, bundle: bundle, diagnostics: &diagnostics)
        for required in ["venue.geojson", "level.geojson"] where !present.contains(required) {
            throw VenueFormatError(file: bundle.describe(prefix + required), problem: "required IMDF file is missing (looked for \(required) and \(required.dropLast("geojson".count))json)")
        }

        // manifest.json
        let manifestFile = bundle.describe(manifestPath)
        guard let manifest = try GeoJSONReader.parseJSON(try bundle.read(manifestPath), file: manifestFile) as? [String: Any] else {
            throw VenueFormatError(file: manifestFile, problem: "expected a JSON object")
        }
        let language = manifest.string("language")

        // Every file is parsed before any is used, the files at once on
        // several threads: parsing is most of reading a venue, and an edit
        // reads the whole venue again. The bytes are read here, on this
        // thread (an archive's handle stays on one thread). Each file's
        // diagnostics join the venue's when `load` takes it, in the same
        // order as when the files were parsed one by one.
        let geojson = present.filter { $0 != "manifest.json" }.sorted()
        let bytes = geojson.map { name in Result { try bundle.read(prefix + actual[name]!) } }
        let parsed = IMDFReader.parse(bytes, files: geojson.map { bundle.describe(prefix + actual[$0]!) }, threads: threads)
        func load(_ name: String) throws -> (String, [RawFeature]) {
            let file = bundle.describe(prefix + (actual[name] ?? name))
            guard let k = geojson.firstIndex(of: name) else { return (file, []) }
            let feats = try parsed[k].features.get()
            diagnostics.append(contentsOf: parsed[k].diagnostics)
            return (file, feats)
        }

        // venue
        let (venueFile, venues) = try load("venue.geojson")
        guard let v = venues.first else { throw VenueFormatError(file: venueFile, problem: "no venue feature") }
        if venues.count > 1 { diagnostics.warn(venueFile, venues[1].id, "more than one venue; using the first") }
        guard let venueID = v.id else { throw VenueFormatError(file: venueFile, featureID: "#0", problem: "venue has no id") }

        // buildings and footprints
        let (buildingFile, buildingFeatures) = try load("building.geojson")
        var buildings = [Building]()
        for f in buildingFeatures {
            guard let id = f.id else { diagnostics.warn(buildingFile, nil, "building without id skipped"); continue }
            buildings.append(Building(id: id, name: f.properties.labels("name"),
                                      category: f.properties.string("category") ?? "unspecified",
                                      displayPoint: displayPoint(f, buildingFile)))
        }

        // levels
        let (levelFile, levelFeatures) = try load("level.geojson")
        var levels = [Level]()
        var levelIDs = Set<String>()
        for f in levelFeatures {
            guard let id = f.id else { diagnostics.warn(levelFile, nil, "level without id skipped"); continue }
            guard let ordinal = integer(f.properties["ordinal"]) else {
                diagnostics.warn(levelFile, id, "skipped: \"ordinal\" is missing or not an integer")
                continue
            }
            guard levelIDs.insert(id).inserted else {
                diagnostics.warn(levelFile, id, "duplicate level id; later copy skipped"); continue
            }
            levels.append(Level(id: id, ordinal: ordinal, name: f.properties.labels("name"),
                                shortName: f.properties.labels("short_name"),
                                outdoor: JSONTypes.boolean(f.properties["outdoor"]) ?? false,
                                buildingIDs: f.properties.stringArray("building_ids"),
                                category: f.properties.string("category") ?? "unspecified",
                                geometry: FeatureSink.repairOutline(f.geometry.flatMap { $0.isAreal ? $0 : nil },
                                                                    levelID: id, file: levelFile, diagnostics: &diagnostics)))
        }
        guard !levels.isEmpty else {
            try diagnostics.throwIfErrors()
            throw VenueFormatError(file: levelFile, problem: "no usable level features")
        }
        let buildingIDs = Set(buildings.map(\.id))
        for l in levels {
            for b in l.buildingIDs where !buildingIDs.contains(b) {
                diagnostics.warn(levelFile, l.id, "building_ids names \(b), which is not in building.geojson")
            }
        }

        var sink = FeatureSink()
        let (footprintFile, footprints) = try load("footprint.geojson")
        for f in footprints {
            guard let id = f.id, let g = f.geometry, g.isAreal else {
                diagnostics.warn(footprintFile, f.id, "skipped: footprint needs an id and a polygon"); continue
            }
            sink.add(Feature(id: id, featureClass: .building, category: f.properties.string("category") ?? "ground",
                             levelID: nil, buildingID: f.properties.stringArray("building_ids").first,
                             name: f.properties.labels("name"), geometry: g), file: footprintFile, diagnostics: &diagnostics)
        }

        // Level-bound layers.
        var unitLevel = [String: String]()
        func onLevel(_ name: String, kind: String, classify: (String) -> FeatureClass, allowed: (Geometry) -> Bool) throws {
            let (file, raw) = try load(name)
            for f in raw {
                guard let id = f.id else { diagnostics.warn(file, nil, "\(kind) without id skipped"); continue }
                guard let g = f.geometry else { diagnostics.warn(file, id, "skipped: \(kind) has no geometry"); continue }
                guard allowed(g) else { diagnostics.warn(file, id, "skipped: unexpected geometry for a \(kind)"); continue }
                guard let level = f.properties.string("level_id") else {
                    diagnostics.warn(file, id, "skipped: \(kind) has no level_id"); continue
                }
                guard levelIDs.contains(level) else {
                    diagnostics.warn(file, id, "skipped: level_id \(level) names no level"); continue
                }
                let category = f.properties.string("category") ?? "unspecified"
                if name == "unit.geojson" { unitLevel[id] = level }
                sink.add(Feature(id: id, featureClass: classify(category), category: category,
                                 levelID: level, name: f.properties.labels("name"),
                                 displayPoint: displayPoint(f, file), geometry: g), file: file, diagnostics: &diagnostics)
            }
        }
        try onLevel("unit.geojson", kind: "unit", classify: FeatureClass.imdfUnit, allowed: \.isAreal)
        try onLevel("fixture.geojson", kind: "fixture", classify: FeatureClass.imdfFixture, allowed: \.isAreal)
        try onLevel("kiosk.geojson", kind: "kiosk", classify: { _ in .fixture }, allowed: \.isAreal)
        try onLevel("section.geojson", kind: "section", classify: { _ in .section }, allowed: \.isAreal)
        try onLevel("opening.geojson", kind: "opening", classify: { _ in .opening }, allowed: { !$0.isAreal && !$0.isPuntal })

        // Amenities and anchors sit in units: their level is the unit's level.
        let (amenityFile, amenities) = try load("amenity.geojson")
        for f in amenities {
            guard let id = f.id, let g = f.geometry, g.isPuntal else {
                diagnostics.warn(amenityFile, f.id, "skipped: amenity needs an id and a point"); continue
            }
            let units = f.properties.stringArray("unit_ids")
            guard let level = units.lazy.compactMap({ unitLevel[$0] }).first else {
                diagnostics.warn(amenityFile, id, "skipped: none of its unit_ids \(units) names a unit on a level"); continue
            }
            let category = f.properties.string("category") ?? "unspecified"
            sink.add(Feature(id: id, featureClass: .amenity, category: category, levelID: level,
                             name: f.properties.labels("name"), geometry: g), file: amenityFile, diagnostics: &diagnostics)
        }

        let (occupantFile, occupants) = try load("occupant.geojson")
        var occupantNames = [String: LocalizedName]()   // anchor id → occupant name
        var occupantCategories = [String: String]()     // anchor id → occupant category (the unit's fill)
        for f in occupants {
            guard let anchor = f.properties.string("anchor_id") else {
                diagnostics.warn(occupantFile, f.id, "occupant without anchor_id skipped"); continue
            }
            let n = f.properties.labels("name")
            if !n.isEmpty, occupantNames[anchor] == nil { occupantNames[anchor] = n }
            if let c = f.properties.string("category"), occupantCategories[anchor] == nil { occupantCategories[anchor] = c }
        }
        let (anchorFile, anchors) = try load("anchor.geojson")
        for f in anchors {
            guard let id = f.id, let g = f.geometry, g.isPuntal else {
                diagnostics.warn(anchorFile, f.id, "skipped: anchor needs an id and a point"); continue
            }
            guard let unit = f.properties.string("unit_id"), let level = unitLevel[unit] else {
                diagnostics.warn(anchorFile, id, "skipped: unit_id names no unit on a level"); continue
            }
            // An anchor's category is its occupant's (an anchor has none of its own).
            sink.add(Feature(id: id, featureClass: .anchor, category: occupantCategories[id] ?? "anchor", levelID: level,
                             name: occupantNames[id] ?? LocalizedName(), geometry: g, unitID: unit),
                     file: anchorFile, diagnostics: &diagnostics)
        }

        let features = sink.finish(reference: v.geometry?.bounds, levels: levels, location: levelFile, diagnostics: &diagnostics)
        let venueDisplayPoint = displayPoint(v, venueFile)
        try diagnostics.throwIfErrors()
        return Venue(id: venueID, name: v.properties.labels("name"),
                     category: v.properties.string("category") ?? "unspecified", language: language,
                     displayPoint: venueDisplayPoint,
                     geometry: v.geometry, buildings: buildings, levels: levels, features: features)
    }

    /// Each file's features and diagnostics, largest files first over the cores.
    /// A file that could not be read keeps its read error, for `load` to throw in turn.
    static func parse(_ bytes: [Result<Data, Error>], files: [String], threads: Int) -> [(features: Result<[RawFeature], Error>, diagnostics: Diagnostics)] {
        func size(_ k: Int) -> Int { (try? bytes[k].get())?.count ?? 0 }
        let order = bytes.indices.sorted { size($0) > size($1) }
        let parsed = Workers.map(order.count, workers: threads, placeholder: (features: Result<[RawFeature], Error>.success([]), diagnostics: Diagnostics())) { _, n in
            let k = order[n]
            var r = GeoJSONReader(file: files[k], diagnostics: Diagnostics())
            let features = Result { try r.features(try bytes[k].get()) }
            return (features, r.diagnostics)
        }
        var out = [(features: Result<[RawFeature], Error>, diagnostics: Diagnostics)](
            repeating: (.success([]), Diagnostics()), count: bytes.count)
        for (n, k) in order.enumerated() { out[k] = parsed[n] }
        return out
    }

    /// The IMDF files present, by their IMDF name, and the name each has in
    /// the bundle. Datasets converted by some tools (Apple's IMDF Sandbox
    /// among them) name their files `unit.json` rather than `unit.geojson`:
    /// accepted, with a notice; when both exist, the `.geojson` one is read.
    static func fileNames(_ all: [String], prefix: String, bundle: VenueBundle,
                          diagnostics: inout Diagnostics) -> (present: Set<String>, actual: [String: String]) {
        let rels = all.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        let names = Set(rels)
        var present = Set<String>(), actual = [String: String]()
        for rel in rels {
            var canonical = rel
            if rel != "manifest.json", rel.hasSuffix(".json") {
                let g = String(rel.dropLast("json".count)) + "geojson"
                if readFiles.contains(g) || unusedFiles.contains(g) {
                    if names.contains(g) {
                        diagnostics.notice(bundle.describe(prefix + rel), "ignored: \(g) is read instead"); continue
                    }
                    diagnostics.notice(bundle.describe(prefix + rel), "read as the IMDF file \(g) (named .json rather than .geojson)")
                    canonical = g
                }
            }
            if readFiles.contains(canonical) { present.insert(canonical); actual[canonical] = rel }
            else if unusedFiles.contains(canonical) { diagnostics.notice(bundle.describe(prefix + rel), "IMDF file not used for tiles") }
            else { diagnostics.notice(bundle.describe(prefix + rel), "not an IMDF file; ignored") }
        }
        return (present, actual)
    }

    private func integer(_ v: Any?) -> Int? {
        guard let n = JSONTypes.nsNumber(v) else { return nil }
        let d = n.doubleValue
        guard d.isFinite, d == d.rounded(), abs(d) < 1000 else { return nil }
        return Int(d)
    }

    /// A feature's `display_point`; a bad one is an error like any bad coordinate.
    private mutating func displayPoint(_ f: RawFeature, _ file: String) -> LonLat? {
        guard let dp = f.properties["display_point"] as? [String: Any] else { return nil }
        let r = GeoJSONReader(file: file, diagnostics: Diagnostics())
        do { return try r.position(dp["coordinates"], f.id ?? "?") } catch let e as VenueFormatError {
            diagnostics.error(e.file, e.featureID, "display_point: \(e.problem)")
            return nil
        } catch { return nil }
    }
}
