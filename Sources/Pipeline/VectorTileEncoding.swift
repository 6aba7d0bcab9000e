import Rendering
import TileGeometry

/// Builds one vector tile from the items that touch it: layers in drawing
/// order, features in item order.
public enum VectorTileEncoding {
    /// nil when no feature is left in the tile after clipping.
    public static func encode(items: [VectorItem], indices: [Int32], tile: TileID, venueWide: Bool,
                              geometry: VectorTileGeometry, table: MVTPropertyTable,
                              workspace: MVTEncoder.Workspace) -> (bytes: [UInt8]?, invalidDropped: Int) {
        var features = [MVTTableFeature]()
        features.reserveCapacity(indices.count)
        var dropped = 0
        for i in indices {
            let item = items[Int(i)]
            let r = geometry.make(item.geometry, tile: tile)
            dropped += r.invalidDropped
            guard let g = r.geometry else { continue }
            features.append(MVTTableFeature(layer: venueWide ? item.venueLayerID : item.floorLayerID, id: item.id, tags: item.tags, geometry: g))
        }
        guard !features.isEmpty else { return (nil, dropped) }
        return (MVTEncoder.encode(features, table: table, extent: UInt32(geometry.extent), workspace: workspace), dropped)
    }
}

/// The `vector_layers` of a TileJSON document, from the items of a pyramid.
enum TileJSONLayers {
    static func describe(_ items: [VectorItem], venueWide: Bool, minzoom: Int, maxzoom: Int) -> [TileJSON.VectorLayer] {
        var order = [String]()
        var fields = [String: [String: String]]()
        for item in items {
            let name = venueWide ? item.venueLayer : item.floorLayer
            if fields[name] == nil { order.append(name); fields[name] = [:] }
            for (k, v) in item.properties {
                switch v {
                case .string: fields[name]![k] = "String"
                case .int, .double: fields[name]![k] = "Number"
                case .bool: fields[name]![k] = "Boolean"
                }
            }
        }
        return order.map { TileJSON.VectorLayer(id: $0, fields: fields[$0]!, minzoom: minzoom, maxzoom: maxzoom) }
    }
}
