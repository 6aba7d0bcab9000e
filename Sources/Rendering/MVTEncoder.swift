import TileGeometry

/// A property value in a vector tile (MVT 2.1 `Value`).
public enum MVTValue: Hashable, Sendable {
    case string(String)
    case int(Int64)      // written as sint_value
    case double(Double)
    case bool(Bool)
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

    public static func encode(_ layers: [MVTLayer]) -> [UInt8] {
        var tile = ProtobufWriter()
        for layer in layers where !layer.features.isEmpty {
            tile.message(tileLayers, encode(layer))
        }
        return tile.bytes
    }

    static func encode(_ layer: MVTLayer) -> ProtobufWriter {
        var keys = [String: UInt32](), keyOrder = [String]()
        var values = [MVTValue: UInt32](), valueOrder = [MVTValue]()
        var w = ProtobufWriter()
        w.uint(layerVersion, 2)
        w.string(layerName, layer.name)
        for f in layer.features {
            var tags = [UInt32]()
            tags.reserveCapacity(f.properties.count * 2)
            var seen = Set<String>()
            for (k, v) in f.properties where seen.insert(k).inserted {
                let ki: UInt32
                if let i = keys[k] { ki = i } else { ki = UInt32(keyOrder.count); keys[k] = ki; keyOrder.append(k) }
                let vi: UInt32
                if let i = values[v] { vi = i } else { vi = UInt32(valueOrder.count); values[v] = vi; valueOrder.append(v) }
                tags.append(ki); tags.append(vi)
            }
            var fw = ProtobufWriter()
            if let id = f.id { fw.uint(featureID, id) }
            if !tags.isEmpty { fw.packed(featureTags, tags) }
            let (type, commands) = geometry(f.geometry)
            fw.uint(featureType, type)
            fw.packed(featureGeometry, commands)
            w.message(layerFeatures, fw)
        }
        for k in keyOrder { w.string(layerKeys, k) }
        for v in valueOrder {
            var vw = ProtobufWriter()
            switch v {
            case .string(let s): vw.string(1, s)
            case .double(let d): vw.double(3, d)
            case .int(let i): vw.sint(6, i)
            case .bool(let b): vw.uint(7, b ? 1 : 0)
            }
            w.message(layerValues, vw)
        }
        w.uint(layerExtent, UInt64(layer.extent))
        return w
    }

    @inline(__always) static func command(_ id: UInt32, _ count: Int) -> UInt32 { (id & 7) | (UInt32(count) << 3) }

    /// The command integers of a geometry; the cursor carries across parts and rings.
    static func geometry(_ g: MVTGeometry) -> (UInt64, [UInt32]) {
        var out = [UInt32]()
        var cx: Int32 = 0, cy: Int32 = 0
        func param(_ p: TileCoord) {
            out.append(ProtobufWriter.zigzag32(p.x &- cx))
            out.append(ProtobufWriter.zigzag32(p.y &- cy))
            cx = p.x; cy = p.y
        }
        switch g {
        case .points(let ps):
            out.append(command(moveTo, ps.count))
            ps.forEach(param)
            return (point, out)
        case .lines(let lines):
            for l in lines {
                out.append(command(moveTo, 1)); param(l[0])
                out.append(command(lineTo, l.count - 1)); l.dropFirst().forEach(param)
            }
            return (lineString, out)
        case .polygons(let rings):
            for r in rings {
                out.append(command(moveTo, 1)); param(r[0])
                out.append(command(lineTo, r.count - 1)); r.dropFirst().forEach(param)
                out.append(command(closePath, 1))
            }
            return (polygon, out)
        }
    }
}
