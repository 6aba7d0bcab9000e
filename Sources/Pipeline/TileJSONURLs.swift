import Archives
import Foundation

extension TileJSON {
    /// The `tiles` URL of a pyramid: absolute from `base` when there is one, else
    /// relative to the TileJSON document itself (`tileJSONPath`, relative to the
    /// output root), as a client resolves it: a document at `v/floor_0/png/tilejson.json`
    /// gives `{z}/{x}/{y}.png`, and a layout whose tiles sit elsewhere gives `../…`.
    public static func tileURL(base: String?, tileJSONPath: String, urlTemplate: String) -> String {
        if let base, !base.isEmpty { return url(base: base, path: urlTemplate) }
        let from = tileJSONPath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let to = urlTemplate.split(separator: "/", omittingEmptySubsequences: false)
        var common = 0
        while common < from.count, common < to.count - 1, from[from.startIndex + common] == to[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        return (ups + to[common...].map(String.init)).joined(separator: "/")
    }

    /// The `tiles` URL of one pyramid of `tileset` under its path template
    /// (TileJSON `scheme` is `tms` when the template counts y from the south).
    public static func tileURL(base: String?, tileJSONPath: String, tileset: PipelineConfig.Tileset,
                               venue: String, floor: String, ordinal: Int?) -> (url: String, scheme: String) {
        // The template was checked when the config was read.
        let t = try! TilePathTemplate(tileset.pathTemplate)
        let template = t.urlTemplate(venue: venue, floor: floor, ordinal: ordinal, format: tileset.format.rawValue, scale: tileset.scale)
        return (tileURL(base: base, tileJSONPath: tileJSONPath, urlTemplate: template), t.isTMS ? "tms" : "xyz")
    }
}
