import Foundation
import VenueModel

/// A sprite sheet as MapLibre has it: one PNG and a JSON index of the images in
/// it (`{"name": {"x", "y", "width", "height", "pixelRatio"}}`), usually at pixel
/// ratios 1 and 2 (`sprite.png`, `sprite@2x.png`). Icons and fill patterns come
/// from here. This type holds bytes only; Rendering decodes the PNG.
public struct Sprite: Sendable {
    public struct Image: Hashable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        public var pixelRatio: Int
        /// Size in 256 px tile pixels.
        public var logicalWidth: Double { Double(width) / Double(pixelRatio) }
        public var logicalHeight: Double { Double(height) / Double(pixelRatio) }
    }

    public var pixelRatio: Int
    public var images: [String: Image]
    public var png: Data
    /// The files it came from, for messages.
    public var source: String

    public static func parse(index: Data, png: Data, pixelRatio: Int, source: String) throws -> Sprite {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: index) } catch {
            throw StyleError(source: source + ".json", entry: nil, property: nil, problem: "malformed JSON")
        }
        guard let o = root as? [String: Any] else {
            throw StyleError(source: source + ".json", entry: nil, property: nil, problem: "expected an object of images")
        }
        guard png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw StyleError(source: source + ".png", entry: nil, property: nil, problem: "not a PNG file")
        }
        // The sheet's size from the PNG header (IHDR), so that no image reaches past it:
        // a rectangle outside the sheet would paint nothing, and a huge one would reach Cairo.
        guard png.count >= 24 else {
            throw StyleError(source: source + ".png", entry: nil, property: nil, problem: "not a PNG file (too short for its header)")
        }
        let p = [UInt8](png.prefix(24))
        func be32(_ i: Int) -> Int { p[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let sheetWidth = be32(16), sheetHeight = be32(20)
        var images = [String: Image]()
        for name in o.keys.sorted() {
            guard let e = o[name] as? [String: Any] else {
                throw StyleError(source: source + ".json", entry: name, property: nil, problem: "expected an object")
            }
            func int(_ k: String, _ fallback: Int? = nil) throws -> Int {
                // Bounded before the conversion: no sheet is a million pixels wide, and intValue of 1e300 is garbage.
                if let n = e[k] as? NSNumber, !JSONTypes.isBoolean(n), n.doubleValue >= 0, n.doubleValue <= 1_000_000,
                   n.doubleValue == n.doubleValue.rounded() { return n.intValue }
                if e[k] == nil, let fallback { return fallback }
                throw StyleError(source: source + ".json", entry: name, property: k, problem: "expected a non-negative integer up to 1,000,000")
            }
            let img = Image(x: try int("x"), y: try int("y"), width: try int("width"), height: try int("height"),
                            pixelRatio: max(1, try int("pixelRatio", pixelRatio)))
            guard img.width > 0, img.height > 0 else {
                throw StyleError(source: source + ".json", entry: name, property: "width", problem: "an image needs a size")
            }
            guard img.x + img.width <= sheetWidth, img.y + img.height <= sheetHeight else {
                throw StyleError(source: source + ".json", entry: name, property: nil,
                                 problem: "the image (\(img.width)×\(img.height) at \(img.x),\(img.y)) reaches outside the \(sheetWidth)×\(sheetHeight) sheet")
            }
            images[name] = img
        }
        return Sprite(pixelRatio: pixelRatio, images: images, png: png, source: source)
    }

    /// The image an amenity of `category` uses: the exact name, else the
    /// category with its last `.part` dropped, repeatedly ("restroom.female" →
    /// "restroom").
    public func image(forCategory category: String) -> (name: String, image: Image)? {
        var c = Substring(category)
        while true {
            if let i = images[String(c)] { return (String(c), i) }
            guard let dot = c.lastIndex(of: ".") else { return nil }
            c = c[..<dot]
        }
    }

    /// The icon name a style's `icon-name` gives an amenity: `{category}` stands
    /// for the amenity's category.
    public func iconName(_ template: String, category: String) -> (name: String, image: Image)? {
        if template.contains("{category}") {
            return image(forCategory: template.replacingOccurrences(of: "{category}", with: category))
        }
        return images[template].map { (template, $0) }
    }

    /// The built-in sprite (`Sources/Styling/Resources/sprite*.{json,png}`, drawn by `scripts/make_sprite.py`).
    public static func builtIn(pixelRatio: Int) -> Sprite { pixelRatio >= 2 ? builtInTwo : builtInOne }

    /// Parsed once: the build fingerprint, the style check and every renderer ask for it.
    private static let builtInOne = embedded(index: PackageResources.sprite_json, png: PackageResources.sprite_png, ratio: 1)
    private static let builtInTwo = embedded(index: PackageResources.sprite_2x_json, png: PackageResources.sprite_2x_png, ratio: 2)

    private static func embedded(index: [UInt8], png: [UInt8], ratio: Int) -> Sprite {
        do {
            return try parse(index: Data(index), png: Data(png), pixelRatio: ratio, source: "built-in sprite" + (ratio == 2 ? "@2x" : ""))
        } catch { preconditionFailure("the built-in sprite does not parse: \(error)") }
    }

    /// Reads `base.json` + `base.png` (ratio 1) or `base@2x.json` + `base@2x.png`.
    public static func load(base: String, pixelRatio: Int) throws -> Sprite {
        let suffix = pixelRatio >= 2 ? "@2x" : ""
        let jsonPath = base + suffix + ".json", pngPath = base + suffix + ".png"
        guard let j = FileManager.default.contents(atPath: jsonPath) else {
            throw StyleError(source: jsonPath, entry: nil, property: nil, problem: "cannot read sprite index")
        }
        guard let p = FileManager.default.contents(atPath: pngPath) else {
            throw StyleError(source: pngPath, entry: nil, property: nil, problem: "cannot read sprite image")
        }
        return try parse(index: j, png: p, pixelRatio: pixelRatio >= 2 ? 2 : 1, source: base + suffix)
    }
}
