import Foundation

/// Palette bookkeeping over index rows (a filter byte, then one palette index
/// per pixel), for the reduced and `.small` indexed files.
extension PNGEncoder {
    /// Pixels per palette index.
    static func indexCounts(_ ix: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, colors: Int) -> [UInt32] {
        var counts = [UInt32](repeating: 0, count: 256)
        counts.withUnsafeMutableBufferPointer { c in
            for y in 0..<height {
                let row = ix + y * stride + 1
                for x in 0..<width { c[Int(row[x])] += 1 }
            }
        }
        return Array(counts.prefix(colors))
    }

    /// Every index `i` in the rows replaced by `map[i]`.
    static func remap(_ ix: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, through map: [UInt8]) {
        var table = [UInt8](repeating: 0, count: 256)
        for (i, m) in map.enumerated() { table[i] = m }
        table.withUnsafeBufferPointer { t in
            for y in 0..<height {
                let row = ix + y * stride + 1
                for x in 0..<width { row[x] = t[Int(row[x])] }
            }
        }
    }

    /// The used entries of `colors` (straight RGBA words), those with alpha
    /// below 255 first (so tRNS, which lists alphas up to the last such entry,
    /// is as short as it can be), each group in its old order; and per old
    /// index its new one (unused entries map to 0, which no pixel asks for).
    static func tidy(_ colors: [UInt32], counts: [UInt32]) -> (palette: [UInt32], map: [UInt8]) {
        let used = colors.indices.filter { counts[$0] > 0 }
        let order = used.filter { colors[$0] & 0xFF != 0xFF } + used.filter { colors[$0] & 0xFF == 0xFF }
        var map = [UInt8](repeating: 0, count: colors.count)
        for (new, old) in order.enumerated() { map[old] = UInt8(new) }
        return (order.map { colors[$0] }, map)
    }
}
