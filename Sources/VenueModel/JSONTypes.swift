import Foundation

/// Telling JSON numbers from JSON booleans in what `JSONSerialization` returns.
///
/// Both arrive as `NSNumber`, and on Linux `NSNumber(1) is Bool` is true, so
/// `!(v is Bool)` wrongly rejects the numbers 0 and 1 (a `"max_entries": 1`,
/// a `"font-stroke-width": 1`). Booleans are the NSNumbers whose `objCType` is
/// `c`; JSON never yields any other number of that type.
public enum JSONTypes {
    public static func isBoolean(_ v: Any?) -> Bool {
        guard let n = v as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    /// A JSON number (not a boolean) as a Double.
    public static func number(_ v: Any?) -> Double? {
        guard let n = v as? NSNumber, !isBoolean(n) else { return nil }
        return n.doubleValue
    }

    /// A JSON boolean (not the numbers 0 or 1).
    public static func boolean(_ v: Any?) -> Bool? {
        guard let n = v as? NSNumber, isBoolean(n) else { return nil }
        return n.boolValue
    }
}
