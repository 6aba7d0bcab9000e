import TileGeometry

/// A property value in a vector tile (MVT 2.1 `Value`).
public enum MVTValue: Hashable, Sendable {
    case string(String)
    case int(Int64)      // written as sint_value
    case double(Double)
    case bool(Bool)

    public enum Kind: UInt8, Sendable { case string, number, boolean }

    public var kind: Kind {
        switch self {
        case .string: return .string
        case .int, .double: return .number
        case .bool: return .boolean
        }
    }
}

/// A geometry already in integer tile coordinates (y down), valid and oriented
/// as MVT 2.1 requires. Built by `VectorTileGeometry`.
public enum MVTGeometry: Equatable, Sendable {
    case points([TileCoord])
    case lines([[TileCoord]])
    /// Rings in encoding order: each exterior (positive area) followed by its holes (negative area).
    /// Rings are open (no repeated closing point).
    case polygons([[TileCoord]])
}

public struct MVTFeature: Sendable {
    public var id: UInt64?
    public var properties: [(key: String, value: MVTValue)]
    public var geometry: MVTGeometry
    public init(id: UInt64?, properties: [(key: String, value: MVTValue)], geometry: MVTGeometry) {
        self.id = id; self.properties = properties; self.geometry = geometry
    }
}

public struct MVTLayer: Sendable {
    public var name: String
    public var extent: UInt32
    public var features: [MVTFeature]
    public init(name: String, extent: UInt32, features: [MVTFeature]) {
        self.name = name; self.extent = extent; self.features = features
    }
}

/// One feature as the table-based encoder takes it: its layer and tags are ids
/// of an `MVTPropertyTable`.
public struct MVTTableFeature {
    public var layer: UInt32
    public var id: UInt64?
    public var tags: [UInt32]
    public var geometry: MVTGeometry
    public init(layer: UInt32, id: UInt64?, tags: [UInt32], geometry: MVTGeometry) {
        self.layer = layer; self.id = id; self.tags = tags; self.geometry = geometry
    }
}

/// Writes Mapbox Vector Tile 2.1 bytes. Layers and features are written in the
/// order given; keys and values are de-duplicated per layer in first-use order,
/// so the same input always gives the same bytes.
public enum MVTEncoder {
    // Tile fields.
    static let tileLayers: UInt64 = 3
    // Layer fields.
    static let layerName: UInt64 = 1, layerFeatures: UInt64 = 2, layerKeys: UInt64 = 3,
               layerValues: UInt64 = 4, layerExtent: UInt64 = 5, layerVersion: UInt64 = 15
    // Feature fields.
    static let featureID: UInt64 = 1, featureTags: UInt64 = 2, featureType: UInt64 = 3, featureGeometry: UInt64 = 4
    // GeomType.
    static let point: UInt64 = 1, lineString: UInt64 = 2, polygon: UInt64 = 3
    // Commands.
    static let moveTo: UInt32 = 1, lineTo: UInt32 = 2, closePath: UInt32 = 7

    /// Scratch space one encoding thread reuses from tile to tile: a layer's
    /// key and value ids map to its own indices through stamps, so nothing is
    /// hashed or allocated per tile once the buffers have grown.
    public final class Workspace {
        /// Moved out of the workspace while a layer is written, so that the
        /// loop works on a local value, not on class properties (each access
        /// to one is an exclusivity check).
        struct Scratch {
            var stamp: UInt32 = 0
            var keyStamp = [UInt32](), keyLocal = [UInt32]()
            var valueStamp = [UInt32](), valueLocal = [UInt32]()
            var keyOrder = [UInt32](), valueOrder = [UInt32]()
            var tags = [UInt32](), commands = [UInt32]()
            var feature = ProtobufWriter(), layer = ProtobufWriter()

            mutating func begin(_ table: MVTPropertyTable) {
                if keyStamp.count < table.keyCount {
                    keyStamp += [UInt32](repeating: 0, count: table.keyCount - keyStamp.count)
                    keyLocal += [UInt32](repeating: 0, count: table.keyCount - keyLocal.count)
                }
                if valueStamp.count < table.valueCount {
                    valueStamp += [UInt32](repeating: 0, count: table.valueCount - valueStamp.count)
                    valueLocal += [UInt32](repeating: 0, count: table.valueCount - valueLocal.count)
                }
                if stamp == .max {
                    for i in keyStamp.indices { keyStamp[i] = 0 }
                    for i in valueStamp.indices { valueStamp[i] = 0 }
                    stamp = 0
                }
                stamp += 1
                keyOrder.removeAll(keepingCapacity: true)
                valueOrder.removeAll(keepingCapacity: true)
            }
        }
        var scratch = Scratch()
        var tile = ProtobufWriter()
        public init() {}
    }

