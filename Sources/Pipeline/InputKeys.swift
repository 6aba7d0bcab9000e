import Crypto
import Drawing
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
    /// 16 bytes of SHA-256 over one item, kept inline (no array per item).
    public typealias ItemHash = Digest16

    /// The one recipe for everything that decides a tile's bytes besides its
    /// items, as text: the generator, and every option of the tileset that
    /// matters for its format (`InputKeysTests` fails when a tileset option is
    /// added and this does not say whether it counts). A change here changes
    /// every key: bump `Generator.version` with it.
    static func header(_ ts: PipelineConfig.Tileset, zoom: Int, maxZoom: Int, venueWide: Bool, spriteDigest: String) -> String {
        switch ts.format {
        case .png:
            // The sprite's pixels are part of every raster tile that draws an icon or a pattern.
            // Drawn in metatiles or alone: the same pixels by design, but the key says which.
            // Quantized tiles name the quantizer's settings (the quality among them), small ones libdeflate's
            // level; lossless fast ones say nothing, so their keys stay.
            return "\(Generator.name) \(Generator.version) png scale=\(ts.scale) metatile=\(ts.metatileSpan(zoom: zoom)) sprite=\(spriteDigest)"
                + (ts.quantize ? " quantize=" + ImageQuantizer.Settings.tiles(quality: ts.quality).keyDescription : "")
                + (ts.compression == .fast ? "" : " compression=\(ts.compression.rawValue)-libdeflate\(LibdeflateCompressor.version)-\(PNGEncoder.smallLevel)")
        case .mvt:
            let tolerance = zoom < maxZoom ? ts.simplify : 0
            return "\(Generator.name) \(Generator.version) mvt extent=\(ts.extent) buffer=\(ts.buffer) gzip=\(ts.gzip) simplify=\(tolerance) pyramid=\(venueWide ? "venue" : "floor")"
        }
    }

    /// The options of a tileset that do not decide the bytes of its format's
    /// tiles (the others all appear in `header`).
    static let optionsNotInKey: [PipelineConfig.Tileset.Format: Set<String>] = [
        // `layers` says which pyramids exist; each pyramid's items and folder are in its own keys.
        .png: ["extent", "buffer", "gzip", "simplify", "pathTemplate", "archive", "layers"],
        .mvt: ["scale", "metatile", "quantize", "quality", "compression", "pathTemplate", "archive", "layers"],
    ]

    /// Collects the bytes and hashes them once in `finish`: SHA-256 of the same
    /// bytes in one update (the digest does not depend on how they are split),
    /// where an update per number spent more in the call than in the hash.
    struct Writer {
        private var buffer: [UInt8] = { var b = [UInt8](); b.reserveCapacity(256); return b }()
        mutating func bytes(_ b: [UInt8]) { buffer += b }
        mutating func string(_ s: String) { buffer += s.utf8; buffer.append(0) }
        mutating func double(_ d: Double) { append(d.bitPattern.littleEndian) }
        mutating func int(_ i: Int) { append(Int64(i).littleEndian) }
        private mutating func append<T>(_ v: T) { withUnsafeBytes(of: v) { buffer.append(contentsOf: $0) } }
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
        mutating func layout(_ l: TextLayout) {
            int(l.lines.count)
            for (line, width) in zip(l.lines, l.lineWidths) { string(line); double(width) }
            double(l.ascent); double(l.lineHeight)
        }
        mutating func labelStyle(_ s: LabelStyle?) {
            guard let s else { return string("-") }
            string(s.fontName); double(s.fontSize); color(s.color); color(s.haloColor); double(s.haloWidth); double(s.maxWidth)
        }
        /// The first 16 bytes of the SHA-256.
        func finish() -> Digest16 {
            SHA256.hash(data: buffer).withUnsafeBytes { b in
                var hi: UInt64 = 0, lo: UInt64 = 0
                for k in 0..<8 { hi = hi << 8 | UInt64(b[k]); lo = lo << 8 | UInt64(b[8 + k]) }
                return Digest16(high: hi, low: lo)
            }
        }
        /// A digest's 16 bytes, in the order it was made from.
        mutating func digest(_ d: Digest16) { append(d.high.bigEndian); append(d.low.bigEndian) }
    }

    public static func raster(_ item: DrawItem) -> ItemHash {
        var w = Writer()
        w.geometry(item.geometry)
        w.color(item.paint.fill); w.color(item.paint.outline); w.color(item.paint.line)
        if item.wholeTile { w.string("background") }
        if item.grow > 0 { w.string("grow"); w.double(item.grow) }
        if let c = item.clip {
            w.string("clip")
            w.int(c.rings.count)
            for r in c.rings { w.int(r.count); r.forEach { w.double($0.x); w.double($0.y) } }
        }
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

    /// The digest of a pyramid's inputs: the key headers of its zooms, the
    /// hashes of its items and, for a raster floor, everything label placement
    /// reads. Equal digests mean the same tiles with the same keys, so a build
    /// can take a pyramid's entries from the last build without planning it.
    public static func pyramid(directory: String, headers: [String], zooms: [Int], items: [ItemHash], floor: PreparedFloor?) -> Digest16 {
        var w = Writer()
        w.string(directory)
        w.int(zooms.count)
        for (z, h) in zip(zooms, headers) { w.int(z); w.string(h) }
        w.int(items.count)
        for i in items { w.digest(i) }
        if let f = floor {
            w.labelStyle(f.labelStyle)
            w.int(f.labels.count)
            for l in f.labels {
                w.string(l.featureID); w.layout(l.layout); w.double(l.anchor.x); w.double(l.anchor.y)
                w.int(l.rings.count)
                for r in l.rings { w.int(r.count); r.forEach { w.double($0.x); w.double($0.y) } }
                w.double(l.area); w.labelStyle(l.style); w.int(l.rank); w.double(l.weight); w.string(l.spills ? "spills" : "stays")
            }
            w.int(f.area.count)
            for r in f.area { w.int(r.count); r.forEach { w.double($0.x); w.double($0.y) } }
            w.int(f.obstacles.count)
            for o in f.obstacles {
                w.int(o.rings.count)
                for r in o.rings { w.int(r.count); r.forEach { w.double($0.x); w.double($0.y) } }
            }
            w.int(f.icons.count)
            for ic in f.icons {
                w.string(ic.featureID); w.double(ic.anchor.x); w.double(ic.anchor.y); w.string(ic.name.map { "icon " + $0 } ?? "dot")
                w.double(ic.width); w.double(ic.height); w.digest(raster(ic.fallback)); w.int(ic.tier)
            }
        }
        return w.finish()
    }

    /// A key header as the bytes `tile(header:…)` hashes (as `Writer.string` does).
    public static func headerBytes(_ header: String) -> [UInt8] { Array(header.utf8) + [0] }

    /// The key of one tile. `header`: `headerBytes(_:)` of its pyramid and zoom.
    public static func tile(header: [UInt8], tile: TileID, items: [ItemHash], indices: ArraySlice<Int32>) -> Digest16 {
        var w = Writer()
        w.bytes(header)
        w.int(tile.z); w.int(tile.x); w.int(tile.y)
        w.int(indices.count)
        for i in indices { w.digest(items[Int(i)]) }
        return w.finish()
    }
}

import Styling
