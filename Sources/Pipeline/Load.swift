import Foundation
import Styling
import VenueFormats
import VenueModel

/// Load stage: reads every source and the style before anything in the
/// output folder is touched, so bad input leaves the previous output intact.
public enum Load {
    public struct Loaded {
        public var sourceID: String
        public var venue: Venue
        public var diagnostics: [Diagnostic]
    }

    public static func source(_ s: PipelineConfig.Source) throws -> Loaded {
        switch s.format {
        case .imdf:
            var r = IMDFReader(limits: s.limits)
            let v = try r.read(path: s.path)
            return Loaded(sourceID: s.id, venue: v, diagnostics: r.diagnostics.items)
        case .geojson:
            var r = IndoorGeoJSONReader(levelProperty: s.levelProperty ?? "level", categoryProperty: s.categoryProperty, limits: s.limits)
            let v = try r.read(path: s.path, venueID: s.id)
            return Loaded(sourceID: s.id, venue: v, diagnostics: r.diagnostics.items)
        case .mvf:
            var r = MVFReader(limits: s.limits)
            let v = try r.read(path: s.path)
            return Loaded(sourceID: s.id, venue: v, diagnostics: r.diagnostics.items)
        }
    }

    public static func style(_ path: String?) throws -> Style {
        guard let path else { return Style.builtIn }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StyleError(source: path, entry: nil, property: nil, problem: "cannot read style file")
        }
        return try Style.parse(data, source: path)
    }
}
