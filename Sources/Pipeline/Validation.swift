import Foundation
import Styling
import VenueFormats
import VenueModel

/// `venuetiles validate`: the Load stage alone, summarised per source. Every
/// source is read even when an earlier one fails, so one run lists every problem.
public enum Validation {
    public struct SourceReport: Sendable {
        public var sourceID: String
        public var path: String
        public var format: String
        /// False when the source cannot be built (it has errors).
        public var readable: Bool
        public var floors: [String]
        /// Ids a style entry may name: every floor of both kinds, and the buildings' spec and source ids.
        public var styleFloorIDs: [String] = []
        public var styleBuildingIDs: [String] = []
        public var levels: Int
        public var features: Int
        /// Feature count per class, in class order.
        public var classes: [(key: String, value: Int)]
        public var diagnostics: [Diagnostic]
        public var warnings: Int { diagnostics.filter { $0.kind == .warning }.count }
        public var errors: Int { diagnostics.filter { $0.kind == .error }.count }
    }

    public static func run(config: PipelineConfig) -> [SourceReport] {
        var out = [SourceReport]()
        var styleDiagnostics = [Diagnostic]()
        var loadedStyle: Style?
        do {
            let style = try Load.style(config.style)
            loadedStyle = style
            styleDiagnostics = style.warnings.map { Diagnostic(kind: .warning, file: config.style ?? "style", featureID: nil, message: $0) }
            let sprites = try Load.sprites(config.sprite)
            styleDiagnostics += Load.missingSpriteImages(style, sprites.one).map {
                Diagnostic(kind: .warning, file: config.style ?? "style", featureID: nil, message: $0)
            }
        } catch {
            styleDiagnostics = [Diagnostic(kind: .error, file: config.style ?? config.sprite ?? "style", featureID: nil, message: "\(error)")]
        }
        for s in config.sources { out.append(report(s)) }
        // Exact style ids naming a floor or building none of the venues has (as the build warns).
        if let style = loadedStyle, out.allSatisfy(\.readable) {
            let building = config.floorKinds.contains(.building)
            let floors = Set(out.flatMap { r in r.styleFloorIDs.filter { building || !$0.hasPrefix("floor_b") } })
            styleDiagnostics += StyleIDCheck.unmatched(style, floors: floors, buildings: Set(out.flatMap(\.styleBuildingIDs))).map {
                Diagnostic(kind: .warning, file: config.style ?? "style", featureID: nil, message: $0)
            }
        }
        if !out.isEmpty { out[0].diagnostics = styleDiagnostics + out[0].diagnostics }
        return out
    }

    /// Reads one source; errors become diagnostics of an unreadable report.
    public static func report(_ s: PipelineConfig.Source) -> SourceReport {
        var r = SourceReport(sourceID: s.id, path: s.path, format: s.format.rawValue, readable: false, floors: [], levels: 0,
                             features: 0, classes: [], diagnostics: [])
        do {
            let l = try Load.source(s)
            var counts = [FeatureClass: Int]()
            for f in l.venue.features { counts[f.featureClass, default: 0] += 1 }
            r.readable = true
            r.floors = Floor.group(l.venue.levels).map(\.id)
            let index = l.venue.buildingIndex
            r.styleFloorIDs = r.floors + Floor.groupByBuilding(l.venue.levels, buildings: index.map(\.id)).map(\.id)
            r.styleBuildingIDs = index.flatMap { [$0.id, $0.specID] }
            r.levels = l.venue.levels.count
            r.features = l.venue.features.count
            r.classes = FeatureClass.allCases.compactMap { c in counts[c].map { (c.rawValue, $0) } }
            r.diagnostics = l.diagnostics
        } catch let e as VenueFormatErrors {
            r.diagnostics = e.diagnostics
        } catch let e as VenueFormatError {
            r.diagnostics = [Diagnostic(kind: .error, file: e.file, featureID: e.featureID, message: e.problem)]
        } catch {
            r.diagnostics = [Diagnostic(kind: .error, file: s.path, featureID: nil, message: "\(error)")]
        }
        return r
    }

    /// The reports as JSON for scripts: one object per source with its problems.
    public static func json(_ reports: [SourceReport], strict: Bool) -> Data {
        let sources: [[String: Any]] = reports.map { r in
            [
                "id": r.sourceID, "path": r.path, "format": r.format, "readable": r.readable,
                "floors": r.floors, "levels": r.levels, "features": r.features,
                "classes": Dictionary(uniqueKeysWithValues: r.classes.map { ($0.key, $0.value) }),
                "errors": r.errors, "warnings": r.warnings,
                "problems": r.diagnostics.map { d -> [String: Any] in
                    var o: [String: Any] = ["severity": strict && d.kind == .warning ? "error" : d.kind.rawValue,
                                            "file": d.file, "message": d.message]
                    if let f = d.featureID { o["feature"] = f }
                    return o
                },
            ]
        }
        let ok = reports.allSatisfy { $0.errors == 0 && (!strict || $0.warnings == 0) }
        let root: [String: Any] = ["valid": ok, "strict": strict, "sources": sources]
        return (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
    }
}
