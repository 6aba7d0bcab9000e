import CFreeType
import Foundation

/// A FreeType failure: the font file, what was being done and FreeType's error code.
public struct FontError: Error, CustomStringConvertible {
    public var file: String
    public var operation: String
    public var code: Int32
    public var description: String { "\(file): \(operation) failed (FreeType error \(code))" }
}

/// One FreeType library instance. FreeType objects are not thread-safe per
/// library, so each generator owns one and frees it with its faces.
final class FreeTypeLibrary {
    let handle: FT_Library

    init() throws {
        var lib: FT_Library?
        let err = FT_Init_FreeType(&lib)
        guard err == 0, let lib else { throw FontError(file: "-", operation: "FT_Init_FreeType", code: err) }
        handle = lib
    }

    deinit { FT_Done_FreeType(handle) }
}

/// A glyph outline flattened to closed rings, in pixels at the face's size
/// (y up, origin on the baseline at the pen position).
struct GlyphOutline {
    var rings: [[(x: Double, y: Double)]]
    /// Horizontal advance in pixels (rounded down like FreeType's 26.6 metrics).
    var advance: Int
}

/// An open font face; keeps the library alive and closes the face in deinit.
final class FontFace {
    let library: FreeTypeLibrary
    let handle: FT_Face
    let path: String

    init(path: String, index: Int = 0, library: FreeTypeLibrary) throws {
        self.library = library
        self.path = path
        var face: FT_Face?
        let err = FT_New_Face(library.handle, path, index, &face)
        guard err == 0, let face else { throw FontError(file: path, operation: "open font face", code: err) }
        handle = face
    }

    deinit { FT_Done_Face(handle) }

    var familyName: String { handle.pointee.family_name.map { String(cString: $0) } ?? "" }
    var styleName: String { handle.pointee.style_name.map { String(cString: $0) } ?? "" }
    var isScalable: Bool { handle.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0 }

    /// Sets the em size in pixels (72 dpi: points are pixels).
    func setPixelSize(_ px: Int) throws {
        let err = FT_Set_Char_Size(handle, 0, FT_F26Dot6(px * 64), 72, 72)
        guard err == 0 else { throw FontError(file: path, operation: "set size \(px) px", code: err) }
    }

    /// Ascender of the face at the current size, in whole pixels.
    var ascender: Int { Int(handle.pointee.size.pointee.metrics.ascender >> 6) }

    func hasGlyph(_ codePoint: UInt32) -> Bool { FT_Get_Char_Index(handle, FT_ULong(codePoint)) != 0 }

    /// The unhinted outline of a character at the current size; nil when the
    /// face has no glyph for it.
    func outline(_ codePoint: UInt32) throws -> GlyphOutline? {
        let index = FT_Get_Char_Index(handle, FT_ULong(codePoint))
        guard index != 0 else { return nil }
        // Unhinted: hinting snaps stems to this size's grid, but the SDF is scaled by the client.
        let err = FT_Load_Glyph(handle, index, FT_Int32(FT_LOAD_NO_HINTING))
        guard err == 0 else { throw FontError(file: path, operation: "load glyph U+\(String(codePoint, radix: 16, uppercase: true))", code: err) }
        let slot = handle.pointee.glyph!
        let advance = Int(slot.pointee.metrics.horiAdvance >> 6)
        guard slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE else { return GlyphOutline(rings: [], advance: advance) }
        var collector = OutlineCollector()
        var funcs = FT_Outline_Funcs(
            move_to: { to, user in OutlineCollector.from(user).pointee.move(to!.pointee); return 0 },
            line_to: { to, user in OutlineCollector.from(user).pointee.line(to!.pointee); return 0 },
            conic_to: { c, to, user in OutlineCollector.from(user).pointee.conic(c!.pointee, to!.pointee); return 0 },
            cubic_to: { c1, c2, to, user in OutlineCollector.from(user).pointee.cubic(c1!.pointee, c2!.pointee, to!.pointee); return 0 },
            shift: 0, delta: 0)
        var outline = slot.pointee.outline
        let derr = withUnsafeMutablePointer(to: &collector) { p in
            FT_Outline_Decompose(&outline, &funcs, UnsafeMutableRawPointer(p))
        }
        guard derr == 0 else { throw FontError(file: path, operation: "decompose outline U+\(String(codePoint, radix: 16, uppercase: true))", code: derr) }
        collector.close()
        return GlyphOutline(rings: collector.rings, advance: advance)
    }
}

/// Receives FreeType's outline callbacks and flattens curves into segments
/// short enough (at most 1/4 px of deviation) for a distance field.
private struct OutlineCollector {
    var rings = [[(x: Double, y: Double)]]()
    var ring = [(x: Double, y: Double)]()

    static func from(_ user: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<OutlineCollector> {
        user!.assumingMemoryBound(to: OutlineCollector.self)
    }
    static func point(_ v: FT_Vector) -> (x: Double, y: Double) { (Double(v.x) / 64, Double(v.y) / 64) }

    mutating func close() {
        if ring.count > 2 {
            if ring[0] != ring[ring.count - 1] { ring.append(ring[0]) }
            rings.append(ring)
        }
        ring = []
    }
    mutating func move(_ to: FT_Vector) { close(); ring.append(Self.point(to)) }
    mutating func line(_ to: FT_Vector) { ring.append(Self.point(to)) }

    mutating func conic(_ c: FT_Vector, _ to: FT_Vector) {
        guard let p0 = ring.last else { return }
        let p1 = Self.point(c), p2 = Self.point(to)
        let n = steps(max(hypot(p1.x - p0.x, p1.y - p0.y), hypot(p2.x - p1.x, p2.y - p1.y)))
        for i in 1...n {
            let t = Double(i) / Double(n), u = 1 - t
            ring.append((u * u * p0.x + 2 * u * t * p1.x + t * t * p2.x, u * u * p0.y + 2 * u * t * p1.y + t * t * p2.y))
        }
    }

    mutating func cubic(_ c1: FT_Vector, _ c2: FT_Vector, _ to: FT_Vector) {
        guard let p0 = ring.last else { return }
        let p1 = Self.point(c1), p2 = Self.point(c2), p3 = Self.point(to)
        let hull = hypot(p1.x - p0.x, p1.y - p0.y) + hypot(p2.x - p1.x, p2.y - p1.y) + hypot(p3.x - p2.x, p3.y - p2.y)
        let n = steps(hull)
        for i in 1...n {
            let t = Double(i) / Double(n), u = 1 - t
            let a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t
            ring.append((a * p0.x + b * p1.x + c * p2.x + d * p3.x, a * p0.y + b * p1.y + c * p2.y + d * p3.y))
        }
    }

    /// Segments per curve: one per pixel of control polygon length, 2 to 32.
    private func steps(_ length: Double) -> Int { min(32, max(2, Int(length.rounded(.up)))) }
}