    /// A tile from features in drawing order: one layer per layer id, in the
    /// order the layers first appear.
    public static func encode(_ features: [MVTTableFeature], table: MVTPropertyTable, extent: UInt32, workspace: Workspace) -> [UInt8] {
        // The tile grows in the workspace's buffer and is copied out once, at
        // its size: growing a new array by doubling cost several reallocations
        // per tile.
        var tile = ProtobufWriter()
        swap(&tile, &workspace.tile)
        defer { swap(&tile, &workspace.tile) }
        tile.removeAll()
        // Feature indices grouped by layer, layers in first-appearance order,
        // features in their given order within a layer.
        var layerOrder = [UInt32](), rank = [Int](repeating: 0, count: features.count)
        for i in features.indices {
            let l = features[i].layer
            if let r = layerOrder.firstIndex(of: l) { rank[i] = r } else { rank[i] = layerOrder.count; layerOrder.append(l) }
        }
        var grouped = [Int]()
        grouped.reserveCapacity(features.count)
        for r in layerOrder.indices { for i in features.indices where rank[i] == r { grouped.append(i) } }
        var start = 0
        for (r, l) in layerOrder.enumerated() {
            var end = start
            while end < grouped.count && rank[grouped[end]] == r { end += 1 }
            writeLayer(into: &tile, name: table.layerNames[Int(l)], extent: extent, features: features, members: grouped[start..<end],
                       table: table, workspace: workspace)
            start = end
        }
        return tile.bytes.withUnsafeBufferPointer { Array($0) }
    }

    /// A tile from self-contained layers (their properties interned here).
    public static func encode(_ layers: [MVTLayer]) -> [UInt8] {
        var table = MVTPropertyTable()
        var features = [MVTTableFeature]()
        for (li, l) in layers.enumerated() {
            for f in l.features { features.append(MVTTableFeature(layer: UInt32(li), id: f.id, tags: table.tags(f.properties), geometry: f.geometry)) }
        }
        let workspace = Workspace()
        var tile = ProtobufWriter()
        var start = 0
        for layer in layers {
            let members = Array(start..<(start + layer.features.count))
            start += layer.features.count
            guard !members.isEmpty else { continue }
            writeLayer(into: &tile, name: layer.name, extent: layer.extent, features: features, members: members[...],
                       table: table, workspace: workspace)
        }
        return tile.bytes
    }

    /// Writes `features[members]` as one layer message.
    static func writeLayer(into tile: inout ProtobufWriter, name: String, extent: UInt32, features: [MVTTableFeature], members: ArraySlice<Int>,
                           table: MVTPropertyTable, workspace ws: Workspace) {
        var w = Workspace.Scratch()
        swap(&w, &ws.scratch)
        defer { swap(&w, &ws.scratch) }
        w.begin(table)
        let stamp = w.stamp
        var out = ProtobufWriter()
        swap(&out, &w.layer)
        defer { swap(&out, &w.layer) }
        out.removeAll()
        out.uint(layerVersion, 2)
        out.string(layerName, name)
        for m in members {
            w.tags.removeAll(keepingCapacity: true)
            let tags = features[m].tags
            var i = 0
            while i + 1 < tags.count {
                let k = Int(tags[i]), v = Int(tags[i + 1])
                if w.keyStamp[k] != stamp { w.keyStamp[k] = stamp; w.keyLocal[k] = UInt32(w.keyOrder.count); w.keyOrder.append(UInt32(k)) }
                if w.valueStamp[v] != stamp { w.valueStamp[v] = stamp; w.valueLocal[v] = UInt32(w.valueOrder.count); w.valueOrder.append(UInt32(v)) }
                w.tags.append(w.keyLocal[k]); w.tags.append(w.valueLocal[v])
                i += 2
            }
            w.feature.removeAll()
            if let id = features[m].id { w.feature.uint(featureID, id) }
            if !w.tags.isEmpty { w.feature.packed(featureTags, w.tags) }
            let type = commands(features[m].geometry, into: &w.commands)
            w.feature.uint(featureType, type)
            w.feature.packed(featureGeometry, w.commands)
            out.message(layerFeatures, w.feature)
        }
        table.keyBytes.withUnsafeBufferPointer { b in
            for k in w.keyOrder { out.bytes(layerKeys, UnsafeBufferPointer(rebasing: b[table.keyStarts[Int(k)]..<table.keyStarts[Int(k) + 1]])) }
        }
        table.valueBytes.withUnsafeBufferPointer { b in
            for v in w.valueOrder { out.bytes(layerValues, UnsafeBufferPointer(rebasing: b[table.valueStarts[Int(v)]..<table.valueStarts[Int(v) + 1]])) }
        }
        out.uint(layerExtent, UInt64(extent))
        tile.message(tileLayers, out)
    }

    @inline(__always) static func command(_ id: UInt32, _ count: Int) -> UInt32 { (id & 7) | (UInt32(count) << 3) }

    /// Writes the command integers of a geometry into `out` (emptied first) and
    /// returns its GeomType; the cursor carries across parts and rings.
    static func commands(_ g: MVTGeometry, into out: inout [UInt32]) -> UInt64 {
        out.removeAll(keepingCapacity: true)
        var cx: Int32 = 0, cy: Int32 = 0
        func param(_ p: TileCoord) {
            out.append(ProtobufWriter.zigzag32(p.x &- cx))
            out.append(ProtobufWriter.zigzag32(p.y &- cy))
            cx = p.x; cy = p.y
        }
        switch g {
        case .points(let ps):
            out.append(command(moveTo, ps.count))
            for p in ps { param(p) }
            return point
        case .lines(let lines):
            for l in lines {
                out.append(command(moveTo, 1)); param(l[0])
                out.append(command(lineTo, l.count - 1))
                for i in 1..<l.count { param(l[i]) }
            }
            return lineString
        case .polygons(let rings):
            for r in rings {
                out.append(command(moveTo, 1)); param(r[0])
                out.append(command(lineTo, r.count - 1))
                for i in 1..<r.count { param(r[i]) }
                out.append(command(closePath, 1))
            }
            return polygon
        }
    }
}
