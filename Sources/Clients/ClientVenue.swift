import Foundation

/// What the client files of one venue are made from: plain values the build
/// already has, so that this module needs nothing of the pipeline.
public struct ClientVenue: Sendable {
    /// The building a building floor (`floor_b1_0`) belongs to.
    public struct Building: Sendable, Equatable {
        /// The spec's id (`building_1`).
        public var id: String
        /// The source's id (an IMDF UUID): the `building_id` of vector features.
        public var sourceID: String
        public var name: String?
        public init(id: String, sourceID: String, name: String?) { self.id = id; self.sourceID = sourceID; self.name = name }
    }

    public struct Floor: Sendable, Equatable {
        public var id: String
        public var ordinal: Int
        public var shortName: String?
        public var name: String?
        /// Set for a building floor; nil for an ordinal floor.
        public var building: Building?
        public init(id: String, ordinal: Int, shortName: String?, name: String?, building: Building? = nil) {
            self.id = id; self.ordinal = ordinal; self.shortName = shortName; self.name = name; self.building = building
        }
        /// The floor's `level` value in the vector tiles.
        public var level: String { String(ordinal) }
    }

    public struct Tileset: Sendable, Equatable {
        public enum Format: String, Sendable { case png, mvt }
        public var format: Format
        /// Folder under a floor: `png`, `png@2x`, `mvt`.
        public var directory: String
        /// Pixels per tile side (256, 512); vector tiles: 512, MapLibre's unit.
        public var tileSize: Int
        public init(format: Format, directory: String, tileSize: Int) {
            self.format = format; self.directory = directory; self.tileSize = tileSize
        }
        public var fileExtension: String { format == .png ? "png" : "pbf" }
        /// Under a layout other than the xyz tree: per floor id (`all` for the
        /// venue-wide vector tiles), the tiles' URL template and the folder of
        /// its TileJSON, relative to the venue folder.
        public var tiles: [String: String] = [:]
        public var folders: [String: String] = [:]
        /// `tms` when the layout counts y from the south.
        public var scheme = "xyz"
        public func tileURL(floor: String) -> String { tiles[floor] ?? "\(floor)/\(directory)/{z}/{x}/{y}.\(fileExtension)" }
        public func folder(floor: String) -> String { folders[floor] ?? "\(floor)/\(directory)" }
        /// A MapLibre source's `tiles` and, under TMS, its `scheme`.
        func source(_ v: ClientVenue, floor: String, from: String) -> [String: Any] {
            var s: [String: Any] = ["tiles": [v.url(tileURL(floor: floor), from: from)]]
            if scheme != "xyz" { s["scheme"] = scheme }
            return s
        }
    }

    /// The venue's folder name (the source id).
    public var id: String
    public var name: String
    /// [west, south, east, north]
    public var bounds: [Double]
    /// [lon, lat]
    public var center: [Double]
    public var minZoom: Int
    public var maxZoom: Int
    public var floors: [Floor]
    public var tilesets: [Tileset]
    /// When set, URLs are absolute (`base/<venue>/...`); else relative to the file that holds them.
    public var baseURL: String?
    /// Every label text of the vector tiles (names of units and buildings), for the glyph ranges.
    public var labelTexts: [String]
    /// Credit to the data's authors, on every tile source of the styles.
    public var attribution: String? = nil

    public init(id: String, name: String, bounds: [Double], center: [Double], minZoom: Int, maxZoom: Int,
                floors: [Floor], tilesets: [Tileset], baseURL: String?, labelTexts: [String]) {
        self.id = id; self.name = name; self.bounds = bounds; self.center = center
        self.minZoom = minZoom; self.maxZoom = maxZoom; self.floors = floors; self.tilesets = tilesets
        self.baseURL = baseURL; self.labelTexts = labelTexts
    }

    /// Floors from the top down, the order of an elevator panel and of floor
    /// switchers: the ordinal floors, then each building's floors (buildings in
    /// the order `floors` first names them).
    public var floorsInDisplayOrder: [Floor] {
        var groups = [[Floor]](), index = [String: Int]()
        for f in floors {
            let key = f.building?.id ?? ""
            if index[key] == nil { index[key] = groups.count; groups.append([]) }
            groups[index[key]!].append(f)
        }
        if let o = index[""], o > 0 { groups.insert(groups.remove(at: o), at: 0) }
        return groups.flatMap { g in g.enumerated().sorted { ($0.element.ordinal, $1.offset) > ($1.element.ordinal, $0.offset) }.map(\.element) }
    }

    /// The buildings of the building floors, in display order.
    public var buildings: [Building] {
        var seen = Set<String>()
        return floorsInDisplayOrder.compactMap(\.building).filter { seen.insert($0.id).inserted }
    }

    /// The ground floor (ordinal 0), else the lowest floor above it, else the
    /// highest below; an ordinal floor when there are any.
    public var defaultFloor: Floor? {
        let ordinal = floors.filter { $0.building == nil }
        let pool = ordinal.isEmpty ? floors : ordinal
        return pool.filter { $0.ordinal >= 0 }.min { $0.ordinal < $1.ordinal } ?? pool.max { $0.ordinal < $1.ordinal }
    }

    /// The raster tileset a raster style uses: 256 px tiles when built, else the first PNG tileset.
    public var rasterTileset: Tileset? { tilesets.first { $0.format == .png && $0.tileSize == 256 } ?? tilesets.first { $0.format == .png } }
    public var vectorTileset: Tileset? { tilesets.first { $0.format == .mvt } }

    /// A URL for `path` (relative to the venue folder), seen from a file in
    /// `from` (relative to the venue folder, "" for the venue folder itself).
    func url(_ path: String, from: String = "") -> String {
        if let base = baseURL, !base.isEmpty {
            return (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/\(id)/\(path)"
        }
        if !from.isEmpty, path.hasPrefix(from + "/") { return String(path.dropFirst(from.count + 1)) }
        let up = from.isEmpty ? 0 : from.split(separator: "/").count
        return String(repeating: "../", count: up) + path
    }
}

/// JSON with sorted keys and unescaped slashes: the same input gives the same bytes.
enum ClientJSON {
    static func encode(_ object: Any) throws -> Data {
        var d = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        d.append(0x0A)
        return d
    }
}
