/// An sRGB colour with straight (not premultiplied) alpha, 8 bits per channel.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// Parses `#RGB`, `#RRGGBB` or `#RRGGBBAA`; nil for anything else.
    public init?(hex: String) {
        guard hex.first == "#" else { return nil }
        let digits = Array(hex.dropFirst())
        var v = [UInt8]()
        for c in digits {
            guard let d = c.hexDigitValue else { return nil }
            v.append(UInt8(d))
        }
        switch v.count {
        case 3: self.init(r: v[0] * 17, g: v[1] * 17, b: v[2] * 17)
        case 6: self.init(r: v[0] << 4 | v[1], g: v[2] << 4 | v[3], b: v[4] << 4 | v[5])
        case 8: self.init(r: v[0] << 4 | v[1], g: v[2] << 4 | v[3], b: v[4] << 4 | v[5], a: v[6] << 4 | v[7])
        default: return nil
        }
    }

    public var description: String {
        let hex = [r, g, b] + (a == 255 ? [] : [a])
        return "#" + hex.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }
}
