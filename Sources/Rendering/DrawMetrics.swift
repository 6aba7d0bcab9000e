import TileGeometry

/// How wide things are drawn. The planner uses the same numbers to pad tile
/// coverage, so a stroke that crosses a tile edge is drawn on both sides.
///
/// Pixel sizes are in 256 px tile pixels (a 512 px @2x tile doubles them).
public enum DrawMetrics {
    /// Polygon outlines.
    public static let outlineWidthPx = 1.0
    /// Openings (doors) are drawn this wide in map metres, at least `minLineWidthPx`.
    public static let openingWidthMetres = 0.4
    public static let minLineWidthPx = 1.0
    /// Amenity dots: radius and the white ring around them.
    public static let dotRadiusPx = 3.0
    public static let dotRingPx = 1.0

    public static func metresPerPixel(zoom: Int) -> Double {
        WebMercator.metresPerPixel(zoom: zoom, tileSize: 256)
    }

    public static func lineWidthPx(zoom: Int) -> Double {
        max(minLineWidthPx, openingWidthMetres / metresPerPixel(zoom: zoom))
    }

    /// How far an item's ink reaches beyond its geometry, in map metres at `zoom`.
    public static func pad(for item: DrawItem, zoom: Int) -> Double {
        guard item.grow > 0 else { return pad(for: item.geometry, zoom: zoom) }
        return item.grow + outlineWidthPx * metresPerPixel(zoom: zoom)
    }

    /// Half the drawn width of a geometry kind beyond its geometry, in map metres at `zoom`.
    public static func pad(for geometry: ProjectedGeometry, zoom: Int) -> Double {
        let mpp = metresPerPixel(zoom: zoom)
        switch geometry {
        case .polygons: return outlineWidthPx / 2 * mpp
        case .lines: return lineWidthPx(zoom: zoom) / 2 * mpp
        case .points: return (dotRadiusPx + dotRingPx / 2) * mpp
        }
    }
}
