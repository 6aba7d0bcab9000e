import Foundation
import VenueModel

/// The paint of one style layer after wildcard resolution.
public struct LayerStyle: Hashable, Sendable {
    public var hidden = false
    public var fillColor: Color?
    public var outlineColor: Color?
    public var lineColor: Color?
    public var fontColor: Color?
    public var fontStrokeColor: Color?
    public var fontName: String?
    public var fontSize: Double?
    public var fontStrokeWidth: Double?
    public var maxTextWidth: Double?
    public var iconName: String?
    public var fillPattern: String?
    /// Unit fills by category (`category-fill-colors`, a VenueTiles addition to
    /// the spec): an IMDF unit or occupant category, or its prefix before a
    /// `.` ("restroom" for "restroom.female"), to a colour replacing `fill-color`.
    public var categoryFillColors: [String: Color] = [:]

    public init() {}

    /// A polygon layer's paint.
    public static func paint(fill: Color?, outline: Color? = nil) -> LayerStyle {
        var s = LayerStyle()
        s.fillColor = fill; s.outlineColor = outline
        return s
    }

    /// The fill for a unit of `category` (and, for a unit its category does not
    /// describe, the category of the occupant it holds); nil: `fill-color`.
    public func categoryFill(_ category: String, occupant: String? = nil) -> Color? {
        categoryFillKey(category, occupant: occupant).flatMap { categoryFillColors[$0] }
    }

    /// The key of `category-fill-colors` that gives the fill of `categoryFill`
    /// (`shop` for a unit of category `shop.clothes`); nil: none does.
    public func categoryFillKey(_ category: String, occupant: String? = nil) -> String? {
        guard !categoryFillColors.isEmpty else { return nil }
        for c in [category, occupant].compactMap({ $0 }) {
            var k = Substring(c)
            while true {
                if categoryFillColors[String(k)] != nil { return String(k) }
                guard let dot = k.lastIndex(of: ".") else { break }
                k = k[..<dot]
            }
        }
        return nil
    }

    /// True when the layer draws nothing.
    public var drawsNothing: Bool {
        hidden || (fillColor == nil && outlineColor == nil && lineColor == nil)
    }
}

/// A style document in the Vector Map Tile Style Spec (1.0 / 1.1).
public struct Style: Sendable {
    public var id: String
    public var name: String?
    public var version: String
    /// Entries by their `layer-id` as written (templates with wildcards or exact ids).
    public var layers: [String: LayerStyle]
    /// Problems that did not stop parsing (unknown layer ids and properties).
    public var warnings: [String]
    /// The `wayfinding` section, checked (clients draw the route; tiles do not).
    public var wayfinding: Wayfinding? = nil

    /// The style of `template` for one floor or building: an entry naming the
    /// exact id wins over the wildcard entry. nil when the style has neither.
    public func resolve(_ template: String, floor: String? = nil, building: String? = nil) -> LayerStyle? {
        let exact = LayerTable.layerID(template, floor: floor, building: building)
        return layers[exact] ?? layers[template]
    }

    /// The style of `template` where a floor or building goes by several ids,
    /// most specific first (a building floor `floor_b1_0`, then its ordinal
    /// floor `floor_0`; a building's spec id `building_1`, then its source id):
    /// the first exact entry wins, then the wildcard entry.
    public func resolve(_ template: String, floors: [String], buildings: [String] = []) -> LayerStyle? {
        let fs: [String?] = floors.isEmpty ? [nil] : floors, bs: [String?] = buildings.isEmpty ? [nil] : buildings
        for f in fs {
            for b in bs {
                let exact = LayerTable.layerID(template, floor: f, building: b)
                if exact != template, let s = layers[exact] { return s }
            }
        }
        return layers[template]
    }

