import Drawing
import Rendering

extension Prepare {
    /// Label text is measured with the fonts that will draw it (Cairo through
    /// fontconfig), so a placed box is the size of the ink: the one use of
    /// Cairo before the render stage. Nil when no font can be loaded (then no
    /// floor gets raster labels).
    static func textMeasurer() -> (any TextMeasuring)? { try? TextMeasurer() }
}
