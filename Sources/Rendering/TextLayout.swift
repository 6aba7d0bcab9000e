import Foundation
import Styling

/// How labels look: the style spec's font properties of `floor_labels_[FLOOR]`.
/// Sizes are in 256 px tile pixels (a 512 px @2x tile doubles them).
public struct LabelStyle: Hashable, Sendable {
    public var fontName: String
    public var fontSize: Double
    public var color: Color
    public var haloColor: Color?
    public var haloWidth: Double
    /// Lines wrap at this width; a single longer word keeps its own line.
    public var maxWidth: Double

    public init(fontName: String = "DejaVu Sans", fontSize: Double = 12, color: Color = Color(r: 0x33, g: 0x33, b: 0x33),
                haloColor: Color? = Color(r: 255, g: 255, b: 255), haloWidth: Double = 1.5, maxWidth: Double = 96) {
        self.fontName = fontName; self.fontSize = fontSize; self.color = color
        self.haloColor = haloColor; self.haloWidth = haloWidth; self.maxWidth = maxWidth
    }

    /// The style of a labels layer (`floor_labels_[FLOOR]` or `building_labels_[BUILDING]`);
    /// nil when the style hides it or has no entry.
    public static func resolve(_ style: Style, template: String = "floor_labels_[FLOOR]", floor: String? = nil,
                               building: String? = nil) -> LabelStyle? {
        resolve(style, template: template, floors: floor.map { [$0] } ?? [], buildings: building.map { [$0] } ?? [])
    }

    /// As above, for a floor or building known by several ids (`Style.resolve(_:floors:buildings:)`).
    public static func resolve(_ style: Style, template: String = "floor_labels_[FLOOR]", floors: [String],
                               buildings: [String] = []) -> LabelStyle? {
        guard let l = style.resolve(template, floors: floors, buildings: buildings), !l.hidden else { return nil }
        var s = LabelStyle()
        if let n = l.fontName { s.fontName = n }
        if let z = l.fontSize { s.fontSize = z }
        if let c = l.fontColor { s.color = c }
        s.haloColor = l.fontStrokeColor
        s.haloWidth = l.fontStrokeColor == nil ? 0 : (l.fontStrokeWidth ?? 1)
        if let w = l.maxTextWidth { s.maxWidth = w }
        return s
    }
}

/// A label's text broken into lines, measured in 256 px tile pixels.
public struct TextLayout: Hashable, Sendable {
    public var lines: [String]
    public var lineWidths: [Double]
    public var ascent: Double
    public var lineHeight: Double

    public var width: Double { lineWidths.max() ?? 0 }
    public var height: Double { lineHeight * Double(lines.count) }
}

/// Measures and wraps label text with the fonts Cairo finds through
/// fontconfig. One per thread (it owns a Cairo context).
public final class TextMeasurer {
    private let cr: CairoContext
    private var cache = [String: Double]()
    private var current: (String, Double)?

    public init() throws {
        cr = try CairoContext(try ImageSurface(width: 1, height: 1))
    }

    /// The family fontconfig resolves `name` to: whether the font a style asks for is the one drawn.
    public func family(_ name: String) -> String? {
        cr.selectFont(family: name, size: 12)
        return cr.resolvedFamily()
    }

    /// Greedy word wrap at `style.maxWidth`. Text is split on spaces; a word
    /// wider than the limit stays whole on its own line.
    public func layout(_ text: String, style: LabelStyle) -> TextLayout {
        if current.map({ $0.0 != style.fontName || $0.1 != style.fontSize }) ?? true {
            cr.selectFont(family: style.fontName, size: style.fontSize)
            current = (style.fontName, style.fontSize)
            cache.removeAll(keepingCapacity: true)
        }
        let m = cr.fontMetrics()
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
        var lines = [String](), widths = [Double]()
        var line = "", lineWidth = 0.0
        for w in words {
            let candidate = line.isEmpty ? w : line + " " + w
            let cw = advance(candidate)
            if line.isEmpty || cw <= style.maxWidth {
                line = candidate; lineWidth = cw
            } else {
                lines.append(line); widths.append(lineWidth)
                line = w; lineWidth = advance(w)
            }
        }
        if !line.isEmpty { lines.append(line); widths.append(lineWidth) }
        return TextLayout(lines: lines, lineWidths: widths, ascent: m.ascent, lineHeight: m.height)
    }

    private func advance(_ s: String) -> Double {
        if let w = cache[s] { return w }
        let w = cr.textAdvance(s)
        cache[s] = w
        return w
    }
}
