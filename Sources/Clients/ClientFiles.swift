import Foundation
import Styling

/// Every client file of one venue, as paths relative to the output folder:
///
/// | file | what |
/// |---|---|
/// | `<venue>/style.json` | MapLibre style over the venue-wide vector pyramid (default floor shown) |
/// | `<venue>/<floor>/style.json` | MapLibre style of one floor's raster pyramid |
/// | `<venue>/sprite{,@2x}.{json,png}` | the sprite the style's icons and patterns come from |
/// | `<venue>/glyphs/{fontstack}/{range}.pbf` | SDF glyphs for the labels |
/// | `<venue>/floors.json` | floors, tilesets, legend |
/// | `<venue>/index.html`, `<venue>/maplibre-gl/*` | the preview page |
public enum VenueClientFiles {
    public struct Output {
        public var files: [(path: String, data: Data)]
        /// Problems worth a warning (label characters no font has).
        public var warnings: [String]
    }

    public static func make(_ v: ClientVenue, style: Style, sprites: (one: Sprite, two: Sprite), fonts: FontCatalog) throws -> Output {
        var files = [(path: String, data: Data)]()
        var warnings = [String]()
        func add(_ path: String, _ data: Data) { files.append(("\(v.id)/\(path)", data)) }

        if let vs = MapLibreStyle.vector(v, style: style) {
            add("style.json", try ClientJSON.encode(vs))
            add("sprite.json", try sprites.one.indexJSON()); add("sprite.png", sprites.one.png)
            add("sprite@2x.json", try sprites.two.indexJSON()); add("sprite@2x.png", sprites.two.png)
            let glyphs = try GlyphFiles.make(fontstacks: MapLibreStyle.fontstacks(style), texts: v.labelTexts, catalog: fonts)
            for g in glyphs.files { add(g.path, g.data) }
            for (stack, chars) in glyphs.missing.sorted(by: { $0.key < $1.key }) {
                warnings.append("\(v.id): glyphs: no installed font has \(chars.count) label character(s) for \"\(stack)\": \(String(chars.prefix(20)))")
            }
        }
        for f in v.floors {
            if let rs = MapLibreStyle.raster(v, style: style, floor: f, from: f.id) { add("\(f.id)/style.json", try ClientJSON.encode(rs)) }
        }
        add("floors.json", try FloorsIndex.make(v, style: style))
        add("index.html", try PreviewPage.html(v, style: style))
        for (name, data) in try PreviewPage.vendored() { add("maplibre-gl/\(name)", data) }
        return Output(files: files.sorted { $0.path < $1.path }, warnings: warnings)
    }
}

extension Sprite {
    /// The sprite index in MapLibre's format (`{name: {x, y, width, height, pixelRatio}}`).
    func indexJSON() throws -> Data {
        var o = [String: Any]()
        for (name, i) in images {
            o[name] = ["x": i.x, "y": i.y, "width": i.width, "height": i.height, "pixelRatio": i.pixelRatio]
        }
        return try ClientJSON.encode(o)
    }
}
