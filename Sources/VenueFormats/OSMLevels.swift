import Foundation
import VenueModel

/// OSM `level` values (Simple Indoor Tagging): a number (`0`, `-1`, `0.5`), a
/// `;` list (`0;1`: on both floors) or a range (`0-2`, `-2--1`, `0-1.5`: the
/// ends and every whole floor between them).
///
/// Every value is read as text into millionths of a floor, with bounds checked
/// before any arithmetic: `"-9223372036854775808"` or a range of 10^19 floors
/// must be a clear warning, never an overflow trap. A level beyond ±1,000
/// floors is refused; a feature naming more than 200 floors, by list or by
/// range, is refused (both would otherwise plan a floor each: a list of
/// 100,000 values validated as 100,000 floors and never finished planning).
enum OSMLevels {
    /// Farthest floor from the ground that a level may name.
    static let maxFloor = 1000
    /// Most floors one feature may name (a list or a range).
    static let maxFloorsPerFeature = 200

    enum Parsed: Equatable {
        /// The floors, in millionths (`Floor.fractionScale`), ascending, without repeats.
        case floors([Int])
        /// Why the value cannot be read (for a warning that names it).
        case unreadable(String)
    }

    static func parse(_ value: String) -> Parsed {
        var out = Set<Int>()
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        if parts.count > maxFloorsPerFeature {
            return .unreadable("names \(parts.count) floors (a \";\" list); at most \(maxFloorsPerFeature) are read per feature")
        }
        for raw in parts {
            let part = raw.trimmingCharacters(in: .whitespaces)
            if part.isEmpty { continue }
            switch number(part) {
            case .success(let v): out.insert(v); continue
            case .failure(let why) where !isRange(part): return .unreadable(why.message)
            default: break
            }
            // A range "a-b"; either end may be negative ("-2--1").
            let dash = part.dropFirst().firstIndex(of: "-")!
            let a = number(part[..<dash].trimmingCharacters(in: .whitespaces))
            let b = number(part[part.index(after: dash)...].trimmingCharacters(in: .whitespaces))
            guard case .success(let lo) = a, case .success(let hi) = b else {
                if case .failure(let e) = a { return .unreadable(e.message) }
                if case .failure(let e) = b { return .unreadable(e.message) }
                return .unreadable("not a level")
            }
            guard lo <= hi else { return .unreadable("the range \(part) runs downwards") }
            // Both ends are within ±maxFloor floors, so this cannot overflow.
            let first = ceilDiv(lo, Floor.fractionScale), last = floorDiv(hi, Floor.fractionScale)
            let count = max(0, last - first + 1) + (lo % Floor.fractionScale != 0 ? 1 : 0) + (hi % Floor.fractionScale != 0 ? 1 : 0)
            if count > maxFloorsPerFeature || out.count + count > maxFloorsPerFeature {
                return .unreadable("the range \(part) names \(count) floors; at most \(maxFloorsPerFeature) are read per feature")
            }
            out.insert(lo); out.insert(hi)
            if first <= last { for k in first...last { out.insert(k * Floor.fractionScale) } }
        }
        if out.isEmpty { return .unreadable("no level in it") }
        if out.count > maxFloorsPerFeature {
            return .unreadable("names \(out.count) floors; at most \(maxFloorsPerFeature) are read per feature")
        }
        return .floors(out.sorted())
    }

    struct Problem: Error { var message: String }

    private static func isRange(_ s: String) -> Bool { s.dropFirst().contains("-") }

    /// A decimal such as `-12`, `0.5`, `.5`: digits only (no exponent, no sign
    /// but a leading minus), at most 6 decimals, within ±maxFloor.
    static func number(_ s: String) -> Result<Int, Problem> {
        var text = Substring(s)
        let negative = text.hasPrefix("-")
        if negative { text = text.dropFirst() }
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = pieces[0], frac = pieces.count > 1 ? pieces[1] : ""
        let digits = whole + frac
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), pieces.count == 1 || !frac.isEmpty else {
            return .failure(Problem(message: "\"\(s)\" is not a level number"))
        }
        let significant = whole.drop { $0 == "0" }
        guard significant.count <= 4, let w = Int(significant.isEmpty ? "0" : significant), w <= maxFloor else {
            return .failure(Problem(message: "level \(s) is out of range (at most ±\(maxFloor) floors)"))
        }
        let fracDigits = frac.reversed().drop { $0 == "0" }.reversed()
        guard fracDigits.count <= 6 else {
            return .failure(Problem(message: "level \(s) has more than 6 decimals"))
        }
        let f = Int(String(fracDigits) + String(repeating: "0", count: 6 - fracDigits.count))!
        let v = w * Floor.fractionScale + f
        if v > maxFloor * Floor.fractionScale { return .failure(Problem(message: "level \(s) is out of range (at most ±\(maxFloor) floors)")) }
        return .success(negative ? -v : v)
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func ceilDiv(_ a: Int, _ b: Int) -> Int { -floorDiv(-a, b) }

    /// The floor and the millionths above it, for `Level`.
    static func place(_ v: Int) -> (ordinal: Int, fraction: Int) {
        let o = floorDiv(v, Floor.fractionScale)
        return (o, v - o * Floor.fractionScale)
    }

    /// The level as OSM writes it: `0`, `-1`, `0.5`, `-0.25`.
    static func text(_ v: Int) -> String {
        let m = v.magnitude
        let whole = m / UInt(Floor.fractionScale), frac = m % UInt(Floor.fractionScale)
        var s = (v < 0 ? "-" : "") + String(whole)
        if frac != 0 {
            var d = String(frac)
            d = String(repeating: "0", count: 6 - d.count) + d
            while d.hasSuffix("0") { d.removeLast() }
            s += "." + d
        }
        return s
    }
}
