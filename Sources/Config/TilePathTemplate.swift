import Foundation

/// A problem with a path template: names the template and what is wrong with it.
public struct TemplateError: Error, CustomStringConvertible, Equatable {
    public var template: String
    public var problem: String
    public var description: String { "path template \"\(template)\": \(problem)" }
}

/// Everything a tile's path may depend on.
public struct TilePathValues: Sendable, Equatable {
    public var venue: String
    /// The floor id (`floor_0`, `floor_m1`, `floor_b1_0`, `outdoors`, … or `all` for the venue-wide vector pyramid).
    public var floor: String
    /// The floor's ordinal; nil for the venue-wide pyramid, written `all`.
    public var ordinal: Int?
    /// `png` or `mvt`.
    public var format: String
    /// 1 for 256 px tiles, 2 for 512 px, …; vector tiles have 1.
    public var scale: Int
    public var z: Int
    public var x: Int
    public var y: Int

    public init(venue: String, floor: String, ordinal: Int?, format: String, scale: Int, z: Int, x: Int, y: Int) {
        self.venue = venue; self.floor = floor; self.ordinal = ordinal; self.format = format
        self.scale = scale; self.z = z; self.x = x; self.y = y
    }

    /// The file extension of a format: `png`, or `pbf` for vector tiles.
    public var ext: String { format == "mvt" ? "pbf" : format }
}

/// Where a tile goes, relative to the output folder (or a bucket prefix): a
/// template of literal text and tokens.
///
/// | token | value |
/// |---|---|
/// | `{venue}` | the source id |
/// | `{floor}` | the floor id, `all` for the venue-wide vector pyramid |
/// | `{ordinal}` | the floor's ordinal (`-1`, `0`, `2`), `all` for the venue-wide pyramid |
/// | `{format}` | `png` or `mvt` |
/// | `{scale}` | `@2x`, `@3x`, … for raster tiles drawn at that scale, empty at 1 (the high-density suffix clients know) |
/// | `{z}` `{x}` `{y}` | the XYZ tile (y from the north) |
/// | `{tms_y}` | y counted from the south (TMS, MBTiles) |
/// | `{quadkey}` | the Bing/HERE quadkey: one base-4 digit per zoom, so it holds z, x and y |
/// | `{ext}` | `png` or `pbf` |
public struct TilePathTemplate: Sendable, Equatable, CustomStringConvertible {
    public enum Token: String, CaseIterable, Sendable {
        case venue, floor, ordinal, format, scale, z, x, y, tms_y, quadkey, ext
    }

    public enum Part: Sendable, Equatable {
        case literal(String)
        case token(Token)
    }

    public let template: String
    public let parts: [Part]
    public var description: String { template }

    /// The presets, by the name pipeline.json uses.
    ///
    /// - `xyz`: today's tree, `<venue>/<floor>/<png|png@2x|mvt>/{z}/{x}/{y}.<png|pbf>`.
    /// - `tms`: the same with y counted from the south (TileJSON `scheme: "tms"`).
    /// - `quadkey`: `<venue>/<floor>/<tileset>/{quadkey}.<ext>`, one folder per pyramid, as HERE's
    ///   Venue Map Tile API and Bing name tiles.
    /// - `app-bundle`: for tiles shipped inside a mobile app: floors by ordinal (what a floor
    ///   switcher and MapKit/IMDF level code hold), then `{z}/{x}_{y}.<ext>` — one folder per
    ///   zoom instead of one per column, because an app bundle with tens of thousands of small
    ///   folders is slow to copy, sign and install.
    public static let presets: [String: String] = [
        "xyz": "{venue}/{floor}/{format}{scale}/{z}/{x}/{y}.{ext}",
        "tms": "{venue}/{floor}/{format}{scale}/{z}/{x}/{tms_y}.{ext}",
        "quadkey": "{venue}/{floor}/{format}{scale}/{quadkey}.{ext}",
        "app-bundle": "{venue}/{ordinal}/{format}{scale}/{z}/{x}_{y}.{ext}",
    ]

    public static let xyz = try! TilePathTemplate(presets["xyz"]!)

