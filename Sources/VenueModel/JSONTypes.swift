import Foundation

/// Telling JSON numbers from JSON booleans in what `JSONSerialization` (and
/// VenueFormats' own parser) returns.
///
/// Both arrive as `NSNumber`, and on Linux `NSNumber(1) is Bool` is true, so
/// `!(v is Bool)` wrongly rejects the numbers 0 and 1 (a `"max_entries": 1`,
/// a `"font-stroke-width": 1`). Booleans are the NSNumbers whose `objCType` is
/// `c`; JSON never yields any other number of that type.
///
/// Class tests go through the metatype: on Linux, `v as? NSNumber` or
/// `v is NSNull` on a Swift string, array or dictionary first converts the
/// whole value to NSString/NSArray/NSDictionary (measured: 0.4 ms for a
/// 200-entry dictionary), which made these checks most of reading a venue.
public enum JSONTypes {
    /// `v as? NSNumber`, without bridging anything that is not one. Also takes
    /// the Swift `Double`, `Int` and `Bool` of VenueFormats' JSON parser (an
    /// NSNumber is made for them).
    @inline(__always)
    public static func nsNumber(_ v: Any?) -> NSNumber? {
        guard let v else { return nil }
        let t = type(of: v)
        if t is NSNumber.Type { return (v as! NSNumber) }
        if t == Double.self { return NSNumber(value: v as! Double) }
        if t == Int.self { return NSNumber(value: v as! Int) }
        if t == Bool.self { return NSNumber(value: v as! Bool) }
        return nil
    }

    /// JSON null (or no value), without bridging anything that is not null.
    @inline(__always)
    public static func isNull(_ v: Any?) -> Bool {
        guard let v else { return true }
        return type(of: v) is NSNull.Type
    }

    public static func isBoolean(_ v: Any?) -> Bool {
        guard let v else { return false }
        let t = type(of: v)
        if t == Bool.self { return true }
        guard t is NSNumber.Type else { return false }
        return String(cString: (v as! NSNumber).objCType) == "c"
    }

    /// A JSON number (not a boolean) as a Double.
    @inline(__always)
    public static func number(_ v: Any?) -> Double? {
        guard let v else { return nil }
        let t = type(of: v)
        if t == Double.self { return (v as! Double) }
        if t == Int.self { return Double(v as! Int) }
        guard t is NSNumber.Type, !isBoolean(v) else { return nil }
        return (v as! NSNumber).doubleValue
    }

    /// A JSON boolean (not the numbers 0 or 1).
    public static func boolean(_ v: Any?) -> Bool? {
        guard let v else { return nil }
        if type(of: v) == Bool.self { return (v as! Bool) }
        guard isBoolean(v) else { return nil }
        return (v as! NSNumber).boolValue
    }
}
