import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Strict JSON (RFC 8259) into Swift values: `[String: Any]` and `[Any]`,
/// `String`, `Int` (integers up to 18 digits), `Double` (other numbers),
/// `Bool` and `NSNull`. Read numbers and booleans through `JSONTypes`, which
/// takes these and `JSONSerialization`'s NSNumbers alike.
///
/// Numbers are Swift scalars, not NSNumbers: they sit inside the `Any`
/// without an object each (a venue has tens of thousands of coordinates).
///
/// Why not `JSONSerialization`: on Linux it builds a Swift tree, converts it
/// to NSDictionary/NSArray and the readers' casts convert it back. Measured on
/// the medium synthetic venue, that was 60 % of reading IMDF; this parser
/// builds the Swift values directly. `JSONDecoder` into a generic value tree
/// was slower still (4× JSONSerialization).
enum JSONParser {
    struct Failure: Error, CustomStringConvertible {
        var reason: String
        var line: Int
        var column: Int
        var description: String { "\(reason) at line \(line), column \(column)" }
    }

    /// Deeper nesting than any venue file needs; a guard against stack exhaustion.
    static let maxDepth = 512

    static func parse(_ data: Data) throws -> Any {
        try data.withUnsafeBytes { raw in
            var p = Parser(bytes: raw.bindMemory(to: UInt8.self))
            // A UTF-8 byte order mark is ignored (RFC 8259, 8.1).
            if p.bytes.count >= 3, p.bytes[0] == 0xEF, p.bytes[1] == 0xBB, p.bytes[2] == 0xBF { p.i = 3 }
            p.skipSpace()
            let v = try p.value(depth: 0)
            p.skipSpace()
            guard p.i == p.bytes.count else { throw p.failure("unexpected text after the JSON value") }
            return v
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        func failure(_ reason: String) -> Failure {
            var line = 1, column = 1
            for b in bytes[..<min(i, bytes.count)] {
                if b == 0x0A { line += 1; column = 1 } else { column += 1 }
            }
            return Failure(reason: reason, line: line, column: column)
        }

        mutating func skipSpace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws -> Any {
            guard i < bytes.count else { throw failure("unexpected end of the file") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return try string()
            case UInt8(ascii: "t"): try literal("true"); return true
            case UInt8(ascii: "f"): try literal("false"); return false
            case UInt8(ascii: "n"): try literal("null"); return NSNull()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw failure("unexpected character '\(Character(Unicode.Scalar(bytes[i])))'")
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let n = word.utf8CodeUnitCount
            guard i + n <= bytes.count, word.withUTF8Buffer({ w in (0..<n).allSatisfy { bytes[i + $0] == w[$0] } }) else {
                throw failure("invalid literal (expected \(word))")
            }
            i += n
        }

        mutating func object(depth: Int) throws -> [String: Any] {
            guard depth <= JSONParser.maxDepth else { throw failure("nested deeper than \(JSONParser.maxDepth) levels") }
            i += 1
            var out = [String: Any]()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return out }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw failure("expected a string key in an object") }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
                i += 1
                skipSpace()
                out[key] = try value(depth: depth)
                skipSpace()
                guard i < bytes.count else { throw failure("unexpected end of the file in an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return out }
                throw failure("expected ',' or '}' in an object")
            }
        }

        mutating func array(depth: Int) throws -> [Any] {
            guard depth <= JSONParser.maxDepth else { throw failure("nested deeper than \(JSONParser.maxDepth) levels") }
            i += 1
            var out = [Any]()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return out }
            while true {
                skipSpace()
                out.append(try value(depth: depth))
                skipSpace()
                guard i < bytes.count else { throw failure("unexpected end of the file in an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return out }
                throw failure("expected ',' or ']' in an array")
            }
        }

        mutating func string() throws -> String {
            i += 1
            let start = i
            // Fast path: no escapes.
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") {
                    defer { i += 1 }
                    return try validated(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                }
                if b == UInt8(ascii: "\\") { break }
                guard b >= 0x20 else { throw failure("control character in a string") }
                i += 1
            }
            var buf = [UInt8](bytes[start..<i])
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""):
                    i += 1
                    return try buf.withUnsafeBufferPointer { try validated($0) }
                case UInt8(ascii: "\\"):
                    i += 1
                    guard i < bytes.count else { throw failure("unexpected end of the file in a string") }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buf.append(e)
                    case UInt8(ascii: "b"): buf.append(0x08)
                    case UInt8(ascii: "f"): buf.append(0x0C)
                    case UInt8(ascii: "n"): buf.append(0x0A)
                    case UInt8(ascii: "r"): buf.append(0x0D)
                    case UInt8(ascii: "t"): buf.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            // A surrogate pair: the low half must follow.
                            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                                throw failure("unpaired surrogate in a string")
                            }
                            i += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate in a string") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            throw failure("unpaired surrogate in a string")
                        }
                        buf.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                    default: throw failure("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string")
                    }
                default:
                    guard b >= 0x20 else { throw failure("control character in a string") }
                    buf.append(b)
                    i += 1
                }
            }
            throw failure("unexpected end of the file in a string")
        }

        func validated(_ b: UnsafeBufferPointer<UInt8>) throws -> String {
            guard let s = String(validating: b, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
            return s
        }

        mutating func hex4() throws -> UInt32 {
            guard i + 4 <= bytes.count else { throw failure("unexpected end of the file in a \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let d: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw failure("invalid \\u escape in a string")
                }
                v = v << 4 | d
                i += 1
            }
            return v
        }

        mutating func number() throws -> Any {
            let start = i
            func digits() -> Int {
                let s = i
                while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
                return i - s
            }
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            let intStart = i
            let intDigits = digits()
            guard intDigits > 0 else { throw failure("invalid number") }
            guard !(intDigits > 1 && bytes[intStart] == UInt8(ascii: "0")) else { throw failure("invalid number (leading zero)") }
            var integral = true
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                integral = false
                guard digits() > 0 else { throw failure("invalid number (no digits after '.')") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                integral = false
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { throw failure("invalid number (no digits in the exponent)") }
            }
            let text = UnsafeBufferPointer(rebasing: bytes[start..<i])
            if integral && intDigits <= 18 {
                var v = 0
                for c in text where c != UInt8(ascii: "-") { v = v * 10 + Int(c - UInt8(ascii: "0")) }
                return text[0] == UInt8(ascii: "-") ? -v : v
            }
            // strtod wants a terminated string; numbers are short.
            let d: Double = withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { tmp in
                for (k, c) in text.enumerated() { tmp[k] = CChar(bitPattern: c) }
                tmp[text.count] = 0
                return strtod(tmp.baseAddress!, nil)
            }
            guard d.isFinite else {
                let literal = String(decoding: text, as: UTF8.self)
                i = start
                throw failure("number \(literal) is out of range")
            }
            return d
        }
    }
}

/// The JSON parser on its own, for its fuzz target (Sources/FuzzJSON).
@_spi(Fuzzing) public func fuzzParseJSON(_ data: Data) throws -> Any { try JSONParser.parse(data) }
