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
    package static func resolve(_ style: Style, template: String = "floor_labels_[FLOOR]", floor: String? = nil,
                                building: String? = nil) -> LabelStyle? {
        resolve(style, template: template, floors: floor.map { [$0] } ?? [], buildings: building.map { [$0] } ?? [])
    }

    /// As above, for a floor or building known by several ids (`Style.resolve(_:floors:buildings:)`).
    package static func resolve(_ style: Style, template: String = "floor_labels_[FLOOR]", floors: [String],
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

    package init(lines: [String], lineWidths: [Double], ascent: Double, lineHeight: Double) {
        self.lines = lines; self.lineWidths = lineWidths; self.ascent = ascent; self.lineHeight = lineHeight
    }

    public var width: Double { lineWidths.max() ?? 0 }
    public var height: Double { lineHeight * Double(lines.count) }
}

/// Lays out label text: the fonts that measure it are the ones that draw it,
/// so the one implementation is Cairo's (`Rendering.TextMeasurer`).
package protocol TextMeasuring {
    /// The family the font system resolves `name` to.
    func family(_ name: String) -> String?
    /// `text` wrapped at `style.maxWidth` and measured in `style`'s font.
    func layout(_ text: String, style: LabelStyle) -> TextLayout
}
