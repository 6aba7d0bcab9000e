import Archives
import Foundation
import TileGeometry

/// Where one pyramid's tiles go under a layout other than the xyz tree
/// (pipeline.json `layout` or `path`): its tileset's template with the venue,
/// floor and tileset written out, so that a tile's path is made from its z, x
/// and y alone; and read back through the whole template.
struct PyramidLayout: @unchecked Sendable {
    private enum Part { case literal([UInt8]), z, x, y, tmsY, quadkey }
    /// The template with only the tile tokens left (`h/floor_0/png/{quadkey}.png`).
    let pattern: String
    private let parts: [Part]
    private let template: TilePathTemplate

    init(template: TilePathTemplate, venue: String, floor: String, ordinal: Int?, format: String, scale: Int) {
        self.template = template
        let v = TilePathValues(venue: venue, floor: floor, ordinal: ordinal, format: format, scale: scale, z: 0, x: 0, y: 0)
        var parts = [Part](), pattern = ""
        for p in template.parts {
            switch p {
            case .literal(let s): parts.append(.literal(Array(s.utf8))); pattern += s
            case .token(.z): parts.append(.z); pattern += "{z}"
            case .token(.x): parts.append(.x); pattern += "{x}"
            case .token(.y): parts.append(.y); pattern += "{y}"
            case .token(.tms_y): parts.append(.tmsY); pattern += "{tms_y}"
            case .token(.quadkey): parts.append(.quadkey); pattern += "{quadkey}"
            case .token(let t):
                // Venue, floor, format, scale, extension: the same for every tile.
                let text = TilePathTemplate.value(t, v)
                parts.append(.literal(Array(text.utf8))); pattern += text
            }
        }
        self.parts = parts; self.pattern = pattern
    }

    /// The path of one tile, made from bytes (no string interpolation per tile).
    func path(_ t: TileID, into buf: inout [UInt8]) -> String {
        buf.removeAll(keepingCapacity: true)
        func decimal(_ v: Int) {
            let start = buf.count
            var v = v
            repeat { buf.append(UInt8(48 + v % 10)); v /= 10 } while v > 0
            buf[start...].reverse()
        }
        for p in parts {
            switch p {
            case .literal(let b): buf += b
            case .z: decimal(t.z)
            case .x: decimal(t.x)
            case .y: decimal(t.y)
            case .tmsY: decimal((1 << t.z) - 1 - t.y)
            case .quadkey:
                for i in stride(from: t.z - 1, through: 0, by: -1) {
                    let digit: Int = ((t.x >> i) & 1) | (((t.y >> i) & 1) << 1)
                    buf.append(UInt8(48 + digit))
                }
            }
        }
        return String(decoding: buf, as: UTF8.self)
    }

    /// The tile a path of this layout names; nil when it is not one.
    func tile(_ path: String) -> TileID? {
        template.match(path).map { TileID(z: $0.z, x: $0.x, y: $0.y) }
    }
}

extension Builder.Pyramid {
    /// What the pyramid digest says about where the tiles go: the folder, and
    /// the template when it is not the xyz tree (a layout changed is a pyramid
    /// not carried over: its tiles move).
    var placeKey: String { layout.map { directory + "\n" + $0.pattern } ?? directory }
}

extension Builder {
    /// Gives each pyramid whose tileset has a layout other than xyz its folder
    /// (where its TileJSON goes: the template's path up to the first tile
    /// token) and its `PyramidLayout`; xyz pyramids keep `<venue>/<floor>/<tileset>`.
    func applyLayouts(_ pyramids: inout [Pyramid], _ venues: [PreparedVenue]) {
        let xyz = TilePathTemplate.presets["xyz"]!
        for pi in pyramids.indices {
            let p = pyramids[pi], ts = config.tilesets[p.tileset]
            guard ts.pathTemplate != xyz else { continue }
            let template = try! TilePathTemplate(ts.pathTemplate)   // checked when the config was read
            let v = venues[p.venue]
            let ordinal = floorOf(p, v)?.floor.ordinal
            pyramids[pi].directory = template.pyramidFolder(venue: v.sourceID, floor: p.name, ordinal: ordinal, format: ts.format.rawValue, scale: ts.scale)
            pyramids[pi].layout = PyramidLayout(template: template, venue: v.sourceID, floor: p.name, ordinal: ordinal,
                                                format: ts.format.rawValue, scale: ts.scale)
        }
    }

    /// Every pyramid needs a folder of its own for its TileJSON and so that the
    /// last build's entries are found by folder: a template whose tile tokens
    /// come before the venue, floor or tileset (or that gives two floors one
    /// ordinal, as `{ordinal}` does for a mezzanine at 0.5) is refused.
    func checkTileLayouts(_ pyramids: [Pyramid]) throws {
        var seen = [String: Int]()
        for (pi, p) in pyramids.enumerated() {
            let ts = config.tilesets[p.tileset]
            let key = "tilesets[\(p.tileset)]." + (TilePathTemplate.presets.values.contains(ts.pathTemplate) ? "layout" : "path")
            if p.directory.isEmpty {
                throw ConfigError(file: config.file, key: key, problem: "path template \"\(ts.pathTemplate)\" puts tiles at the top of the output folder: the venue, floor and tileset tokens must come before the tile tokens")
            }
            if let other = seen[p.directory] {
                let o = pyramids[other]
                throw ConfigError(file: config.file, key: key,
                                      problem: "path template \"\(ts.pathTemplate)\" puts the tiles of \(o.name) (\(config.tilesets[o.tileset].directoryName)) and \(p.name) (\(ts.directoryName)) in one folder, \(p.directory): each floor's tileset needs a folder of its own (name it by {floor} rather than {ordinal}, and put {venue}, {floor} and {format}{scale} before the tile tokens)")
            }
            seen[p.directory] = pi
        }
    }

    /// The tile a path of pyramid `p` names (nil when it is not one of its
    /// layout): `<directory>/<z>/<x>/<y>.<ext>` read without parsing a template.
    func tileOf(_ path: String, in p: Pyramid) -> TileID? {
        if let layout = p.layout { return layout.tile(path) }
        return tileOf(path, after: p.directory.utf8.count)
    }

    /// `tileOf(_:in:)` of a path's UTF-8 bytes (a `String` made only for a layout's template).
    func tileOf(utf8 path: UnsafeBufferPointer<UInt8>, in p: Pyramid) -> TileID? {
        if let layout = p.layout { return layout.tile(String(decoding: path, as: UTF8.self)) }
        return tileOf(utf8: path, after: p.directory.utf8.count)
    }

    /// The prepared floor a pyramid draws: a raster pyramid's is one of the
    /// venue's sheets (floors, then overlays), a vector pyramid's one of its floors.
    func floorOf(_ p: Pyramid, _ v: PreparedVenue) -> PreparedFloor? {
        guard let f = p.floor else { return nil }
        if case .raster = p.content { return v.sheet(f) }
        return v.floors[f]
    }

    /// The `tiles` URL and `scheme` of a pyramid's TileJSON.
    func tileURL(_ p: Pyramid, _ v: PreparedVenue) -> (url: String, scheme: String) {
        let ts = config.tilesets[p.tileset]
        return TileJSON.tileURL(base: config.baseURL, tileJSONPath: "\(p.directory)/tilejson.json", tileset: ts,
                                venue: v.sourceID, floor: p.name, ordinal: floorOf(p, v)?.floor.ordinal)
    }
}
