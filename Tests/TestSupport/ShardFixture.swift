import Foundation

/// Sharded builds in tests: a config of venues of every input format, and a
/// byte-for-byte comparison of two output folders.
public enum ShardFixture {
    static var testsRoot: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent() }

    /// Writes `pipeline.json` in `dir` (output `out`): the IMDF sample, an MVF
    /// v3 bundle and an indoor GeoJSON file, with raster, vector and mesh
    /// output over `zooms` (z19 and up draw metatiles). Returns the config.
    public static func writeMixedConfig(_ dir: URL, zooms: ClosedRange<Int> = 17...20, extraTilesets: String = "") throws -> URL {
        let mvf = dir.appendingPathComponent("hall-mvf")
        try MVFFixture.writeV3(to: mvf)
        let imdf = testsRoot.appendingPathComponent("VenueFormatsTests/Fixtures/harbour-arcade").path
        let osm = testsRoot.appendingPathComponent("VenueFormatsTests/Fixtures/osm-indoor.geojson").path
        let text = """
        {"output": "out", "zoom": {"min": \(zooms.lowerBound), "max": \(zooms.upperBound)},
         "sources": [{"id": "harbour", "format": "imdf", "path": "\(imdf)"},
                     {"id": "hall", "format": "mvf", "path": "\(mvf.path)"},
                     {"id": "mall", "format": "geojson", "path": "\(osm)"}],
         "tilesets": [{"format": "png"}, {"format": "mvt"}\(extraTilesets)],
         "mesh": true}
        """
        let url = dir.appendingPathComponent("pipeline.json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Every file under `root` (relative paths, sorted), without venuetiles'
    /// own `.venuetiles/` folder.
    public static func files(_ root: URL) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var out = [String]()
        for case let rel as String in e {
            if rel == ".venuetiles" { e.skipDescendants(); continue }
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(rel).path, isDirectory: &isDir), !isDir.boolValue { out.append(rel) }
        }
        return out.sorted()
    }

    /// How two output folders differ: files only in one, files whose bytes
    /// differ, and the index (`.venuetiles/index`), whose last 16 bytes (the
    /// manifest's modification time) are left out. Empty when they are equal.
    public static func differences(_ a: URL, _ b: URL) -> [String] {
        let fa = files(a), fb = files(b)
        var out = Set(fa).symmetricDifference(fb).sorted().map { "only in one folder: \($0)" }
        for f in Set(fa).intersection(fb).sorted() {
            let da = FileManager.default.contents(atPath: a.appendingPathComponent(f).path)
            let db = FileManager.default.contents(atPath: b.appendingPathComponent(f).path)
            if da != db { out.append("bytes differ: \(f)") }
        }
        let ia = FileManager.default.contents(atPath: a.appendingPathComponent(".venuetiles/index").path)
        let ib = FileManager.default.contents(atPath: b.appendingPathComponent(".venuetiles/index").path)
        if let ia, let ib {
            if ia.count != ib.count || ia.dropLast(16) != ib.dropLast(16) { out.append("index differs") }
        } else if (ia == nil) != (ib == nil) {
            out.append("index only in one folder")
        }
        return out
    }
}
