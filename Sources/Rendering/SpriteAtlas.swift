import Foundation
import Styling

/// A sprite sheet decoded for one renderer: Cairo surfaces are never shared
/// between threads, so every worker decodes its own copy once.
final class SpriteAtlas {
    let sprite: Sprite
    let sheet: ImageSurface
    private var patterns = [String: ImageSurface]()

    init(_ sprite: Sprite) throws {
        self.sprite = sprite
        sheet = try ImageSurface.decodePNG(sprite.png)
    }

    /// Paints image `name` centred on (cx, cy) in device pixels of a tile drawn at `scale`.
    func drawIcon(_ name: String, cx: Double, cy: Double, scale: Int, on cr: CairoContext) {
        guard let i = sprite.images[name] else { return }
        let k = Double(scale) / Double(i.pixelRatio)
        let w = Double(i.width) * k, h = Double(i.height) * k
        cr.paint(sheet, sourceX: Double(i.x), sourceY: Double(i.y), width: Double(i.width), height: Double(i.height),
                 x: (cx - w / 2).rounded(), y: (cy - h / 2).rounded(), scale: k)
    }

    /// Image `name` cut out of the sheet, for repeating as a fill pattern.
    func pattern(_ name: String) throws -> (surface: ImageSurface, pixelRatio: Int)? {
        guard let i = sprite.images[name] else { return nil }
        if let p = patterns[name] { return (p, i.pixelRatio) }
        let s = try ImageSurface(width: i.width, height: i.height)
        let c = try CairoContext(s)
        c.paint(sheet, sourceX: Double(i.x), sourceY: Double(i.y), width: Double(i.width), height: Double(i.height), x: 0, y: 0, scale: 1)
        patterns[name] = s
        return (s, i.pixelRatio)
    }
}
