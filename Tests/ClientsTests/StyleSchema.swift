import Foundation

/// A schema check of MapLibre style documents (style spec v8): the root
/// properties, sources, and per layer type the layout and paint properties
/// MapLibre knows, with their value kinds. MapLibre's own validator needs
/// node and npm, which the build machines cannot reach; the browser test
/// loads the same style into MapLibre GL JS and fails on any error it reports.
enum StyleSchema {
    static let rootKeys: Set<String> = ["version", "name", "metadata", "center", "zoom", "bearing", "pitch", "light",
                                        "sources", "sprite", "glyphs", "transition", "layers", "terrain", "sky", "projection"]
    static let layerKeys: Set<String> = ["id", "type", "metadata", "source", "source-layer", "minzoom", "maxzoom",
                                         "filter", "layout", "paint"]
    static let layout: [String: Set<String>] = [
        "background": ["visibility"],
        "fill": ["visibility", "fill-sort-key"],
        "line": ["visibility", "line-cap", "line-join", "line-miter-limit", "line-round-limit", "line-sort-key"],
        "circle": ["visibility", "circle-sort-key"],
        "raster": ["visibility"],
        "symbol": ["visibility", "text-field", "text-font", "text-size", "text-max-width", "text-allow-overlap",
                   "icon-image", "icon-allow-overlap", "icon-size", "text-anchor", "text-offset", "symbol-placement",
                   "text-optional", "icon-optional", "text-justify", "text-line-height", "symbol-sort-key"],
    ]
    static let paint: [String: Set<String>] = [
        "background": ["background-color", "background-opacity", "background-pattern"],
        "fill": ["fill-color", "fill-opacity", "fill-outline-color", "fill-pattern", "fill-antialias"],
        "line": ["line-color", "line-width", "line-opacity", "line-dasharray", "line-offset", "line-blur"],
        "circle": ["circle-radius", "circle-color", "circle-stroke-color", "circle-stroke-width", "circle-opacity"],
        "raster": ["raster-opacity", "raster-fade-duration", "raster-resampling"],
        "symbol": ["text-color", "text-halo-color", "text-halo-width", "text-halo-blur", "icon-opacity", "text-opacity"],
    ]
    static let expressions: Set<String> = ["all", "any", "!", "match", "in", "concat", "get", "to-string", "geometry-type",
                                           "interpolate", "exponential", "zoom", "coalesce", "image", "slice", "index-of",
                                           "max", "==", "case", "literal", "boolean", "feature-state", "has"]

    /// Every problem found, as "layer id: property: problem".
    static func problems(_ style: [String: Any], spriteNames: Set<String>, fontstacks: Set<String>) -> [String] {
        var out = [String]()
        for k in style.keys where !rootKeys.contains(k) { out.append("root: unknown property \(k)") }
        if style["version"] as? Int != 8 { out.append("root: version must be 8") }
        let sources = style["sources"] as? [String: [String: Any]] ?? [:]
        for (name, s) in sources {
            guard let t = s["type"] as? String, ["vector", "raster"].contains(t) else { out.append("source \(name): type"); continue }
            if (s["tiles"] as? [String])?.isEmpty ?? true { out.append("source \(name): tiles") }
        }
        var ids = Set<String>()
        for l in style["layers"] as? [[String: Any]] ?? [] {
            let id = l["id"] as? String ?? "?"
            if !ids.insert(id).inserted { out.append("\(id): duplicate id") }
            for k in l.keys where !layerKeys.contains(k) { out.append("\(id): unknown property \(k)") }
            guard let type = l["type"] as? String, let allowedLayout = layout[type], let allowedPaint = paint[type] else {
                out.append("\(id): unknown type \(l["type"] ?? "nil")"); continue
            }
            if type != "background" {
                guard let src = l["source"] as? String, let s = sources[src] else { out.append("\(id): source missing"); continue }
                if s["type"] as? String == "vector", l["source-layer"] as? String == nil { out.append("\(id): source-layer missing") }
            }
            let lay = l["layout"] as? [String: Any] ?? [:], pai = l["paint"] as? [String: Any] ?? [:]
            for k in lay.keys where !allowedLayout.contains(k) { out.append("\(id): layout \(k) not a \(type) property") }
            for k in pai.keys where !allowedPaint.contains(k) { out.append("\(id): paint \(k) not a \(type) property") }
            if let v = lay["visibility"] as? String, !["visible", "none"].contains(v) { out.append("\(id): visibility \(v)") }
            for (k, v) in pai where k.hasSuffix("-color") {
                if let c = v as? String, !isColor(c) { out.append("\(id): \(k): not a colour: \(c)") }
                // A match's outputs (every second item after the input, and the default) are colours too.
                if let e = v as? [Any] {
                    out += expressionProblems(e, at: "\(id): \(k)")
                    if e.first as? String == "match" {
                        for i in Swift.stride(from: 3, to: e.count, by: 2) where !((e[i] as? String).map(isColor) ?? false) {
                            out.append("\(id): \(k): match output not a colour: \(e[i])")
                        }
                        if e.count % 2 == 0 || !((e.last as? String).map(isColor) ?? false) { out.append("\(id): \(k): match without a colour default") }
                    }
                }
            }
            if let f = l["filter"] { out += expressionProblems(f, at: "\(id): filter") }
            for (k, v) in pai { out += expressionProblems(v, at: "\(id): paint \(k)") }
            if let fonts = lay["text-font"] as? [String] {
                for f in fonts where !fontstacks.contains(f) { out.append("\(id): text-font \(f) has no glyphs") }
            }
            if let p = pai["fill-pattern"] as? String, !spriteNames.contains(p) { out.append("\(id): fill-pattern \(p) not in sprite") }
            if let p = lay["icon-image"] as? String, !spriteNames.contains(p) { out.append("\(id): icon-image \(p) not in sprite") }
            for z in ["minzoom", "maxzoom"] { if let n = l[z] as? Double, !(0...24).contains(n) { out.append("\(id): \(z) \(n)") } }
        }
        return out
    }

    static func isColor(_ s: String) -> Bool {
        s.range(of: #"^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$"#, options: .regularExpression) != nil
            || s.range(of: #"^rgba\(\d{1,3}, \d{1,3}, \d{1,3}, (0|1|0?\.\d+)\)$"#, options: .regularExpression) != nil
    }

    static func expressionProblems(_ e: Any, at: String) -> [String] {
        guard let a = e as? [Any] else { return [] }
        guard let op = a.first as? String else {
            // A literal array of strings inside match is fine.
            return a.allSatisfy({ $0 is String }) ? [] : ["\(at): array without operator"]
        }
        if !expressions.contains(op) {
            return a.allSatisfy({ $0 is String }) ? [] : ["\(at): unknown expression \(op)"]
        }
        return a.dropFirst().flatMap { expressionProblems($0, at: at) }
    }
}