    /// A preset by name, or a template.
    public static func named(_ nameOrTemplate: String) throws -> TilePathTemplate {
        if let t = presets[nameOrTemplate] { return try TilePathTemplate(t) }
        guard nameOrTemplate.contains("{") else {
            throw TemplateError(template: nameOrTemplate,
                                problem: "neither a preset (\(presets.keys.sorted().joined(separator: ", "))) nor a template with {tokens}")
        }
        return try TilePathTemplate(nameOrTemplate)
    }

    /// What a template must tell apart.
    public enum Scope: Sendable {
        /// Every tile of every tileset of every venue (a layout in pipeline.json).
        case everyTileset
        /// The tiles of one tileset of one venue (the manifest's `path_template`,
        /// which has the venue and the tileset folder written out).
        case oneTileset
    }

    /// Parses and checks a template: known tokens only, a relative path without
    /// empty, `.` or `..` segments, and tokens that give one path per tile.
    public init(_ template: String, scope: Scope = .everyTileset) throws {
        self.template = template
        parts = try TilePathTemplate.parse(template)
        try check(scope)
    }

    /// TMS tileset: y counted from the south.
    public var isTMS: Bool { parts.contains(.token(.tms_y)) }

    public func contains(_ t: Token) -> Bool { parts.contains(.token(t)) }

    private static func parse(_ template: String) throws -> [Part] {
        func fail(_ p: String) -> TemplateError { TemplateError(template: template, problem: p) }
        var parts = [Part]()
        var rest = Substring(template)
        while !rest.isEmpty {
            if let open = rest.firstIndex(of: "{") {
                let literal = rest[..<open]
                if literal.contains("}") { throw fail("a '}' without its '{'") }
                if !literal.isEmpty { parts.append(.literal(String(literal))) }
                guard let close = rest[open...].firstIndex(of: "}") else { throw fail("a '{' without its '}'") }
                let name = String(rest[rest.index(after: open)..<close])
                if name.contains("{") { throw fail("a '{' without its '}'") }
                guard let token = Token(rawValue: name) else {
                    throw fail("unknown token {\(name)} (known: \(Token.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")))")
                }
                parts.append(.token(token))
                rest = rest[rest.index(after: close)...]
            } else {
                if rest.contains("}") { throw fail("a '}' without its '{'") }
                parts.append(.literal(String(rest)))
                rest = ""
            }
        }
        return parts
    }

    /// Two tiles get two paths only if the template names the tile (z, x and
    /// y, or the quadkey), the venue, the floor and the tileset, and no two
    /// variable tokens touch (`{z}{x}` gives `1`+`23` and `12`+`3` the same
    /// text). `{scale}` may follow a token: its value starts with `@` or is empty.
    private func check(_ scope: Scope) throws {
        func fail(_ p: String) -> TemplateError { TemplateError(template: template, problem: p) }
        let hasTile = contains(.quadkey) || (contains(.z) && contains(.x) && (contains(.y) || contains(.tms_y)))
        guard hasTile else { throw fail("cannot give one path per tile: needs {z}, {x} and {y} (or {tms_y}), or {quadkey}") }
        guard contains(.floor) || contains(.ordinal) else { throw fail("cannot give one path per floor: needs {floor} or {ordinal}") }
        if scope == .everyTileset {
            guard contains(.venue) else { throw fail("cannot give one path per venue: needs {venue}") }
            guard contains(.format) || contains(.ext) else { throw fail("cannot tell raster from vector tiles: needs {format} or {ext}") }
            guard contains(.scale) else { throw fail("cannot tell 256 px from 512 px tiles: needs {scale}") }
        }
        for (a, b) in zip(parts, parts.dropFirst()) {
            if case .token = a, case .token(let t) = b, t != .scale {
                throw fail("tokens must be separated by literal text: \(a.text){\(t.rawValue)} runs two values together")
            }
        }
        guard !template.hasPrefix("/") else { throw fail("must be relative to the output folder: it starts with '/'") }
        for segment in literalSegments() where segment == "" || segment == "." || segment == ".." {
            throw fail("has an empty, '.' or '..' path segment")
        }
    }

    /// The path segments made only of literal text (`a/{z}/b` → `a`, `b`), and
    /// an empty one wherever two slashes meet or the template ends in one.
    private func literalSegments() -> [String] {
        var segs = [String]()
        var current = "", onlyLiteral = true
        for p in parts {
            switch p {
            case .token: onlyLiteral = false
            case .literal(let s):
                for ch in s {
                    if ch == "/" {
                        if onlyLiteral { segs.append(current) }
                        current = ""; onlyLiteral = true
                    } else { current.append(ch) }
                }
            }
        }
        if onlyLiteral { segs.append(current) }
        return segs
    }

    /// The path of one tile.
    public func path(_ v: TilePathValues) -> String {
        var out = ""
        for p in parts {
            switch p {
            case .literal(let s): out += s
            case .token(let t): out += TilePathTemplate.value(t, v)
            }
        }
        return out
    }

    /// The text of one token for one tile.
    public static func value(_ t: Token, _ v: TilePathValues) -> String {
        switch t {
        case .venue: return v.venue
        case .floor: return v.floor
        case .ordinal: return v.ordinal.map(String.init) ?? "all"
        case .format: return v.format
        case .scale: return v.scale == 1 ? "" : "@\(v.scale)x"
        case .z: return String(v.z)
        case .x: return String(v.x)
        case .y: return String(v.y)
        case .tms_y: return String((1 << v.z) - 1 - v.y)
        case .quadkey: return Quadkey.encode(z: v.z, x: v.x, y: v.y)
        case .ext: return v.ext
        }
    }

    /// The URL template of one pyramid for a TileJSON `tiles` entry: the tile
    /// tokens stay as `{z}/{x}/{y}` (or `{quadkey}`, `{y}` for `{tms_y}`, since
    /// TileJSON's `scheme: "tms"` says how to read y), the rest filled in.
    public func urlTemplate(venue: String, floor: String, ordinal: Int?, format: String, scale: Int) -> String {
        let v = TilePathValues(venue: venue, floor: floor, ordinal: ordinal, format: format, scale: scale, z: 0, x: 0, y: 0)
        var out = ""
        for p in parts {
            switch p {
            case .literal(let s): out += s
            case .token(.z): out += "{z}"
            case .token(.x): out += "{x}"
            case .token(.y), .token(.tms_y): out += "{y}"
            case .token(.quadkey): out += "{quadkey}"
            case .token(let t): out += TilePathTemplate.value(t, v)
            }
        }
        return out
    }
}

