import Clients
import Foundation

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
}
