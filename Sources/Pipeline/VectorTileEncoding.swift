import Clients
import TileGeometry
import VectorTiles

/// Builds one vector tile from the items that touch it: layers in drawing
/// order, features in item order.
public enum VectorTileEncoding {
    /// nil when no feature is left in the tile after clipping. `made(i)`: item
    /// i's geometry when it was already clipped to this tile (for another
    /// pyramid); `keep` is given each geometry clipped here.
    public static func encode(items: [VectorItem], indices: ArraySlice<Int32>, tile: TileID, venueWide: Bool,
                              geometry: VectorTileGeometry, table: MVTPropertyTable,
                              workspace: MVTEncoder.Workspace,
                              made: (Int32) -> VectorTileGeometry.Result? = { _ in nil },
                              keep: (Int32, VectorTileGeometry.Result) -> Void = { _, _ in }) -> (bytes: [UInt8]?, invalidDropped: Int) {
        var features = [MVTTableFeature]()
        features.reserveCapacity(indices.count)
        var dropped = 0
        for i in indices {
            let n = Int(i)
            let r: VectorTileGeometry.Result
            if let known = made(i) { r = known } else { r = geometry.make(items[n].geometry, tile: tile); keep(i, r) }
            dropped += r.invalidDropped
            guard let g = r.geometry else { continue }
            features.append(MVTTableFeature(layer: venueWide ? items[n].venueLayerID : items[n].floorLayerID, id: items[n].id, tags: items[n].tags, geometry: g))
        }
        guard !features.isEmpty else { return (nil, dropped) }
        return (MVTEncoder.encode(features, table: table, extent: UInt32(geometry.extent), workspace: workspace), dropped)
    }
}

/// The `vector_layers` of a TileJSON document, from the items of a pyramid.
enum TileJSONLayers {
    /// Layers in the order they first appear; each field's type from the last
    /// item that has it. Works on the table's ids: a venue-wide pyramid has
    /// every floor's items, too many for a dictionary update per property.
    static func describe(_ items: [VectorItem], table: MVTPropertyTable, venueWide: Bool, minzoom: Int, maxzoom: Int) -> [TileJSON.VectorLayer] {
        let keyCount = table.keyCount
        var order = [UInt32]()
        var seenLayer = [Bool](repeating: false, count: table.layerNames.count)
        // kinds[layer * keyCount + key]: 0 absent, else kind + 1.
        var kinds = [UInt8](repeating: 0, count: table.layerNames.count * keyCount)
        for item in items {
            let layer = venueWide ? item.venueLayerID : item.floorLayerID
            if !seenLayer[Int(layer)] { seenLayer[Int(layer)] = true; order.append(layer) }
            var i = 0
            while i + 1 < item.tags.count {
                kinds[Int(layer) * keyCount + Int(item.tags[i])] = table.valueKinds[Int(item.tags[i + 1])].rawValue + 1
                i += 2
            }
        }
        let names: [MVTValue.Kind: String] = [.string: "String", .number: "Number", .boolean: "Boolean"]
        return order.map { layer in
            var fields = [String: String]()
            for k in 0..<keyCount where kinds[Int(layer) * keyCount + k] != 0 {
                fields[table.key(UInt32(k))] = names[MVTValue.Kind(rawValue: kinds[Int(layer) * keyCount + k] - 1)!]
            }
            let name = table.layerNames[Int(layer)]
            return TileJSON.VectorLayer(id: name, fields: fields, minzoom: minzoom, maxzoom: maxzoom,
                                        description: FloorsIndex.layerDescription(name))
        }
    }
}