extension TilePathTemplate {
    /// The template of one tileset of one venue, as the manifest records it
    /// (`path_template`): venue, format, scale and extension written out; floor,
    /// ordinal and the tile tokens kept. `match` reads such a template's paths back.
    public func tilesetTemplate(venue: String, format: String, scale: Int) -> String {
        let v = TilePathValues(venue: venue, floor: "", ordinal: nil, format: format, scale: scale, z: 0, x: 0, y: 0)
        return parts.map { p -> String in
            switch p {
            case .token(let t) where [.venue, .format, .scale, .ext].contains(t): return TilePathTemplate.value(t, v)
            default: return p.text
            }
        }.joined()
    }

    /// The folder holding every tile of one pyramid, where its TileJSON goes: the
    /// path up to the last `/` before the first tile token (`v/floor_0/png` for
    /// `xyz` and `quadkey`, `v/0/png` for `app-bundle`); "" when tiles sit at the root.
    public func pyramidFolder(venue: String, floor: String, ordinal: Int?, format: String, scale: Int) -> String {
        let v = TilePathValues(venue: venue, floor: floor, ordinal: ordinal, format: format, scale: scale, z: 0, x: 0, y: 0)
        var prefix = ""
        for p in parts {
            switch p {
            case .literal(let s): prefix += s
            case .token(let t) where [.z, .x, .y, .tms_y, .quadkey].contains(t):
                return prefix.lastIndex(of: "/").map { String(prefix[..<$0]) } ?? ""
            case .token(let t): prefix += TilePathTemplate.value(t, v)
            }
        }
        return prefix.lastIndex(of: "/").map { String(prefix[..<$0]) } ?? ""
    }
}

extension TilePathTemplate.Part {
    var text: String {
        switch self {
        case .literal(let s): return s
        case .token(let t): return "{\(t.rawValue)}"
        }
    }
}

