import Foundation

/// One glyph as MapLibre reads it from a glyph PBF (`glyphs.proto`): a signed
/// distance field of `(width + 2·buffer) × (height + 2·buffer)` bytes, and
/// metrics in pixels at the 24 px em.
public struct SDFGlyph: Equatable, Sendable {
    public var id: UInt32
    public var bitmap: [UInt8]
    public var width: Int
    public var height: Int
    /// Left bearing.
    public var left: Int
    /// Top of the glyph box relative to the line's top (the face's ascender):
    /// MapLibre's shaping expects this origin (node-fontnik's convention), so
    /// an upper-case letter has a negative top of about ascender − cap height.
    public var top: Int
    public var advance: Int
}

/// MapLibre's usual SDF parameters (those of node-fontnik and TinySDF).
public enum SDFParameters {
    public static let fontSize = 24
    public static let buffer = 3
    public static let radius = 8.0
    /// The share of the radius used inside the glyph: the outline sits at
    /// 255·(1 − cutoff) ≈ 192, where MapLibre's shader puts the edge (0.75).
    public static let cutoff = 0.25
}

enum SDFRenderer {
    /// The distance field of a flattened outline. Distances are to the nearest
    /// segment, negative inside (non-zero winding), scaled so that `radius`
    /// pixels span 256 values, then shifted by `cutoff` and inverted.
    static func render(_ o: GlyphOutline, codePoint: UInt32, ascender: Int) -> SDFGlyph {
        let b = SDFParameters.buffer
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for r in o.rings { for p in r { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) } }
        guard !o.rings.isEmpty, maxX > minX, maxY > minY else {
            // Spaces and other empty glyphs: an advance and no bitmap.
            return SDFGlyph(id: codePoint, bitmap: [], width: 0, height: 0, left: 0, top: -ascender, advance: o.advance)
        }
        let x0 = minX.rounded(), y0 = minY.rounded(), x1 = maxX.rounded(), y1 = maxY.rounded()
        let w = max(1, Int(x1 - x0)), h = max(1, Int(y1 - y0))
        let bw = w + 2 * b, bh = h + 2 * b
        // Segments in bitmap space (origin at the box's lower left minus the buffer).
        var segs = [(ax: Double, ay: Double, bx: Double, by: Double)]()
        for r in o.rings {
            for i in 1..<r.count {
                segs.append((r[i - 1].x - x0 + Double(b), r[i - 1].y - y0 + Double(b), r[i].x - x0 + Double(b), r[i].y - y0 + Double(b)))
            }
        }
        var bitmap = [UInt8](repeating: 0, count: bw * bh)
        let radius = SDFParameters.radius, scale = 256 / radius
        for row in 0..<bh {
            // Row 0 of the bitmap is the top: y counts up from the bottom.
            let py = Double(bh - 1 - row) + 0.5
            // Only segments within the radius of this row matter for the distance,
            // and every segment the row crosses is among them (exact, and 3× faster).
            let near = segs.filter { min($0.ay, $0.by) - radius <= py && max($0.ay, $0.by) + radius >= py }
            for col in 0..<bw {
                let px = Double(col) + 0.5
                var best = radius * radius
                var winding = 0
                for s in near {
                    let d = squaredDistance(px, py, s)
                    if d < best { best = d }
                    winding += crossing(px, py, s)
                }
                var d = best.squareRoot() * scale
                if winding != 0 { d = -d }
                d += SDFParameters.cutoff * 256
                bitmap[row * bw + col] = UInt8(255 - Int(min(max(d, 0), 255)))
            }
        }
        return SDFGlyph(id: codePoint, bitmap: bitmap, width: w, height: h, left: Int(x0),
                        top: Int(y1) - ascender, advance: o.advance)
    }

    static func squaredDistance(_ px: Double, _ py: Double, _ s: (ax: Double, ay: Double, bx: Double, by: Double)) -> Double {
        let dx = s.bx - s.ax, dy = s.by - s.ay
        let l2 = dx * dx + dy * dy
        var t = l2 == 0 ? 0 : ((px - s.ax) * dx + (py - s.ay) * dy) / l2
        t = min(1, max(0, t))
        let cx = s.ax + t * dx - px, cy = s.ay + t * dy - py
        return cx * cx + cy * cy
    }

    /// +1 / −1 when the segment crosses the horizontal ray to the right of the point upwards / downwards.
    static func crossing(_ px: Double, _ py: Double, _ s: (ax: Double, ay: Double, bx: Double, by: Double)) -> Int {
        let side = (s.bx - s.ax) * (py - s.ay) - (px - s.ax) * (s.by - s.ay)
        if s.ay <= py { return s.by > py && side > 0 ? 1 : 0 }
        return s.by <= py && side < 0 ? -1 : 0
    }
}
