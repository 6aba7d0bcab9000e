import Foundation
import VenueModel
import VenueFormats

/// A problem with pipeline.json: names the file, the key path and the problem.
public struct ConfigError: Error, CustomStringConvertible {
    public var file: String
    public var key: String?
    public var problem: String
    public init(file: String, key: String?, problem: String) { self.file = file; self.key = key; self.problem = problem }
    public var description: String {
        if let key { return "\(file): \"\(key)\": \(problem)" }
        return "\(file): \(problem)"
    }
}

/// pipeline.json: the contract scripts rely on (see README, "pipeline.json").
/// Unknown keys are errors so that a typo never silently changes a build.
public struct PipelineConfig: Sendable {
    public struct Source: Sendable {
        public enum Format: String, Sendable { case imdf, mvf, geojson }
        public var id: String
        public var format: Format
        /// Absolute path of the folder or zip.
        public var path: String
        /// geojson: the property holding the floor (default `level`, OSM style).
        public var levelProperty: String? = nil
        /// geojson: a property holding an IMDF-like category; default: OSM indoor tags.
        public var categoryProperty: String? = nil
        /// Limits for zip archives (pipeline.json `archive_limits`).
        public var limits: ArchiveLimits = .default
        /// Credit owed to the data's authors (pipeline.json `attribution`), written
        /// into the TileJSON and the manifest.
        public var attribution: String? = nil

        public init(id: String, format: Format, path: String, levelProperty: String? = nil,
                    categoryProperty: String? = nil, limits: ArchiveLimits = .default, attribution: String? = nil) {
            self.id = id; self.format = format; self.path = path; self.levelProperty = levelProperty
            self.categoryProperty = categoryProperty; self.limits = limits; self.attribution = attribution
        }

        /// The attribution the tiles carry: the configured one, else for GeoJSON
        /// read as OSM indoor tags (no `category_property`) the OpenStreetMap
        /// credit its licence (ODbL) requires of derived tiles.
        public var effectiveAttribution: String? {
            if let attribution { return attribution.isEmpty ? nil : attribution }
            return format == .geojson && categoryProperty == nil ? IndoorGeoJSONReader.osmAttribution : nil
        }
    }

    public struct Tileset: Sendable, Hashable {
        public enum Format: String, Sendable { case png, mvt }
        public var format: Format
        /// Raster: 1 for 256 px tiles, 2 for 512 px, ...
        public var scale: Int = 1
        /// Vector: MVT extent, buffer (tile units), gzip, simplification tolerance (tile units, below the max zoom).
        public var extent: Int = 4096
        public var buffer: Int = 80
        public var gzip: Bool = false
        public var simplify: Double = 1
        /// Raster: tiles per metatile side at 256 px (halved per scale step, so a
        /// metatile stays 2048 px); 1 draws every tile on its own.
        public var metatile: Int = 8
        /// Raster: a tile of more than 256 colours is reduced to a palette of 256
        /// (libimagequant, `ImageQuantizer.Settings.tiles`); tiles of at most 256
        /// colours are lossless either way.
        public var quantize: Bool = false
        /// Raster, with `quantize`: libimagequant's maximum quality, 1…100. Below 100
        /// a tile uses fewer colours when they are enough, and tiles of at most 256
        /// colours are reduced too (`ImageQuantizer.Settings.tiles(quality:)`).
        public var quality: Int = 100
        /// Raster: how the PNG files are compressed (`PNGEncoder.Compression`):
        /// `fast` (our scanline deflater) or `small` (libdeflate level 9, trimmed palettes).
        public var compression: Compression = .fast
        public enum Compression: String, Sendable, Hashable, CaseIterable { case fast, small }
        /// Raster: metatiles are drawn from this zoom (below, a floor is a handful of tiles).
        public static let metatileMinZoom = 19
        /// Where the tiles go (pipeline.json `layout`: a preset of `TilePathTemplate.presets`,
        /// or `path`: a template). Checked when the config is read.
        public var pathTemplate: String = TilePathTemplate.presets["xyz"]!
        /// The archive the build packs this tileset into besides the tree (pipeline.json `archive`):
        /// one PMTiles or MBTiles file per pyramid, or the venue's zip package.
        public var archive: ArchiveFormat? = nil
        /// Raster: which pyramids of the style spec this tileset draws (pipeline.json
        /// `layers`): the floors (`[FLOOR]`), the `outdoors` overview,
        /// `building_outlines_[BUILDING]` and `floor_shadows_[FLOOR]`. Vector: floors only.
        public var layers: Set<Layer> = [.floors]

