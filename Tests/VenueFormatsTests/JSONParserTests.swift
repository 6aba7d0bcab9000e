import Foundation
@testable import VenueFormats
import VenueModel
import XCTest

/// The JSON parser: the same values JSONSerialization gives, and every
/// malformed input refused with where it went wrong.
final class JSONParserTests: XCTestCase {
    func parse(_ s: String) throws -> Any { try JSONParser.parse(Data(s.utf8)) }

    func failure(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> JSONParser.Failure? {
        do { _ = try parse(s); XCTFail("accepted: \(s)", file: file, line: line); return nil } catch let f as JSONParser.Failure { return f } catch {
            XCTFail("\(error)", file: file, line: line); return nil
        }
    }

    func testValuesAreWhatJSONSerializationGives() throws {
        let text = #"""
        {"a": [1, -2, 3.5, -0.25e2, 1E3, 0, true, false, null], "s": "tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00", "o": {}, "e": [],
         "big": 12345678901234567890, "id": 42}
        """#
        let ours = try XCTUnwrap(try parse(text) as? [String: Any])
        let theirs = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(Set(ours.keys), Set(theirs.keys))
        let a = try XCTUnwrap(ours["a"] as? [Any])
        XCTAssertEqual(a.count, 9)
        XCTAssertEqual(JSONTypes.number(a[0]), 1)
        XCTAssertEqual(JSONTypes.number(a[1]), -2)
        XCTAssertEqual(JSONTypes.number(a[2]), 3.5)
        XCTAssertEqual(JSONTypes.number(a[3]), -25)
        XCTAssertEqual(JSONTypes.number(a[4]), 1000)
        // 0 and 1 are numbers, true and false are booleans (JSONTypes tells them apart as for JSONSerialization).
        XCTAssertEqual(JSONTypes.number(a[5]), 0)
        XCTAssertNil(JSONTypes.boolean(a[5]))
        XCTAssertEqual(JSONTypes.boolean(a[6]), true)
        XCTAssertEqual(JSONTypes.boolean(a[7]), false)
        XCTAssertNil(JSONTypes.number(a[6]))
        XCTAssertTrue(JSONTypes.isNull(a[8]))
        XCTAssertFalse(JSONTypes.isNull(ours["o"]))
        XCTAssertEqual(ours["s"] as? String, theirs["s"] as? String)
        XCTAssertEqual(ours["s"] as? String, "tab\there \"q\" \\ / é 😀")
        XCTAssertEqual((ours["o"] as? [String: Any])?.count, 0)
        XCTAssertEqual((ours["e"] as? [Any])?.count, 0)
        // Integers print as integers (feature ids that are numbers), large ones become doubles.
        XCTAssertEqual(JSONTypes.nsNumber(ours["id"])?.stringValue, "42")
        XCTAssertEqual(JSONTypes.number(ours["big"]), 12345678901234567168, "the nearest Double")
        // Top-level scalars and a byte order mark are accepted.
        XCTAssertEqual(JSONTypes.number(try parse("7")), 7)
        XCTAssertEqual((try JSONParser.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) as? [Any])?.first as? Int, 1)
        // JSONSerialization's NSNumbers read the same through JSONTypes.
        let a2 = try XCTUnwrap(theirs["a"] as? [Any])
        for k in 0..<8 {
            XCTAssertEqual(JSONTypes.number(a2[k]), JSONTypes.number(a[k]), "a[\(k)]")
            XCTAssertEqual(JSONTypes.boolean(a2[k]), JSONTypes.boolean(a[k]), "a[\(k)]")
        }
    }

    /// Doubles are parsed correctly rounded (as strtod; Foundation's parser on
    /// Linux is off by one unit in the last place for some coordinates).
    func testDoublesAreCorrectlyRounded() throws {
        for s in ["2.3516281759999997", "48.6476051234567", "-123.43034187", "1e-7", "5e-324", "1.7976931348623157e308"] {
            XCTAssertEqual(JSONTypes.number(try parse(s))?.bitPattern, Double(s)!.bitPattern, s)
        }
    }

    func testMalformedInputSaysWhatAndWhere() {
        XCTAssertEqual(failure("{\"a\": 1,\n \"b\" 2}")?.description, "expected ':' after an object key at line 2, column 6")
        XCTAssertEqual(failure("[1, 2")?.reason, "unexpected end of the file in an array")
        XCTAssertEqual(failure("[01]")?.reason, "invalid number (leading zero)")
        XCTAssertEqual(failure("[1.]")?.reason, "invalid number (no digits after '.')")
        XCTAssertEqual(failure("[1e]")?.reason, "invalid number (no digits in the exponent)")
        XCTAssertEqual(failure("[1e999]")?.reason, "number 1e999 is out of range")
        XCTAssertEqual(failure("[tru]")?.reason, "invalid literal (expected true)")
        XCTAssertEqual(failure("\"a\tb\"")?.reason, "control character in a string")
        XCTAssertEqual(failure(#""\x""#)?.reason, "invalid escape '\\x' in a string")
        XCTAssertEqual(failure(#""\ud83d""#)?.reason, "unpaired surrogate in a string")
        XCTAssertEqual(failure("{} x")?.reason, "unexpected text after the JSON value")
        XCTAssertEqual(failure("{1: 2}")?.reason, "expected a string key in an object")
        XCTAssertEqual(failure("")?.reason, "unexpected end of the file")
        XCTAssertEqual(failure("[1,]")?.reason, "unexpected character ']'")
        XCTAssertNotNil(failure(String(repeating: "[", count: 600) + String(repeating: "]", count: 600)))
        // Invalid UTF-8 inside a string.
        XCTAssertThrowsError(try JSONParser.parse(Data([0x22, 0xFF, 0x22])))
    }
}
