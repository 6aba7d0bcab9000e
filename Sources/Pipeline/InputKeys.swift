import Crypto
import Rendering
import TileGeometry

/// Input keys: a stable hash of everything that decides a tile's bytes.
///
/// Each drawn or encoded item is hashed once (its geometry, paint or layer
/// names and properties); a tile's key hashes the generator version, the
/// tileset options, the pyramid, the tile id and the hashes of the items that
/// touch it, in drawing order. No drawing, no encoding. SHA-256 throughout,
/// never Swift's per-process `Hasher`.
public enum InputKeys {
    /// 16 bytes of SHA-256 over one item.
    public typealias ItemHash = [UInt8]

    struct Writer {
        var h = SHA256()
        mutating func bytes(_ b: [UInt8]) { h.update(data: b) }
        mutating func string(_ s: String) { var b = Array(s.utf8); b.append(0); h.update(data: b) }
        mutating func double(_ d: Double) { var v = d.bitPattern.littleEndian; withUnsafeBytes(of: &v) { h.update(bufferPointer: $0) } }
        mutating func int(_ i: Int) { var v = Int64(i).littleEndian; withUnsafeBytes(of: &v) { h.update(bufferPointer: $0) } }
        mutating func geometry(_ g: ProjectedGeometry) {
            switch g {
            case .points(let ps): string("P"); int(ps.count); ps.forEach { double($0.x); double($0.y) }
            case .lines(let ls): string("L"); int(ls.count); for l in ls { int(l.count); l.forEach { double($0.x); double($0.y) } }
            case .polygons(let polys):
                string("A"); int(polys.count)
                for rings in polys { int(rings.count); for r in rings { int(r.count); r.forEach { double($0.x); double($0.y) } } }
            }
        }
        mutating func color(_ c: Styling.Color?) {
            guard let c else { return string("-") }
            bytes([1, c.r, c.g, c.b, c.a])
        }
        func finish() -> ItemHash { Array(h.finalize().prefix(16)) }
    }

    public static func raster(_ item: DrawItem) -> ItemHash {
        var w = Writer()
        w.geometry(item.geometry)
        w.color(item.paint.fill); w.color(item.paint.outline); w.color(item.paint.line)
        if item.wholeTile { w.string("background") }
        if let p = item.paint.pattern { w.string("pattern"); w.string(p) }
        if let ic = item.icon { w.string("icon"); w.string(ic.name); w.double(ic.anchor.x); w.double(ic.anchor.y) }
        if let l = item.label {
            // Everything a label's pixels depend on: text, metrics, anchor and look.
            w.string("label")
            w.double(l.anchor.x); w.double(l.anchor.y)
            for (line, width) in zip(l.layout.lines, l.layout.lineWidths) { w.string(line); w.double(width) }
            w.double(l.layout.ascent); w.double(l.layout.lineHeight)
            w.string(l.style.fontName); w.double(l.style.fontSize); w.color(l.style.color)
            w.color(l.style.haloColor); w.double(l.style.haloWidth); w.double(l.style.maxWidth)
        }
        return w.finish()
    }

    public static func vector(_ item: VectorItem) -> ItemHash {
        var w = Writer()
        w.string(item.floorLayer); w.string(item.venueLayer)
        w.bytes(withUnsafeBytes(of: item.id.littleEndian) { Array($0) })
        w.int(item.properties.count)
        for (k, v) in item.properties {
            w.string(k)
            switch v {
            case .string(let s): w.string("s"); w.string(s)
            case .int(let i): w.string("i"); w.int(Int(i))
            case .double(let d): w.string("d"); w.double(d)
            case .bool(let b): w.string(b ? "t" : "f")
            }
        }
        w.geometry(item.geometry)
        return w.finish()
    }

    /// The key of one tile.
    public static func tile(header: String, tile: TileID, items: [ItemHash], indices: [Int32]) -> Digest16 {
        var w = Writer()
        w.string(header)
        w.int(tile.z); w.int(tile.x); w.int(tile.y)
        w.int(indices.count)
        for i in indices { w.bytes(items[Int(i)]) }
        return Digest16(bytes: w.finish())
    }
}

import Styling
