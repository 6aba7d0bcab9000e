import Foundation
import Styling

/// Triangles of one material, in glTF's frame (metres; +X east, +Y up, +Z south).
public struct MeshPrimitive: Sendable {
    public var material: String
    public var color: Color
    public var positions: [Float] = []
    public var normals: [Float] = []
    public var indices: [UInt32] = []

    public init(material: String, color: Color) { self.material = material; self.color = color }

    public var isEmpty: Bool { indices.isEmpty }

    /// Appends a vertex and returns its index.
    public mutating func vertex(_ x: Double, _ y: Double, _ z: Double, normal n: (Float, Float, Float)) -> UInt32 {
        positions += [Float(x), Float(y), Float(z)]
        normals += [n.0, n.1, n.2]
        return UInt32(positions.count / 3 - 1)
    }
}

public struct MeshNode: Sendable {
    public var name: String
    public var translation: (Double, Double, Double)
    public var primitives: [MeshPrimitive]
    public init(name: String, translation: (Double, Double, Double) = (0, 0, 0), primitives: [MeshPrimitive]) {
        self.name = name; self.translation = translation; self.primitives = primitives
    }
}

/// Writes glTF 2.0 binary (.glb): one buffer, one mesh per node, one
/// primitive per material, POSITION (with min/max) and NORMAL as float VEC3,
/// 32-bit indices. JSON keys are sorted and numbers printed the same way every
/// time, so the same meshes give the same bytes.
public enum GLBWriter {
    public static func encode(nodes: [MeshNode], generator: String, extras: [String: Any]) throws -> Data {
        var bin = [UInt8]()
        var bufferViews = [[String: Any]](), accessors = [[String: Any]](), meshes = [[String: Any]]()
        var nodeList = [[String: Any]](), materials = [[String: Any]]()
        var materialIndex = [String: Int]()

        func align() { while bin.count % 4 != 0 { bin.append(0) } }
        func view<T>(_ values: [T], target: Int) -> Int {
            align()
            let offset = bin.count
            values.withUnsafeBytes { bin.append(contentsOf: $0) }
            bufferViews.append(["buffer": 0, "byteOffset": offset, "byteLength": bin.count - offset, "target": target])
            return bufferViews.count - 1
        }

        for node in nodes {
            var prims = [[String: Any]]()
            for p in node.primitives where !p.isEmpty {
                precondition(p.positions.count == p.normals.count && p.positions.count % 3 == 0, "malformed primitive \(p.material)")
                var lo = [Float](repeating: .infinity, count: 3), hi = [Float](repeating: -.infinity, count: 3)
                for i in stride(from: 0, to: p.positions.count, by: 3) {
                    for k in 0..<3 { lo[k] = min(lo[k], p.positions[i + k]); hi[k] = max(hi[k], p.positions[i + k]) }
                }
                let count = p.positions.count / 3
                accessors.append(["bufferView": view(p.positions, target: 34962), "componentType": 5126, "count": count, "type": "VEC3",
                                  "min": lo.map(Double.init), "max": hi.map(Double.init)])
                let pos = accessors.count - 1
                accessors.append(["bufferView": view(p.normals, target: 34962), "componentType": 5126, "count": count, "type": "VEC3"])
                let nor = accessors.count - 1
                accessors.append(["bufferView": view(p.indices, target: 34963), "componentType": 5125, "count": p.indices.count, "type": "SCALAR"])
                let idx = accessors.count - 1
                let mi: Int
                if let m = materialIndex[p.material] { mi = m } else {
                    mi = materials.count
                    materialIndex[p.material] = mi
                    materials.append(["name": p.material, "doubleSided": true,
                                      "pbrMetallicRoughness": ["baseColorFactor": linear(p.color), "metallicFactor": 0.0, "roughnessFactor": 0.9]])
                }
                prims.append(["attributes": ["POSITION": pos, "NORMAL": nor], "indices": idx, "material": mi, "mode": 4])
            }
            var n: [String: Any] = ["name": node.name]
            if !prims.isEmpty {
                meshes.append(["name": node.name, "primitives": prims])
                n["mesh"] = meshes.count - 1
            }
            if node.translation != (0, 0, 0) { n["translation"] = [node.translation.0, node.translation.1, node.translation.2] }
            nodeList.append(n)
        }
        align()
        var doc: [String: Any] = [
            "asset": ["version": "2.0", "generator": generator],
            "scene": 0,
            "scenes": [["nodes": Array(nodeList.indices)]],
            "nodes": nodeList,
            "extras": extras,
        ]
        if !meshes.isEmpty {
            doc["meshes"] = meshes; doc["materials"] = materials; doc["accessors"] = accessors
            doc["bufferViews"] = bufferViews; doc["buffers"] = [["byteLength": bin.count]]
        }
        var json = [UInt8](try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys, .withoutEscapingSlashes]))
        while json.count % 4 != 0 { json.append(0x20) }

        var out = [UInt8]()
        func u32(_ v: Int) { var le = UInt32(v).littleEndian; withUnsafeBytes(of: &le) { out.append(contentsOf: $0) } }
        let total = 12 + 8 + json.count + (bin.isEmpty ? 0 : 8 + bin.count)
        u32(0x4654_6C67); u32(2); u32(total)
        u32(json.count); u32(0x4E4F_534A); out += json
        if !bin.isEmpty { u32(bin.count); u32(0x004E_4942); out += bin }
        return Data(out)
    }

    /// glTF colour factors are linear; style colours are sRGB.
    static func linear(_ c: Color) -> [Double] {
        func l(_ v: UInt8) -> Double {
            let s = Double(v) / 255
            let x = s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            return (x * 10000).rounded() / 10000
        }
        return [l(c.r), l(c.g), l(c.b), (Double(c.a) / 255 * 10000).rounded() / 10000]
    }
}
