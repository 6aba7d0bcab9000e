import Foundation
import VenueModel

/// The style spec's `wayfinding` section: how a client draws a route. Tiles
/// do not draw routes; the section is checked so that a wrong value is found
/// when the style is written, not when a client reads it.
public struct Wayfinding: Sendable, Equatable {
    public var numbers: [String: Double] = [:]
    public var colors: [String: Color] = [:]

    enum Kind { case width, alpha, color }
    /// Every key of the spec: its value's kind, the version that added it, and
    /// what replaces it when 1.1 deprecated it.
    static let keys: [String: (kind: Kind, since: String, replacedBy: String?)] = {
        var k = [String: (kind: Kind, since: String, replacedBy: String?)]()
        for p in ["path", "highlighted-path"] {
            k["\(p)-stroke-width"] = (.width, "1.0", "\(p)-stroke-min-width and \(p)-stroke-max-width")
            k["\(p)-stroke-min-width"] = (.width, "1.1", nil)
            k["\(p)-stroke-max-width"] = (.width, "1.1", nil)
            k["\(p)-stroke-color"] = (.color, "1.0", nil)
            k["\(p)-stroke-alpha"] = (.alpha, "1.0", nil)
            k["\(p)-arrow-fill-color"] = (.color, "1.1", nil)
            k["\(p)-arrow-stroke-color"] = (.color, "1.1", nil)
            k["\(p)-arrow-size"] = (.width, "1.1", nil)
        }
        return k
    }()

    /// Wrong types are errors; unknown keys, 1.1 keys in a 1.0 document and
    /// keys 1.1 deprecated (in a 1.1 document) are warnings.
    static func parse(_ any: Any, version: String, source: String, warnings: inout [String]) throws -> Wayfinding {
        guard let o = any as? [String: Any] else {
            throw StyleError(source: source, entry: nil, property: "wayfinding", problem: "expected an object, found \(any)")
        }
        var out = Wayfinding()
        for key in o.keys.sorted() {
            let v = o[key]!
            guard let spec = keys[key] else {
                warnings.append("\(source): wayfinding: unknown property \"\(key)\" (known: \(keys.keys.sorted().joined(separator: ", ")))")
                continue
            }
            func fail(_ what: String) -> StyleError {
                StyleError(source: source, entry: "wayfinding", property: key, problem: "expected \(what), found \(v)")
            }
            switch spec.kind {
            case .color:
                guard let s = v as? String, let c = Color(hex: s) else { throw fail("a colour #RGB, #RRGGBB or #RRGGBBAA") }
                out.colors[key] = c
            case .width, .alpha:
                guard let n = v as? NSNumber, !JSONTypes.isBoolean(v), n.doubleValue.isFinite, n.doubleValue >= 0,
                      spec.kind == .width || n.doubleValue <= 1 else {
                    throw fail(spec.kind == .alpha ? "a number from 0 to 1" : "a non-negative number")
                }
                out.numbers[key] = n.doubleValue
            }
            if spec.since == "1.1" && version == "1.0" {
                warnings.append("\(source): wayfinding: \"\(key)\" is a spec 1.1 property in a version 1.0 document (write \"version\": \"1.1\")")
            }
            if let r = spec.replacedBy, version == "1.1" {
                warnings.append("\(source): wayfinding: \"\(key)\" is deprecated in spec 1.1: use \(r)")
            }
        }
        return out
    }
}
