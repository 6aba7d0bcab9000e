import Foundation

/// A small structural validator of glTF 2.0 binaries for the tests: the GLB
/// container, buffer views inside the buffer, accessors inside their views,
/// POSITION min/max equal to the data, indices inside the vertex count.
public struct GLBFile {
    public var json: [String: Any]
    public var bin: [UInt8]

    public enum Problem: Error, CustomStringConvertible {
        case bad(String)
        public var description: String { if case .bad(let s) = self { return s }; return "" }
    }

    public init(_ data: Data) throws {
        let b = [UInt8](data)
        func u32(_ o: Int) -> Int { Int(UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24) }
        guard b.count >= 20, u32(0) == 0x4654_6C67 else { throw Problem.bad("not a GLB (magic)") }
        guard u32(4) == 2 else { throw Problem.bad("GLB version \(u32(4))") }
        guard u32(8) == b.count else { throw Problem.bad("length field \(u32(8)) != file size \(b.count)") }
        let jsonLen = u32(12)
        guard u32(16) == 0x4E4F_534A, jsonLen % 4 == 0, 20 + jsonLen <= b.count else { throw Problem.bad("bad JSON chunk") }
        guard let j = try JSONSerialization.jsonObject(with: Data(b[20..<(20 + jsonLen)])) as? [String: Any] else { throw Problem.bad("JSON chunk is not an object") }
        json = j
        var o = 20 + jsonLen
        bin = []
        if o < b.count {
            let binLen = u32(o)
            guard u32(o + 4) == 0x004E_4942, binLen % 4 == 0, o + 8 + binLen == b.count else { throw Problem.bad("bad BIN chunk") }
            bin = Array(b[(o + 8)...])
            o += 8 + binLen
        }
    }

    func array(_ k: String) -> [[String: Any]] { json[k] as? [[String: Any]] ?? [] }

    public func floats(accessor i: Int) -> [Float] {
        let a = array("accessors")[i], v = array("bufferViews")[a["bufferView"] as! Int]
        let off = v["byteOffset"] as? Int ?? 0, n = (a["count"] as! Int) * 3
        return (0..<n).map { k in
            let p = off + k * 4
            return Float(bitPattern: UInt32(bin[p]) | UInt32(bin[p + 1]) << 8 | UInt32(bin[p + 2]) << 16 | UInt32(bin[p + 3]) << 24)
        }
    }

    public func indices(accessor i: Int) -> [UInt32] {
        let a = array("accessors")[i], v = array("bufferViews")[a["bufferView"] as! Int]
        let off = v["byteOffset"] as? Int ?? 0
        return (0..<(a["count"] as! Int)).map { k in
            let p = off + k * 4
            return UInt32(bin[p]) | UInt32(bin[p + 1]) << 8 | UInt32(bin[p + 2]) << 16 | UInt32(bin[p + 3]) << 24
        }
    }

    /// Throws the first structural problem found.
    public func validate() throws {
        guard (json["asset"] as? [String: Any])?["version"] as? String == "2.0" else { throw Problem.bad("asset.version is not 2.0") }
        let buffers = array("buffers"), views = array("bufferViews"), accessors = array("accessors")
        if !buffers.isEmpty { guard buffers[0]["byteLength"] as? Int == bin.count else { throw Problem.bad("buffer length != BIN chunk") } }
        for (i, v) in views.enumerated() {
            let off = v["byteOffset"] as? Int ?? 0, len = v["byteLength"] as? Int ?? -1
            guard off >= 0, len > 0, off + len <= bin.count, off % 4 == 0 else { throw Problem.bad("bufferView \(i) out of the buffer") }
        }
        for (i, a) in accessors.enumerated() {
            guard let vi = a["bufferView"] as? Int, vi < views.count, let count = a["count"] as? Int, count > 0 else { throw Problem.bad("accessor \(i)") }
            let comps = ["SCALAR": 1, "VEC3": 3][a["type"] as? String ?? ""] ?? 0
            guard comps > 0, [5126, 5125].contains(a["componentType"] as? Int ?? 0) else { throw Problem.bad("accessor \(i) type") }
            guard count * comps * 4 <= views[vi]["byteLength"] as! Int else { throw Problem.bad("accessor \(i) overruns its bufferView") }
        }
        for (mi, m) in array("meshes").enumerated() {
            for (pi, p) in (m["primitives"] as? [[String: Any]] ?? []).enumerated() {
                let attrs = p["attributes"] as? [String: Int] ?? [:]
                guard let pos = attrs["POSITION"], let nor = attrs["NORMAL"], let idx = p["indices"] as? Int else { throw Problem.bad("mesh \(mi) primitive \(pi) attributes") }
                let xyz = floats(accessor: pos)
                let a = accessors[pos]
                let lo = (a["min"] as? [Double]) ?? [], hi = (a["max"] as? [Double]) ?? []
                guard lo.count == 3, hi.count == 3 else { throw Problem.bad("POSITION min/max missing") }
                for k in 0..<3 {
                    // Compared as float32, the data's own precision (JSON prints the doubles of floats).
                    let vals = stride(from: k, to: xyz.count, by: 3).map { xyz[$0] }
                    guard vals.min()! == Float(lo[k]), vals.max()! == Float(hi[k]) else { throw Problem.bad("mesh \(mi) primitive \(pi): POSITION min/max do not match the data") }
                }
                guard accessors[nor]["count"] as? Int == a["count"] as? Int else { throw Problem.bad("NORMAL count") }
                let n = floats(accessor: nor)
                for k in stride(from: 0, to: n.count, by: 3) {
                    let len = (n[k] * n[k] + n[k + 1] * n[k + 1] + n[k + 2] * n[k + 2]).squareRoot()
                    guard abs(len - 1) < 1e-4 else { throw Problem.bad("normal \(k / 3) not unit length") }
                }
                let vcount = a["count"] as! Int
                let ix = indices(accessor: idx)
                guard ix.count % 3 == 0, ix.allSatisfy({ Int($0) < vcount }) else { throw Problem.bad("mesh \(mi) primitive \(pi): index out of range") }
                if let mat = p["material"] as? Int { guard mat < array("materials").count else { throw Problem.bad("material index") } }
            }
        }
    }
}
