import Clients
import Drawing
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
    /// `labelsOf`: a raster pyramid's floor, whose labels, icons and dots make
    /// the tiles they reach exist: the bounds take in every box any of them can
    /// have at `minZoom` (where boxes are largest on the ground), so they are
    /// known without placing labels, and a carried pyramid says the same.
    static func bounds(_ p: Builder.Pyramid, fallback: LonLatBounds, labelsOf floor: PreparedFloor? = nil, minZoom: Int = 0) -> LonLatBounds {
        var r = MercatorRect.empty
        switch p.content {
        case .raster(let items):
            for i in items where !i.wholeTile { r.extend(i.grow > 0 ? i.geometry.bounds.expanded(by: i.grow) : i.geometry.bounds) }
            if let floor { r.extend(reach(floor, zoom: minZoom)) }
        case .vector(let items, _): for i in items { r.extend(i.geometry.bounds) }
        }
        guard !r.isEmpty else { return fallback }
        let sw = WebMercator.unproject(MercatorPoint(x: r.minX, y: r.minY)), ne = WebMercator.unproject(MercatorPoint(x: r.maxX, y: r.maxY))
        return LonLatBounds(west: sw.lon, south: sw.lat, east: ne.lon, north: ne.lat)
    }

    /// Everything a floor's label, icon or dot candidates can ink at `zoom`.
    static func reach(_ floor: PreparedFloor, zoom: Int) -> MercatorRect {
        let mpp = DrawMetrics.metresPerPixel(zoom: zoom)
        var r = MercatorRect.empty
        func add(_ a: MercatorPoint, _ hw: Double, _ hh: Double) {
            r.extend(MercatorRect(minX: a.x - hw * mpp, minY: a.y - hh * mpp, maxX: a.x + hw * mpp, maxY: a.y + hh * mpp))
        }
        for c in floor.labels {
            guard let s = c.style ?? floor.labelStyle else { continue }
            // The inked box (halo and 1 px) and the plan's half-pixel pad.
            add(c.anchor, c.layout.width / 2 + s.haloWidth + 2, c.layout.height / 2 + s.haloWidth + 2)
        }
        let dot = DrawMetrics.dotRadiusPx + DrawMetrics.dotRingPx + 1
        for c in floor.icons { add(c.anchor, max(c.width / 2 + 2, dot), max(c.height / 2 + 2, dot)) }
        return r
    }

    /// The display point when it lies inside `b`, else the middle of `b`.
    static func center(_ display: LonLat?, in b: LonLatBounds) -> LonLat {
        if let d = display, d.lon >= b.west, d.lon <= b.east, d.lat >= b.south, d.lat <= b.north { return d }
        return b.center
    }
}
