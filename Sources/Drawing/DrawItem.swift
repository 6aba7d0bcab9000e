import Styling
import TileGeometry

// The drawing model: what Prepare and label placement make and the raster
// renderer draws, as plain values, so everything before the render stage is
// built and tested without Cairo.

/// The resolved paint of one feature.
public struct Paint: Hashable, Sendable {
    public var fill: Color?
    public var outline: Color?
    public var line: Color?
    /// A sprite image repeated over the fill (the style's `fill-pattern`).
    public var pattern: String?
    public init(fill: Color? = nil, outline: Color? = nil, line: Color? = nil, pattern: String? = nil) {
        self.fill = fill; self.outline = outline; self.line = line; self.pattern = pattern
    }
}

/// A placed icon: sprite image `name` centred on `anchor`.
public struct IconDraw: Hashable, Sendable {
    public var anchor: MercatorPoint
    public var name: String
    public init(anchor: MercatorPoint, name: String) { self.anchor = anchor; self.name = name }
}

/// A placed label: its text laid out, centred on `anchor`.
public struct LabelDraw: Hashable, Sendable {
    public var anchor: MercatorPoint
    public var layout: TextLayout
    public var style: LabelStyle
    public init(anchor: MercatorPoint, layout: TextLayout, style: LabelStyle) {
        self.anchor = anchor; self.layout = layout; self.style = style
    }
}

/// An area drawing is restricted to: rings of one orientation, filled as
/// their union. Items sharing one instance are clipped once, in a row.
package final class ClipArea: Sendable {
    package let rings: [[MercatorPoint]]
    package init(rings: [[MercatorPoint]]) { self.rings = rings }
}

/// A feature ready to draw: projected geometry and paint, or a placed label
/// (then `geometry` is only the label's box, for planning).
public struct DrawItem: Sendable {
    public var geometry: ProjectedGeometry
    public var paint: Paint
    public var label: LabelDraw?
    public var icon: IconDraw?
    /// The style's `background`: the fill covers every tile of the floor (geometry unused).
    public var wholeTile = false
    /// Drawn only inside this area: door lines on an outer wall stay inside the floor.
    package var clip: ClipArea? = nil
    /// Polygons drawn as the union of their rings (one orientation, non-zero
    /// winding) grown by this many metres on every side, outline outside: a
    /// floor slab made from the floor's units, the growth closing the wall gaps
    /// between rooms. 0: drawn as they are.
    package var grow = 0.0
    public init(geometry: ProjectedGeometry, paint: Paint, label: LabelDraw? = nil, icon: IconDraw? = nil, wholeTile: Bool = false) {
        self.geometry = geometry; self.paint = paint; self.label = label; self.icon = icon; self.wholeTile = wholeTile
    }
}
