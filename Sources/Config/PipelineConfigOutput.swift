import Foundation

/// pipeline.json keys of a tileset that say where its tiles go: `layout` (a
/// preset: xyz, tms, quadkey, app-bundle) or `path` (a template with tokens),
/// and `archive` (pmtiles, mbtiles or zip).
extension PipelineConfig.Tileset {
    static let outputKeys = ["layout", "path", "archive"]

    mutating func readOutputKeys(_ o: [String: Any], key: String, _ fail: (String?, String) -> ConfigError) throws {
        if o["layout"] != nil && o["path"] != nil {
            throw fail(key + ".path", "give \"layout\" (a preset) or \"path\" (a template), not both")
        }
        for k in ["layout", "path"] {
            guard let v = o[k] else { continue }
            guard let text = v as? String else { throw fail(key + "." + k, "expected a string") }
            if k == "layout" && TilePathTemplate.presets[text] == nil {
                throw fail(key + ".layout", "unknown layout \"\(text)\" (known: \(TilePathTemplate.presets.keys.sorted().joined(separator: ", ")); or give a template as \"path\")")
            }
            do { pathTemplate = try TilePathTemplate.named(text).template } catch let e as TemplateError {
                throw fail(key + "." + k, e.description)
            }
        }
        if let v = o["archive"] {
            guard let name = v as? String, let f = ArchiveFormat(rawValue: name) else {
                throw fail(key + ".archive", "expected \"pmtiles\", \"mbtiles\" or \"zip\"")
            }
            archive = f
        }
    }

    /// The tile path of this tileset for one tile (the build's folders are made from these).
    public func tilePath(venue: String, floor: String, ordinal: Int?, z: Int, x: Int, y: Int) -> String {
        // The template was checked when the config was read.
        let t = try! TilePathTemplate(pathTemplate)
        return t.path(TilePathValues(venue: venue, floor: floor, ordinal: ordinal, format: format.rawValue, scale: scale, z: z, x: x, y: y))
    }

    /// Two tilesets whose templates give one tile the same path would overwrite
    /// each other's files: refused, naming both.
    static func checkDistinctPaths(_ tilesets: [PipelineConfig.Tileset], _ fail: (String?, String) -> ConfigError) throws {
        var seen = [String: Int]()
        for (i, ts) in tilesets.enumerated() {
            for (floor, ordinal) in [("floor_0", 0 as Int?), ("all", nil)] {
                let p = ts.tilePath(venue: "v", floor: floor, ordinal: ordinal, z: 17, x: 69177, y: 42367)
                if let j = seen[p], j != i {
                    throw fail("tilesets", "\(tilesets[j].directoryName) and \(ts.directoryName) tiles would go to the same paths (\(p)): give them templates that differ")
                }
                seen[p] = i
            }
        }
    }
}

/// The archive a tileset is packed into besides the tree (`archive`; `venuetiles archive --format`).
public enum ArchiveFormat: String, CaseIterable, Sendable {
    case pmtiles, mbtiles, zip
    public var fileExtension: String { rawValue }
}
