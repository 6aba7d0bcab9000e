/// The layer names, property keys and property values of a set of features,
/// each interned once with its bytes already encoded.
///
/// A vector tile de-duplicates keys and values per layer (MVT 2.1, 4.4). With
/// the strings interned up front, a tile's encoder maps small integer ids to
/// the layer's own first-use order instead of hashing strings for every tile.
public struct MVTPropertyTable: Sendable {
    public private(set) var layerNames: [String] = []
    /// The keys' UTF-8 bytes, one after the other: key k is `keyBytes[keyStarts[k]..<keyStarts[k + 1]]`.
    /// Flat, so that writing a key copies bytes without retaining an array per key.
    public private(set) var keyBytes: [UInt8] = []
    public private(set) var keyStarts: [Int] = [0]
    /// The encoded `Value` messages, flat in the same way.
    public private(set) var valueBytes: [UInt8] = []
    public private(set) var valueStarts: [Int] = [0]
    /// Per value id: what kind of value it is (TileJSON's `vector_layers` fields).
    public private(set) var valueKinds: [MVTValue.Kind] = []
    public var keyCount: Int { keyStarts.count - 1 }
    public var valueCount: Int { valueStarts.count - 1 }
    private var layerIDs = [String: UInt32]()
    private var keyIDs = [String: UInt32]()
    private var valueIDs = [MVTValue: UInt32]()

    public init() {}

    /// The UTF-8 bytes of key `k`, as a String.
    public func key(_ k: UInt32) -> String {
        String(decoding: keyBytes[keyStarts[Int(k)]..<keyStarts[Int(k) + 1]], as: UTF8.self)
    }

    public mutating func layer(_ name: String) -> UInt32 {
        if let id = layerIDs[name] { return id }
        let id = UInt32(layerNames.count)
        layerIDs[name] = id
        layerNames.append(name)
        return id
    }

    /// A feature's tags as (key id, value id) pairs in property order; a key that
    /// repeats keeps its first value, as a tile can hold a key once per feature.
    public mutating func tags(_ properties: [(key: String, value: MVTValue)]) -> [UInt32] {
        var out = [UInt32]()
        out.reserveCapacity(properties.count * 2)
        var seen = [UInt32]()
        for (k, v) in properties {
            let ki: UInt32
            if let i = keyIDs[k] { ki = i } else {
                ki = UInt32(keyCount); keyIDs[k] = ki
                keyBytes += Array(k.utf8); keyStarts.append(keyBytes.count)
            }
            guard !seen.contains(ki) else { continue }
            seen.append(ki)
            let vi: UInt32
            if let i = valueIDs[v] { vi = i } else {
                vi = UInt32(valueCount); valueIDs[v] = vi
                valueBytes += MVTPropertyTable.encode(v); valueStarts.append(valueBytes.count)
                valueKinds.append(v.kind)
            }
            out.append(ki); out.append(vi)
        }
        return out
    }

    static func encode(_ v: MVTValue) -> [UInt8] {
        var w = ProtobufWriter()
        switch v {
        case .string(let s): w.string(1, s)
        case .double(let d): w.double(3, d)
        case .int(let i): w.sint(6, i)
        case .bool(let b): w.uint(7, b ? 1 : 0)
        }
        return w.bytes
    }
}
