import Clients
import Foundation
import TileGeometry
import VenueModel

/// TileJSON 3.0.0 (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0),
/// one next to every tileset folder.
public struct TileJSON: Encodable {
    public struct VectorLayer: Encodable {
        public var id: String
        /// Field name → type description ("String", "Number").
        public var fields: [String: String]
        public var minzoom: Int
        public var maxzoom: Int
        /// What the layer holds, by the style spec layer's display name (the legend's).
        public var description: String? = nil
    }

    public var tilejson = "3.0.0"
    public var name: String
    public var description: String?
    public var version = "1.0.0"
    public var scheme = "xyz"
    public var tiles: [String]
    public var minzoom: Int
    public var maxzoom: Int
    /// [west, south, east, north]
    public var bounds: [Double]
    /// [lon, lat, zoom]
    public var center: [Double]
    public var vector_layers: [VectorLayer]?
    /// Credit to the data's authors (the source's `attribution`), shown by clients.
    public var attribution: String? = nil
    public var format: String
    public var tile_size: Int?
    /// Per style-spec layer id: display name, colours, icon, hidden (`FloorsIndex.legendEntries`).
    /// Not part of TileJSON 3.0.0; clients that do not know it ignore it.
    public var legend: [FloorsIndex.LegendEntry]? = nil

    public func encoded() throws -> Data { try StableJSON.encode(self) }

    /// An absolute URL template when a base URL is known, else the template relative to the output root.
    public static func url(base: String?, path: String) -> String {
        guard let base, !base.isEmpty else { return path }
        return (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/" + path
    }

    /// A tile URL template for the TileJSON in `directory`: absolute under
    /// `base`, else relative to the TileJSON file itself, which is how clients
    /// (MapLibre among them) resolve a relative URL.
    public static func url(base: String?, directory: String, tile: String) -> String {
        guard let base, !base.isEmpty else { return tile }
        return url(base: base, path: directory + "/" + tile)
    }
}

/// Where a pyramid's features are, for its TileJSON: clients ask only for
/// tiles inside `bounds`, so they must cover every feature of every tile (the
/// venue outline, which may reach far past the floors, included), and the
/// `center` must lie inside them.
enum TileJSONExtent {
    static func bounds(_ p: Builder.Pyramid, fallback: LonLatBounds) -> LonLatBounds {
        var r = MercatorRect.empty
        switch p.content {
        case .raster(let items): for i in items where !i.wholeTile { r.extend(i.grow > 0 ? i.geometry.bounds.expanded(by: i.grow) : i.geometry.bounds) }
        case .vector(let items, _): for i in items { r.extend(i.geometry.bounds) }
        }
        guard !r.isEmpty else { return fallback }
        let sw = WebMercator.unproject(MercatorPoint(x: r.minX, y: r.minY)), ne = WebMercator.unproject(MercatorPoint(x: r.maxX, y: r.maxY))
        return LonLatBounds(west: sw.lon, south: sw.lat, east: ne.lon, north: ne.lat)
    }

    /// The display point when it lies inside `b`, else the middle of `b`.
    static func center(_ display: LonLat?, in b: LonLatBounds) -> LonLat {
        if let d = display, d.lon >= b.west, d.lon <= b.east, d.lat >= b.south, d.lat <= b.north { return d }
        return b.center
    }
}