        public enum Layer: String, Sendable, Hashable, CaseIterable {
            case floors, outdoors, buildingOutlines = "building_outlines", floorShadows = "floor_shadows"
        }

        /// Tiles per metatile side at `zoom` for this tileset; 1 means tile by tile.
        public func metatileSpan(zoom: Int) -> Int {
            guard format == .png, zoom >= Tileset.metatileMinZoom else { return 1 }
            return max(1, metatile / scale)
        }

        public init(format: Format, scale: Int = 1) { self.format = format; self.scale = scale }

        /// Folder name of the tileset under each floor: `png`, `png@2x`, `mvt`.
        public var directoryName: String { scale == 1 ? format.rawValue : "\(format.rawValue)@\(scale)x" }
        public var tileSize: Int { 256 * scale }
        public var fileExtension: String { format == .png ? "png" : "pbf" }
    }

    public var file: String
    /// Absolute output folder.
    public var output: String
    public var baseURL: String?
    public var minZoom: Int
    public var maxZoom: Int
    public var sources: [Source]
    public var tilesets: [Tileset]
    /// Which floors the build makes (pipeline.json `floors`): levels merged by
    /// ordinal across buildings (`ordinal`, the default), per building
    /// (`building`, the style spec's `floor_b<building>_<floor>`), or both.
    public var floorKinds: Set<FloorKind> = [.ordinal]
    public enum FloorKind: String, Sendable, Hashable { case ordinal, building }
    /// Absolute path of the style document, nil for the built-in style.
    public var style: String?
    /// A sprite sheet's base path (`base.json` + `base.png`, optionally `base@2x.*`); nil: the built-in sprite.
    public var sprite: String? = nil
    /// glTF meshes per floor and per venue, when asked for.
    public var mesh: MeshOptions?
    /// The most tiles a build may plan (`max_tiles`): a bigger estimate is refused
    /// before anything is planned or written (a stray zoom or coordinate would
    /// otherwise run until memory or patience runs out).
    public var maxTiles = PipelineConfig.defaultMaxTiles
    public static let defaultMaxTiles = 20_000_000
    /// The bytes this config was parsed from (for the build's input fingerprint).
    public var parsedBytes = Data()

    public static let defaultZoom = (min: 17, max: 23)

