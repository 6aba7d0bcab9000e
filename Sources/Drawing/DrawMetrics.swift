import TileGeometry

/// How wide things are drawn. The planner uses the same numbers to pad tile
/// coverage, so a stroke that crosses a tile edge is drawn on both sides.
///
/// Pixel sizes are in 256 px tile pixels (a 512 px @2x tile doubles them).
package enum DrawMetrics {
    /// Polygon outlines.
    package static let outlineWidthPx = 1.0
    /// Openings (doors) are drawn this wide in map metres, at least `minLineWidthPx`.
    package static let openingWidthMetres = 0.4
    package static let minLineWidthPx = 1.0
    /// Amenity dots: radius and the white ring around them.
    package static let dotRadiusPx = 3.0
    package static let dotRingPx = 1.0

    package static func metresPerPixel(zoom: Int) -> Double {
        WebMercator.metresPerPixel(zoom: zoom, tileSize: 256)
    }

    package static func lineWidthPx(zoom: Int) -> Double {
        max(minLineWidthPx, openingWidthMetres / metresPerPixel(zoom: zoom))
    }

    /// How far an item's ink reaches beyond its geometry, in map metres at `zoom`.
    package static func pad(for item: DrawItem, zoom: Int) -> Double {
        guard item.grow > 0 else { return pad(for: item.geometry, zoom: zoom) }
        return item.grow + outlineWidthPx * metresPerPixel(zoom: zoom)
    }

    /// Half the drawn width of a geometry kind beyond its geometry, in map metres at `zoom`.
    package static func pad(for geometry: ProjectedGeometry, zoom: Int) -> Double {
        let mpp = metresPerPixel(zoom: zoom)
        switch geometry {
        case .polygons: return outlineWidthPx / 2 * mpp
        case .lines: return lineWidthPx(zoom: zoom) / 2 * mpp
        case .points: return (dotRadiusPx + dotRingPx / 2) * mpp
        }
    }
}
