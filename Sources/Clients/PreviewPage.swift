import Foundation
import Styling

/// `<venue>/index.html`: a page that shows what was built, with MapLibre GL
/// JS vendored beside it (`maplibre-gl/`), so it works from any static
/// server without internet access.
public enum PreviewPage {
    /// The vendored MapLibre GL JS files, copied beside every page.
    public static let vendoredFiles = ["maplibre-gl.js", "maplibre-gl.css", "LICENSE.txt", "VERSION.md"]
    static let resourceBundle = "VenueTiles_Clients.resources"

    public struct MissingResource: Error, CustomStringConvertible {
        public var searched: [String]
        public var description: String {
            "preview page: MapLibre GL JS (\(resourceBundle)/maplibre-gl) not found beside the binary; looked in \(searched.joined(separator: ", "))"
        }
    }

    /// The page: the template with the venue's title and its styles inlined
    /// with URLs relative to the page.
    public static func html(_ v: ClientVenue, style: Style) throws -> Data {
        var page = v
        page.baseURL = nil   // the page loads what is beside it, wherever it is served from
        var rasterTiles = [String: String]()
        if let ts = page.rasterTileset {
            for f in page.floors { rasterTiles[f.id] = ts.tileURL(floor: f.id) }
        }
        var config: [String: Any] = ["raster_tiles": rasterTiles, "minzoom": v.minZoom, "maxzoom": v.maxZoom,
                                     "bounds": v.bounds, "center": v.center, "zoom": Double(max(v.minZoom, 18))]
        if let ts = page.rasterTileset, ts.scheme != "xyz" { config["raster_scheme"] = ts.scheme }
        if let vs = MapLibreStyle.vector(page, style: style) { config["vector_style"] = vs }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
            // Inside <script>: "</" would end the element early.
            .replacingOccurrences(of: "</", with: "<\\/")
        let template = String(decoding: PackageResources.preview_html, as: UTF8.self)
        let out = template.replacingOccurrences(of: "__VENUETILES_TITLE__", with: escapeHTML(v.name))
            .replacingOccurrences(of: "__VENUETILES_CONFIG__", with: json)
        return Data(out.utf8)
    }

    static func escapeHTML(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The vendored files, read from the resource bundle SwiftPM puts beside
    /// the binary (and beside the test bundle in tests).
    public static func vendored() throws -> [(name: String, data: Data)] {
        var searched = [String]()
        var dirs = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()].compactMap { $0 }
        if let arg0 = CommandLine.arguments.first {
            dirs.append(URL(fileURLWithPath: arg0).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for d in dirs {
            let dir = d.appendingPathComponent(resourceBundle).appendingPathComponent("maplibre-gl")
            searched.append(dir.path)
            let files = vendoredFiles.map { (name: $0, data: FileManager.default.contents(atPath: dir.appendingPathComponent($0).path)) }
            if files.allSatisfy({ $0.data != nil }) { return files.map { ($0.name, $0.data!) } }
        }
        throw MissingResource(searched: searched)
    }
}
