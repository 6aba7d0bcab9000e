import Styling
import VenueFormats
import VenueModel

/// `venuetiles validate`: the Load stage alone, summarised per source.
public enum Validation {
    public struct SourceReport: Sendable {
        public var sourceID: String
        public var floors: [String]
        public var levels: Int
        public var features: Int
        /// Feature count per class, in class order.
        public var classes: [(key: String, value: Int)]
        public var diagnostics: [Diagnostic]
        public var warnings: Int
    }

    public static func run(config: PipelineConfig) throws -> [SourceReport] {
        let style = try Load.style(config.style)
        var out = [SourceReport]()
        for s in config.sources {
            let l = try Load.source(s)
            var counts = [FeatureClass: Int]()
            for f in l.venue.features { counts[f.featureClass, default: 0] += 1 }
            var diags = l.diagnostics
            if s.id == config.sources.first?.id {
                diags = style.warnings.map { Diagnostic(kind: .warning, file: config.style ?? "style", featureID: nil, message: $0) } + diags
            }
            out.append(SourceReport(sourceID: s.id, floors: Floor.group(l.venue.levels).map(\.id), levels: l.venue.levels.count,
                                    features: l.venue.features.count,
                                    classes: FeatureClass.allCases.compactMap { c in counts[c].map { (c.rawValue, $0) } },
                                    diagnostics: diags, warnings: diags.filter { $0.kind == .warning }.count))
        }
        return out
    }
}