    public static func parse(_ data: Data, source: String) throws -> Style {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw StyleError(source: source, entry: nil, property: nil, problem: "malformed JSON")
        }
        guard let doc = root as? [String: Any] else {
            throw StyleError(source: source, entry: nil, property: nil, problem: "expected a JSON object")
        }
        guard let id = doc["id"] as? String else {
            throw StyleError(source: source, entry: nil, property: "id", problem: "required string is missing")
        }
        let version = try Style.version(doc["version"], source: source)
        guard let entries = doc["styles"] as? [Any] else {
            throw StyleError(source: source, entry: nil, property: "styles", problem: "required list is missing")
        }
        var warnings = [String]()
        for key in doc.keys.sorted() where !["id", "name", "version", "styles", "wayfinding"].contains(key) {
            warnings.append("\(source): unknown top-level property \"\(key)\"")
        }
        var layers = [String: LayerStyle]()
        for (i, any) in entries.enumerated() {
            guard let e = any as? [String: Any], let layerID = e["layer-id"] as? String else {
                throw StyleError(source: source, entry: "styles[\(i)]", property: "layer-id", problem: "required string is missing")
            }
            let entry = "styles[\(i)] (\(layerID))"
            if !Style.isKnownLayerID(layerID) {
                warnings.append("\(source): \(entry): unknown layer id")
            }
            for key in e.keys.sorted() where version == "1.0" && Style.since11.contains(key) {
                warnings.append("\(source): \(entry): \"\(key)\" is a spec 1.1 property in a version 1.0 document (write \"version\": \"1.1\")")
            }
            var s = LayerStyle()
            for key in e.keys.sorted() {
                let v = e[key]!
                func color() throws -> Color {
                    guard let str = v as? String, let c = Color(hex: str) else {
                        throw StyleError(source: source, entry: entry, property: key, problem: "expected a colour #RGB, #RRGGBB or #RRGGBBAA, found \(v)")
                    }
                    return c
                }
                func number() throws -> Double {
                    guard let n = v as? NSNumber, !JSONTypes.isBoolean(v), n.doubleValue.isFinite, n.doubleValue >= 0 else {
                        throw StyleError(source: source, entry: entry, property: key, problem: "expected a non-negative number, found \(v)")
                    }
                    return n.doubleValue
                }
                func string() throws -> String {
                    guard let str = v as? String else {
                        throw StyleError(source: source, entry: entry, property: key, problem: "expected a string, found \(v)")
                    }
                    return str
                }
                switch key {
                case "layer-id": break
                case "hidden":
                    guard let b = JSONTypes.boolean(v) else {
                        throw StyleError(source: source, entry: entry, property: key, problem: "expected true or false, found \(v)")
                    }
                    s.hidden = b
                case "fill-color": s.fillColor = try color()
                case "outline-color": s.outlineColor = try color()
                case "line-color": s.lineColor = try color()
                case "font-color": s.fontColor = try color()
                case "font-stroke-color": s.fontStrokeColor = try color()
                case "font-name": s.fontName = try string()
                case "font-size": s.fontSize = try number()
                case "font-stroke-width": s.fontStrokeWidth = try number()
                case "max-text-width": s.maxTextWidth = try number()
                case "icon-name": s.iconName = try string()
                case "fill-pattern": s.fillPattern = try string()
                case "category-fill-colors":
                    guard let map = v as? [String: Any] else {
                        throw StyleError(source: source, entry: entry, property: key, problem: "expected an object of category → colour, found \(v)")
                    }
                    for (category, c) in map {
                        guard let str = c as? String, let color = Color(hex: str) else {
                            throw StyleError(source: source, entry: entry, property: "\(key).\(category)",
                                             problem: "expected a colour #RGB, #RRGGBB or #RRGGBBAA, found \(c)")
                        }
                        s.categoryFillColors[category] = color
                    }
                default: warnings.append("\(source): \(entry): unknown property \"\(key)\"")
                }
            }
            layers[layerID] = s
        }
        var style = Style(id: id, name: doc["name"] as? String, version: version, layers: layers, warnings: warnings)
        if let w = doc["wayfinding"] {
            style.wayfinding = try Wayfinding.parse(w, version: version, source: source, warnings: &style.warnings)
        }
        return style
    }

    /// Properties of style entries that spec 1.0 does not have.
    static let since11: Set<String> = ["outline-color"]

    /// `version`: "1.0" or "1.1", written as a string or a number (1.1 is read as 1.1); absent: 1.0.
    static func version(_ v: Any?, source: String) throws -> String {
        guard let v else { return "1.0" }
        if let s = v as? String, s == "1.0" || s == "1.1" { return s }
        if let n = v as? NSNumber, !JSONTypes.isBoolean(v) {
            if n.doubleValue == 1 { return "1.0" }
            if n.doubleValue == 1.1 { return "1.1" }
        }
        throw StyleError(source: source, entry: nil, property: "version", problem: "must be \"1.0\" or \"1.1\", found \(v)")
    }

    /// A layer id is known when it is a template or a template with its wildcard
    /// filled in, `outdoors`, or a floor id (the floor's raster tiles). Whether
    /// the floor or building it names exists is checked against a build's floors.
    static func isKnownLayerID(_ id: String) -> Bool {
        if id == LayerTable.outdoorsID || id == "[FLOOR]" || LayerTable.exactID(id) != nil { return true }
        for t in LayerTable.drawingOrder {
            if t == id { return true }
            if let r = t.range(of: "[FLOOR]") ?? t.range(of: "[BUILDING]") {
                let prefix = t[..<r.lowerBound]
                if id.hasPrefix(prefix) && id.count > prefix.count { return true }
            }
        }
        return false
    }
}

public struct StyleError: Error, CustomStringConvertible {
    public var source: String
    public var entry: String?
    public var property: String?
    public var problem: String
    public init(source: String, entry: String?, property: String?, problem: String) {
        self.source = source; self.entry = entry; self.property = property; self.problem = problem
    }
    public var description: String {
        [source, entry, property.map { "\"\($0)\"" }].compactMap { $0 }.joined(separator: ": ") + ": " + problem
    }
}
