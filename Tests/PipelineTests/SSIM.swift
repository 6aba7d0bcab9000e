import Foundation

/// Structural similarity of two tiles, defined as `scripts/tile_ssim.py`
/// defines it (the same definition in both): each tile is
/// composited over white and over black, SSIM is taken as scikit-image's
/// `structural_similarity` takes it (7×7 uniform window, sample covariance,
/// K1 = 0.01, K2 = 0.03, data range 255, the mean over windows wholly inside
/// the image, averaged over R, G and B), and the tile's score is the lower of
/// the two backgrounds: an error in coverage shows on one of them.
enum SSIM {
    /// `a` and `b`: premultiplied ARGB words (Cairo's), `width`×`height`, rows contiguous.
    /// Premultiplied colour over a background is colour + background × (1 − alpha),
    /// what the tool computes from straight colour to within rounding.
    static func tile(_ a: [UInt32], _ b: [UInt32], width: Int, height: Int) -> Double {
        precondition(a.count == width * height && b.count == a.count, "two images of \(width)×\(height)")
        return [255, 0].map { bg in
            [16, 8, 0].map { shift in
                channel(composite(a, shift, bg), composite(b, shift, bg), width: width, height: height)
            }.reduce(0, +) / 3
        }.min()!
    }

    /// 255 × (the channel at bit `shift` over a background of value `bg`):
    /// whole numbers, so the window sums below are exact.
    static func composite(_ argb: [UInt32], _ shift: UInt32, _ bg: Int) -> [Int] {
        argb.map { p in Int((p >> shift) & 0xFF) * 255 + bg * (255 - Int(p >> 24)) }
    }

    /// Mean SSIM of one channel (values scaled by 255) over every 7×7 window,
    /// from summed-area tables of x, y, x², y² and xy in exact integers.
    static func channel(_ x: [Int], _ y: [Int], width w: Int, height h: Int) -> Double {
        let win = 7, n = Double(win * win), scale = 255.0
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let covNorm = n / (n - 1)
        let r = w + 1, plane = r * (h + 1)
        var t = [Int](repeating: 0, count: 5 * plane)
        t.withUnsafeMutableBufferPointer { t in
            for j in 0..<h {
                for i in 0..<w {
                    let p = x[j * w + i], q = y[j * w + i]
                    let at = (j + 1) * r + i + 1
                    func put(_ k: Int, _ v: Int) { let o = k * plane + at; t[o] = v + t[o - 1] + t[o - r] - t[o - r - 1] }
                    put(0, p); put(1, q); put(2, p * p); put(3, q * q); put(4, p * q)
                }
            }
        }
        var total = 0.0
        t.withUnsafeBufferPointer { t in
            func sum(_ k: Int, _ i: Int, _ j: Int) -> Double {
                let o = k * plane
                return Double(t[o + (j + win) * r + i + win] - t[o + j * r + i + win] - t[o + (j + win) * r + i] + t[o + j * r + i])
            }
            for j in 0...(h - win) {
                for i in 0...(w - win) {
                    let ux = sum(0, i, j) / n / scale, uy = sum(1, i, j) / n / scale
                    let vx = covNorm * (sum(2, i, j) / n / (scale * scale) - ux * ux)
                    let vy = covNorm * (sum(3, i, j) / n / (scale * scale) - uy * uy)
                    let vxy = covNorm * (sum(4, i, j) / n / (scale * scale) - ux * uy)
                    total += ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
                }
            }
        }
        return total / Double((w - win + 1) * (h - win + 1))
    }
}
