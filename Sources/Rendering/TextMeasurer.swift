import Drawing
import Foundation
import Styling

/// Measures and wraps label text with the fonts Cairo finds through
/// fontconfig. One per thread (it owns a Cairo context).
public final class TextMeasurer: TextMeasuring {
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
