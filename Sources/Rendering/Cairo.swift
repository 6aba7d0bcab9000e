import CCairo
import Foundation

/// A Cairo failure: the operation and Cairo's own status text.
public struct CairoError: Error, CustomStringConvertible {
    public var operation: String
    public var status: String
    public var description: String { "cairo: \(operation) failed: \(status)" }

    init(_ operation: String, _ s: cairo_status_t) {
        self.operation = operation
        status = String(cString: cairo_status_to_string(s))
    }
}

/// An ARGB32 image surface (premultiplied alpha, native-endian 32-bit pixels).
/// Each render worker owns its own; never shared across threads.
public final class ImageSurface {
    let handle: OpaquePointer
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) throws {
        // A size past Int32 (a sprite index's numbers) must be an error, not a trap: cairo
        // refuses -1 as an invalid size.
        let h = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(exactly: width) ?? -1, Int32(exactly: height) ?? -1)!
        let s = cairo_surface_status(h)
        guard s == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(h)
            throw CairoError("create \(width)×\(height) image surface", s)
        }
        handle = h
        self.width = width
        self.height = height
    }

    deinit { cairo_surface_destroy(handle) }

    public var stride: Int { Int(cairo_image_surface_get_stride(handle)) }

    /// Read access to the pixels after drawing has finished.
    public func withPixels<R>(_ body: (UnsafeBufferPointer<UInt32>) throws -> R) rethrows -> R {
        cairo_surface_flush(handle)
        let base = cairo_image_surface_get_data(handle)!
        let count = stride / 4 * height
        return try base.withMemoryRebound(to: UInt32.self, capacity: count) {
            try body(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    /// The premultiplied ARGB pixel at (x, y).
    public func pixel(x: Int, y: Int) -> UInt32 {
        withPixels { $0[y * stride / 4 + x] }
    }

    /// Decodes a PNG into a new surface (used by tests and tools to read tiles back).
    public static func decodePNG(_ data: Data) throws -> ImageSurface {
        final class Source { let data: Data; var offset = 0; init(_ d: Data) { data = d } }
        let src = Source(data)
        // The source is passed unretained: it must outlive the call that reads it.
        let h = withExtendedLifetime(src) { cairo_image_surface_create_from_png_stream({ closure, out, length in
            let src = Unmanaged<Source>.fromOpaque(closure!).takeUnretainedValue()
            let n = Int(length)
            guard src.offset + n <= src.data.count else { return CAIRO_STATUS_READ_ERROR }
            src.data.copyBytes(to: out!, from: src.offset..<(src.offset + n))
            src.offset += n
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(src).toOpaque())! }
        let s = cairo_surface_status(h)
        guard s == CAIRO_STATUS_SUCCESS else { cairo_surface_destroy(h); throw CairoError("read PNG", s) }
        return ImageSurface(adopting: h)
    }

    private init(adopting h: OpaquePointer) {
        handle = h
        width = Int(cairo_image_surface_get_width(h))
        height = Int(cairo_image_surface_get_height(h))
    }
}

/// A drawing context on one surface.
public final class CairoContext {
    private let cr: OpaquePointer
    public let surface: ImageSurface

    public init(_ surface: ImageSurface) throws {
        self.surface = surface
        cr = cairo_create(surface.handle)
        let s = cairo_status(cr)
        guard s == CAIRO_STATUS_SUCCESS else { cairo_destroy(cr); throw CairoError("create context", s) }
    }

    deinit { cairo_destroy(cr) }

    public func checkStatus(_ op: String) throws {
        let s = cairo_status(cr)
        if s != CAIRO_STATUS_SUCCESS { throw CairoError(op, s) }
    }

    /// Clears every pixel to transparent.
    public func clear() {
        cairo_save(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    public func setColor(r: Double, g: Double, b: Double, a: Double) {
        cairo_set_source_rgba(cr, r, g, b, a)
    }

    public func setLineWidth(_ w: Double) { cairo_set_line_width(cr, w) }
    public func setRoundJoins() {
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
    }
    public func setButtCaps() {
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
    }
    public func setEvenOdd() { cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD) }
    /// Non-zero winding: overlapping rings of one orientation fill as their union.
    public func setNonZero() { cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING) }

    public func newPath() { cairo_new_path(cr) }
    public func moveTo(_ x: Double, _ y: Double) { cairo_move_to(cr, x, y) }
    public func lineTo(_ x: Double, _ y: Double) { cairo_line_to(cr, x, y) }
    public func closePath() { cairo_close_path(cr) }
    public func circle(_ x: Double, _ y: Double, _ r: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x, y, r, 0, 2 * Double.pi)
    }
    public func fillPreserve() { cairo_fill_preserve(cr) }
    public func fill() { cairo_fill(cr) }
    public func stroke() { cairo_stroke(cr) }
    public func strokePreserve() { cairo_stroke_preserve(cr) }
    public func save() { cairo_save(cr) }
    public func restore() { cairo_restore(cr) }
    /// Restricts drawing (and `clear`) to a rectangle, until `restore`.
    public func clip(x: Double, y: Double, width: Double, height: Double) {
        cairo_new_path(cr)
        cairo_rectangle(cr, x, y, width, height)
        cairo_clip(cr)
    }

    /// Restricts drawing to the current path (with the current fill rule), until `restore`.
    public func clipToPath() { cairo_clip(cr) }

    /// Paints the current source over the whole surface.
    public func paintAll() { cairo_paint(cr) }

    // MARK: text (Cairo's font API over fontconfig + FreeType)

    /// Selects a font by name: a family ("DejaVu Sans") or a family and face
    /// ("DejaVu Sans Bold", "DejaVu Serif Italic", as a style's `font-name`
    /// names them; see `FontFaceName`). Metrics are unhinted so that a label
    /// measures the same at every scale (256 px and 512 px tiles agree).
    public func selectFont(family name: String, size: Double, bold: Bool = false) {
        let f = FontFaceName(name)
        let slant = f.italic ? CAIRO_FONT_SLANT_ITALIC : f.oblique ? CAIRO_FONT_SLANT_OBLIQUE : CAIRO_FONT_SLANT_NORMAL
        cairo_select_font_face(cr, f.family, slant, bold || f.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        let o = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_antialias(o, CAIRO_ANTIALIAS_GRAY)
        cairo_set_font_options(cr, o)
        cairo_font_options_destroy(o)
    }

    /// Advance width of `text` in the current font, in user units.
    public func textAdvance(_ text: String) -> Double {
        var e = cairo_text_extents_t()
        cairo_text_extents(cr, text, &e)
        return e.x_advance
    }

    /// Ascent, descent and line height of the current font.
    public func fontMetrics() -> (ascent: Double, descent: Double, height: Double) {
        var e = cairo_font_extents_t()
        cairo_font_extents(cr, &e)
        return (e.ascent, e.descent, e.height)
    }

    /// The family fontconfig actually chose for the current font (for diagnostics).
    public func resolvedFamily() -> String? {
        guard let face = cairo_get_font_face(cr), let fam = cairo_toy_font_face_get_family(face) else { return nil }
        return String(cString: fam)
    }

    /// Adds the outline of `text`, its baseline starting at the current point.
    public func textPath(_ text: String) { cairo_text_path(cr, text) }

    // MARK: images

    /// Paints the `w`×`h` region at (`sx`, `sy`) of `image` with its top-left corner at
    /// (x, y), scaled by `scale` (a sprite image out of a sprite sheet).
    public func paint(_ image: ImageSurface, sourceX sx: Double, sourceY sy: Double, width w: Double, height h: Double,
                      x: Double, y: Double, scale: Double) {
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, image.handle, -sx, -sy)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_new_path(cr)
        cairo_rectangle(cr, 0, 0, w, h)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Fills the current path with `image` repeated, its origin at (x, y) in device pixels.
    public func fillPattern(_ image: ImageSurface, originX x: Double, originY y: Double, scale: Double = 1) {
        let pattern = cairo_pattern_create_for_surface(image.handle)!
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_REPEAT)
        var m = cairo_matrix_t()
        cairo_matrix_init_scale(&m, 1 / scale, 1 / scale)
        cairo_matrix_translate(&m, -x, -y)
        cairo_pattern_set_matrix(pattern, &m)
        cairo_set_source(cr, pattern)
        cairo_fill_preserve(cr)
        cairo_pattern_destroy(pattern)
    }
}

/// A font name split into the family Cairo's font API takes and the face
/// words it takes as weight and slant: "DejaVu Sans Bold Oblique" → family
/// "DejaVu Sans", bold, oblique. fontconfig reads the family string as a
/// family only, so "DejaVu Sans Bold" as a family would fall back to the
/// default font.
public struct FontFaceName: Equatable, Sendable {
    public var family: String
    public var bold = false, italic = false, oblique = false

    public init(_ name: String) {
        var words = name.split(separator: " ").map(String.init)
        var bold = false, italic = false, oblique = false
        // Face words at the end; a family of one word is kept whole.
        while words.count > 1, let last = words.last?.lowercased(),
              ["bold", "italic", "oblique", "regular", "book", "normal", "roman"].contains(last) {
            if last == "bold" { bold = true }
            if last == "italic" { italic = true }
            if last == "oblique" { oblique = true }
            words.removeLast()
        }
        family = words.joined(separator: " ")
        self.bold = bold; self.italic = italic; self.oblique = oblique
    }
}
