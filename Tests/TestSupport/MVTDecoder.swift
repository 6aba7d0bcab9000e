import Foundation

/// An independent reader of MVT 2.1 bytes for the tests: its own protobuf
/// parsing, command decoding and ring splitting (it shares no code with the encoder).
public struct DecodedTile {
    public struct Feature {
        public var id: UInt64?
        public var type: Int
        public var properties: [String: String]
        /// Parts in tile coordinates: points, lines or rings (rings without the closing point).
        public var parts: [[(x: Int, y: Int)]]
    }
    public struct Layer {
        public var name = ""
        public var version = 1
        public var extent: Int?
        public var keys = [String]()
        public var values = [String]()
        public var features = [Feature]()
    }
    public var layers = [Layer]()

    enum DecodeError: Error { case truncated, badWireType(Int), badCommand(Int) }

    public init(_ data: [UInt8]) throws {
        for (field, payload) in try DecodedTile.fields(data[...]) where field == 3 {
            guard case .bytes(let lb) = payload else { continue }
            var layer = Layer()
            var rawFeatures = [ArraySlice<UInt8>]()
            for (lf, lp) in try DecodedTile.fields(lb) {
                switch (lf, lp) {
                case (15, .varint(let v)): layer.version = Int(v)
                case (1, .bytes(let b)): layer.name = String(decoding: b, as: UTF8.self)
                case (5, .varint(let v)): layer.extent = Int(v)
                case (3, .bytes(let b)): layer.keys.append(String(decoding: b, as: UTF8.self))
                case (4, .bytes(let b)): layer.values.append(try DecodedTile.value(b))
                case (2, .bytes(let b)): rawFeatures.append(b)
                default: break
                }
            }
            for fb in rawFeatures {
                var id: UInt64?, type = 0, tags = [UInt64](), geom = [UInt64]()
                for (ff, fp) in try DecodedTile.fields(fb) {
                    switch (ff, fp) {
                    case (1, .varint(let v)): id = v
                    case (3, .varint(let v)): type = Int(v)
                    case (2, .bytes(let b)): tags = try DecodedTile.packed(b)
                    case (4, .bytes(let b)): geom = try DecodedTile.packed(b)
                    default: break
                    }
                }
                var props = [String: String]()
                for t in stride(from: 0, to: tags.count - 1, by: 2) { props[layer.keys[Int(tags[t])]] = layer.values[Int(tags[t + 1])] }
                layer.features.append(Feature(id: id, type: type, properties: props, parts: try DecodedTile.geometry(geom)))
            }
            layers.append(layer)
        }
    }

    enum Payload { case varint(UInt64), bytes(ArraySlice<UInt8>), fixed }

    static func varint(_ b: ArraySlice<UInt8>, _ i: inout Int) throws -> UInt64 {
        var r: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard i < b.endIndex else { throw DecodeError.truncated }
            let byte = b[i]; i += 1
            r |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return r }
            shift += 7
        }
    }

    static func fields(_ b: ArraySlice<UInt8>) throws -> [(Int, Payload)] {
        var out = [(Int, Payload)]()
        var i = b.startIndex
        while i < b.endIndex {
            let key = try varint(b, &i)
            switch key & 7 {
            case 0: out.append((Int(key >> 3), .varint(try varint(b, &i))))
            case 1: i += 8; out.append((Int(key >> 3), .fixed))
            case 2:
                let n = Int(try varint(b, &i))
                guard i + n <= b.endIndex else { throw DecodeError.truncated }
                out.append((Int(key >> 3), .bytes(b[i..<(i + n)]))); i += n
            case 5: i += 4; out.append((Int(key >> 3), .fixed))
            default: throw DecodeError.badWireType(Int(key & 7))
            }
        }
        return out
    }

    static func packed(_ b: ArraySlice<UInt8>) throws -> [UInt64] {
        var out = [UInt64](), i = b.startIndex
        while i < b.endIndex { out.append(try varint(b, &i)) }
        return out
    }

    static func value(_ b: ArraySlice<UInt8>) throws -> String {
        for (f, p) in try fields(b) {
            switch (f, p) {
            case (1, .bytes(let s)): return String(decoding: s, as: UTF8.self)
            case (6, .varint(let v)): return String(Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1))
            case (4, .varint(let v)), (5, .varint(let v)): return String(v)
            case (7, .varint(let v)): return v != 0 ? "true" : "false"
            default: continue
            }
        }
        return ""
    }

    static func geometry(_ cmds: [UInt64]) throws -> [[(x: Int, y: Int)]] {
        var parts = [[(x: Int, y: Int)]]()
        var x = 0, y = 0, i = 0
        func zz(_ v: UInt64) -> Int { Int(Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)) }
        while i < cmds.count {
            let id = Int(cmds[i] & 7), count = Int(cmds[i] >> 3)
            i += 1
            switch id {
            case 1, 2:
                for _ in 0..<count {
                    guard i + 1 < cmds.count else { throw DecodeError.truncated }
                    x += zz(cmds[i]); y += zz(cmds[i + 1]); i += 2
                    if id == 1 { parts.append([(x, y)]) } else { parts[parts.count - 1].append((x, y)) }
                }
            case 7: break
            default: throw DecodeError.badCommand(id)
            }
        }
        return parts
    }

    public static func area(_ ring: [(x: Int, y: Int)]) -> Double {
        var s = 0.0
        for k in ring.indices {
            let a = ring[k], b = ring[(k + 1) % ring.count]
            s += Double(a.x * b.y - b.x * a.y)
        }
        return s / 2
    }
}