/// Bing/HERE quadkeys: digit i (from the top) is bit i of x plus twice bit i of y.
public enum Quadkey {
    public static func encode(z: Int, x: Int, y: Int) -> String {
        var s = ""
        s.reserveCapacity(z)
        for i in stride(from: z - 1, through: 0, by: -1) {
            let d = ((x >> i) & 1) | (((y >> i) & 1) << 1)
            s.append(Character(Unicode.Scalar(UInt8(48 + d))))
        }
        return s
    }

    /// (z, x, y) of a quadkey; nil when a character is not 0–3.
    public static func decode(_ key: Substring) -> (z: Int, x: Int, y: Int)? {
        var x = 0, y = 0
        for c in key.utf8 {
            guard c >= 48 && c <= 51 else { return nil }
            let d = Int(c - 48)
            x = x << 1 | (d & 1)
            y = y << 1 | (d >> 1)
        }
        return (key.utf8.count, x, y)
    }
}

/// What a path says, read back through its template.
public struct MatchedTilePath: Sendable, Equatable {
    public var z: Int, x: Int, y: Int
    /// Token values other than the tile's, as written (`floor` → `floor_0`).
    public var values: [TilePathTemplate.Token: String]
}

extension TilePathTemplate {
    /// Reads a path back: the tile and the other tokens' values, or nil when
    /// the path does not fit. A token takes the characters its values can hold
    /// (digits for `{z}`, 0–3 for `{quadkey}`, …; anything but `/` for names),
    /// as few as let the next literal text match.
    public func match(_ path: String) -> MatchedTilePath? {
        let u = Array(path.utf8)
        var values = [Token: String]()
        guard matchParts(u, 0, 0, &values) else { return nil }
        let z: Int, x: Int, y: Int
        if let q = values[.quadkey] {
            guard let t = Quadkey.decode(Substring(q)) else { return nil }
            (z, x, y) = t
        } else {
            guard let zz = values[.z].flatMap({ Int($0) }), zz <= 30, let xx = values[.x].flatMap({ Int($0) }) else { return nil }
            z = zz; x = xx
            if let yy = values[.y].flatMap({ Int($0) }) { y = yy }
            else if let ty = values[.tms_y].flatMap({ Int($0) }) { y = (1 << z) - 1 - ty }
            else { return nil }
        }
        guard x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
        return MatchedTilePath(z: z, x: x, y: y, values: values)
    }

    private func matchParts(_ u: [UInt8], _ part: Int, _ at: Int, _ values: inout [Token: String]) -> Bool {
        guard part < parts.count else { return at == u.count }
        switch parts[part] {
        case .literal(let s):
            let l = Array(s.utf8)
            guard at + l.count <= u.count, Array(u[at..<at + l.count]) == l else { return false }
            return matchParts(u, part + 1, at + l.count, &values)
        case .token(let t):
            var end = at
            // Shortest first, so that the next literal text decides where a value ends.
            while true {
                if end > at || t == .scale || t == .quadkey, TilePathTemplate.accepts(t, u[at..<end]) {
                    values[t] = String(decoding: u[at..<end], as: UTF8.self)
                    if matchParts(u, part + 1, end, &values) { return true }
                }
                guard end < u.count, TilePathTemplate.mayHold(t, u[end]) else { break }
                end += 1
            }
            values[t] = nil
            return false
        }
    }

    private static func mayHold(_ t: Token, _ c: UInt8) -> Bool {
        let digit = c >= 48 && c <= 57
        switch t {
        case .z, .x, .y, .tms_y: return digit
        case .quadkey: return c >= 48 && c <= 51
        case .ordinal: return digit || c == UInt8(ascii: "-") || "al".utf8.contains(c)
        case .scale: return digit || c == UInt8(ascii: "@") || c == UInt8(ascii: "x")
        case .venue, .floor, .format, .ext: return c != UInt8(ascii: "/")
        }
    }

    private static func accepts(_ t: Token, _ s: ArraySlice<UInt8>) -> Bool {
        let text = String(decoding: s, as: UTF8.self)
        switch t {
        case .ordinal: return text == "all" || Int(text) != nil
        case .scale: return text.isEmpty || (text.hasPrefix("@") && text.hasSuffix("x") && Int(text.dropFirst().dropLast()).map { $0 >= 2 } == true)
        default: return true
        }
    }
}