    public static func load(path: String) throws -> PipelineConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(file: path, key: nil, problem: FileManager.default.fileExists(atPath: path) ? "cannot read file" : "no such file")
        }
        return try parse(data, file: path)
    }

    public static func parse(_ data: Data, file: String) throws -> PipelineConfig {
        func fail(_ key: String?, _ problem: String) -> ConfigError { ConfigError(file: file, key: key, problem: problem) }
        let any: Any
        do { any = try JSONSerialization.jsonObject(with: data) } catch {
            throw fail(nil, "malformed JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)")")
        }
        guard let root = any as? [String: Any] else { throw fail(nil, "expected a JSON object") }
        try rejectUnknown(root, allowed: ["output", "base_url", "zoom", "sources", "tilesets", "style", "mesh", "archive_limits", "sprite", "max_tiles", "floors"], path: "", fail)

        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        func resolve(_ p: String) -> String {
            p.hasPrefix("/") ? p : base.appendingPathComponent(p).standardizedFileURL.path
        }

        let output = try string(root, "output", fail) ?? "output"
        guard !output.isEmpty else {
            throw fail("output", "is empty, which would be the config's own folder; name a folder of its own, such as \"output\"")
        }
        let baseURL = try string(root, "base_url", fail)

        var minZoom = defaultZoom.min, maxZoom = defaultZoom.max
        if let z = root["zoom"] {
            guard let zoom = z as? [String: Any] else { throw fail("zoom", "expected an object {\"min\": 17, \"max\": 23}") }
            try rejectUnknown(zoom, allowed: ["min", "max"], path: "zoom.", fail)
            minZoom = try int(zoom, "min", path: "zoom.min", fail) ?? minZoom
            maxZoom = try int(zoom, "max", path: "zoom.max", fail) ?? maxZoom
            guard (0...30).contains(minZoom), (0...30).contains(maxZoom), minZoom <= maxZoom else {
                throw fail("zoom", "need 0 ≤ min ≤ max ≤ 30, found min \(minZoom), max \(maxZoom)")
            }
        }

        var limits = ArchiveLimits.default
        if let a = root["archive_limits"] {
            guard let o = a as? [String: Any] else { throw fail("archive_limits", "expected an object {\"max_uncompressed_bytes\": …, \"max_entries\": …}") }
            try rejectUnknown(o, allowed: ["max_uncompressed_bytes", "max_entries"], path: "archive_limits.", fail)
            if let b = try int(o, "max_uncompressed_bytes", path: "archive_limits.max_uncompressed_bytes", fail) {
                guard b > 0 else { throw fail("archive_limits.max_uncompressed_bytes", "expected a positive number of bytes") }
                limits.maxUncompressedBytes = UInt64(b)
            }
            if let n = try int(o, "max_entries", path: "archive_limits.max_entries", fail) {
                guard n > 0 else { throw fail("archive_limits.max_entries", "expected a positive count") }
                limits.maxEntries = n
            }
        }

        guard let sourceList = root["sources"] as? [Any], !sourceList.isEmpty else {
            throw fail("sources", "required: a non-empty list of {\"id\", \"format\", \"path\"}")
        }
        var sources = [Source]()
        var ids = Set<String>()
        for (i, s) in sourceList.enumerated() {
            let key = "sources[\(i)]"
            guard let o = s as? [String: Any] else { throw fail(key, "expected an object") }
            let formatName = o["format"] as? String
            try rejectUnknown(o, allowed: formatName == "geojson" ? ["id", "format", "path", "level_property", "category_property", "attribution"]
                                                                  : ["id", "format", "path", "attribution"],
                              path: key + ".", fail)
            guard let id = try string(o, "id", fail, path: key + ".id"), isURLSafe(id) else {
                throw fail(key + ".id", "required: a URL-safe id (letters, digits, '-', '_', '.')")
            }
            guard ids.insert(id).inserted else { throw fail(key + ".id", "duplicate source id \"\(id)\"") }
            guard let f = try string(o, "format", fail, path: key + ".format"), let format = Source.Format(rawValue: f) else {
                throw fail(key + ".format", "required: one of imdf, mvf, geojson")
            }
            guard let p = try string(o, "path", fail, path: key + ".path") else { throw fail(key + ".path", "required: a folder or .zip") }
            sources.append(Source(id: id, format: format, path: resolve(p),
                                  levelProperty: try string(o, "level_property", fail, path: key + ".level_property"),
                                  categoryProperty: try string(o, "category_property", fail, path: key + ".category_property"),
                                  limits: limits, attribution: try string(o, "attribution", fail, path: key + ".attribution")))
        }

        var tilesets = [Tileset]()
        if let t = root["tilesets"] {
            guard let list = t as? [Any], !list.isEmpty else { throw fail("tilesets", "expected a non-empty list") }
            for (i, item) in list.enumerated() {
                let key = "tilesets[\(i)]"
                guard let o = item as? [String: Any] else { throw fail(key, "expected an object") }
                guard let f = try string(o, "format", fail, path: key + ".format"), let format = Tileset.Format(rawValue: f) else {
                    throw fail(key + ".format", "required: png or mvt")
                }
                switch format {
                case .png:
                    try rejectUnknown(o, allowed: Set(["format", "scale", "metatile", "quantize", "quality", "compression", "layers"] + Tileset.outputKeys), path: key + ".", fail)
                    let layers = try rasterLayers(o["layers"], key: key + ".layers", fail)
                    var quantize = Tileset(format: .png).quantize
                    if let q = o["quantize"] {
                        guard JSONTypes.isBoolean(q), let b = JSONTypes.boolean(q) else {
                            throw fail(key + ".quantize", "expected true or false")
                        }
                        quantize = b
                    }
                    var quality = 100
                    if let q = try int(o, "quality", path: key + ".quality", fail) {
                        guard quantize else { throw fail(key + ".quality", "applies to quantized tiles: set \"quantize\": true, or remove it") }
                        guard (1...100).contains(q) else { throw fail(key + ".quality", "expected 1…100 (libimagequant's maximum quality), found \(q)") }
                        quality = q
                    }
                    var compression = Tileset.Compression.fast
                    if let c = o["compression"] {
                        guard let name = c as? String, let v = Tileset.Compression(rawValue: name) else {
                            throw fail(key + ".compression", "expected \"fast\" or \"small\", found \(c)")
                        }
                        compression = v
                    }
                    var metatile = 8
                    if let m = try int(o, "metatile", path: key + ".metatile", fail) {
                        guard [1, 2, 4, 8, 16].contains(m) else { throw fail(key + ".metatile", "expected 1, 2, 4, 8 or 16 tiles per side, found \(m)") }
                        metatile = m
                    }
                    var scales = [1]
                    if let s = o["scale"] {
                        if let n = s as? Int { scales = [n] }
                        else if let a = s as? [Any], !a.isEmpty, a.allSatisfy({ $0 is Int }) { scales = a.map { $0 as! Int } }
                        else { throw fail(key + ".scale", "expected 1, 2, 3, 4 or a list of them") }
                    }
                    for sc in scales {
                        guard (1...4).contains(sc) else { throw fail(key + ".scale", "scale \(sc) not in 1…4") }
                        var ts = Tileset(format: format, scale: sc)
                        ts.metatile = metatile
                        try ts.readOutputKeys(o, key: key, fail)
                        ts.quantize = quantize
                        ts.quality = quality
                        ts.compression = compression
                        ts.layers = layers
                        if !tilesets.contains(where: { $0.format == .png && $0.scale == sc }) { tilesets.append(ts) }
                    }
                case .mvt:
                    try rejectUnknown(o, allowed: Set(["format", "extent", "buffer", "compress", "simplify"] + Tileset.outputKeys), path: key + ".", fail)
                    var ts = Tileset(format: .mvt)
                    try ts.readOutputKeys(o, key: key, fail)
                    if let e = try int(o, "extent", path: key + ".extent", fail) {
                        guard e >= 256 && e <= 1 << 16 else { throw fail(key + ".extent", "expected 256…65536, found \(e)") }
                        ts.extent = e
                    }
                    if let b = try int(o, "buffer", path: key + ".buffer", fail) {
                        guard b >= 0 && b <= ts.extent / 2 else { throw fail(key + ".buffer", "expected 0…extent/2, found \(b)") }
                        ts.buffer = b
                    }
                    if let c = try string(o, "compress", fail, path: key + ".compress") {
                        guard c == "gzip" || c == "none" else { throw fail(key + ".compress", "expected \"gzip\" or \"none\"") }
                        ts.gzip = c == "gzip"
                    }
                    if let v = o["simplify"] {
                        guard let n = v as? NSNumber, !JSONTypes.isBoolean(v), n.doubleValue >= 0, n.doubleValue <= 64 else {
                            throw fail(key + ".simplify", "expected a tolerance in tile units, 0…64")
                        }
                        ts.simplify = n.doubleValue
                    }
                    guard !tilesets.contains(where: { $0.format == .mvt }) else { throw fail(key, "only one mvt tileset") }
                    tilesets.append(ts)
                }
            }
        } else {
            tilesets = [Tileset(format: .png, scale: 1)]
        }

        try Tileset.checkDistinctPaths(tilesets, fail)
        let style = try string(root, "style", fail).map(resolve)
        let sprite = try string(root, "sprite", fail).map(resolve)
        var mesh: MeshOptions? = nil
        switch root["mesh"] {
        case nil: break
        case let v? where JSONTypes.isBoolean(v): mesh = JSONTypes.boolean(v)! ? MeshOptions() : nil
        case let o as [String: Any]:
            try rejectUnknown(o, allowed: ["floor_height", "heights"], path: "mesh.", fail)
            var m = MeshOptions()
            if let v = o["floor_height"] {
                guard let n = v as? NSNumber, !JSONTypes.isBoolean(v), n.doubleValue > 0, n.doubleValue < 1000 else { throw fail("mesh.floor_height", "expected metres, more than 0") }
                m.floorHeight = n.doubleValue
            }
            if let v = o["heights"] {
                guard let h = v as? [String: Any] else { throw fail("mesh.heights", "expected an object: feature class → metres") }
                for (k, x) in h {
                    guard MeshOptions.defaultHeights[k] != nil else {
                        throw fail("mesh.heights.\(k)", "unknown feature class (known: \(MeshOptions.defaultHeights.keys.sorted().joined(separator: ", ")))")
                    }
                    guard let n = x as? NSNumber, !JSONTypes.isBoolean(x), n.doubleValue >= 0, n.doubleValue < 1000 else { throw fail("mesh.heights.\(k)", "expected metres, 0 or more") }
                    m.heights[k] = n.doubleValue
                }
            }
            mesh = m
        default: throw fail("mesh", "expected true, false or {\"floor_height\": …, \"heights\": {…}}")
        }
        var config = PipelineConfig(file: file, output: resolve(output), baseURL: baseURL, minZoom: minZoom, maxZoom: maxZoom,
                                    sources: sources, tilesets: tilesets, style: style, sprite: sprite, mesh: mesh)
        config.parsedBytes = data
        config.floorKinds = try floorKinds(root["floors"], fail)
        if let m = try int(root, "max_tiles", path: "max_tiles", fail) {
            guard m > 0 else { throw fail("max_tiles", "expected a positive number of tiles") }
            config.maxTiles = m
        }
        return config
    }

    /// `floors`: "ordinal", "building" or a list of them.
    static func floorKinds(_ v: Any?, _ fail: (String?, String) -> ConfigError) throws -> Set<FloorKind> {
        guard let v else { return [.ordinal] }
        let names = (v as? [Any]) ?? [v]
        var out = Set<FloorKind>()
        for n in names {
            guard let s = n as? String, let k = FloorKind(rawValue: s) else {
                throw fail("floors", "expected \"ordinal\", \"building\" or a list of both, found \(n)")
            }
            out.insert(k)
        }
        guard !out.isEmpty else { throw fail("floors", "expected \"ordinal\", \"building\" or a list of both, found an empty list") }
        return out
    }

    /// A png tileset's `layers`: a non-empty list of floors, outdoors, building_outlines, floor_shadows.
    static func rasterLayers(_ v: Any?, key: String, _ fail: (String?, String) -> ConfigError) throws -> Set<Tileset.Layer> {
        guard let v else { return [.floors] }
        let known = Tileset.Layer.allCases.map(\.rawValue).joined(separator: ", ")
        guard let list = v as? [Any], !list.isEmpty else { throw fail(key, "expected a non-empty list of \(known)") }
        var out = Set<Tileset.Layer>()
        for n in list {
            guard let s = n as? String, let l = Tileset.Layer(rawValue: s) else { throw fail(key, "unknown layer \(n) (known: \(known))") }
            out.insert(l)
        }
        return out
    }

    static func isURLSafe(_ s: String) -> Bool {
        !s.isEmpty && s != "." && s != ".." && s.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
        }
    }

    private static func rejectUnknown(_ o: [String: Any], allowed: Set<String>, path: String,
                                      _ fail: (String?, String) -> ConfigError) throws {
        if let k = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail(path + k, "unknown key (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    private static func string(_ o: [String: Any], _ k: String, _ fail: (String?, String) -> ConfigError,
                               path: String? = nil) throws -> String? {
        guard let v = o[k] else { return nil }
        guard let s = v as? String else { throw fail(path ?? k, "expected a string") }
        return s
    }

    private static func int(_ o: [String: Any], _ k: String, path: String,
                            _ fail: (String?, String) -> ConfigError) throws -> Int? {
        guard let v = o[k] else { return nil }
        guard let n = v as? NSNumber, !JSONTypes.isBoolean(v), n.doubleValue == n.doubleValue.rounded() else {
            throw fail(path, "expected an integer")
        }
        return n.intValue
    }
}
