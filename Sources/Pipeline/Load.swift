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
        /// The bundle it was read from and the names of its files (for the
        /// fingerprint of what was parsed; see `InputFingerprint`).
        var bundle: VenueBundle?
        var names: [String] = []
    }

    /// `threads`: how many files of a dataset are parsed at once. With a
    /// `recorder`, the digest of every byte the reader parses is recorded.
    static func source(_ s: PipelineConfig.Source, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                       recorder: InputFingerprint.Recorder?) throws -> Loaded {
        let (opened, names) = try InputFingerprint.bundle(s)
        let bundle: VenueBundle = recorder.map { InputFingerprint.RecordingBundle(inner: opened, source: s.id, recorder: $0) } ?? opened
        var loaded: Loaded
        switch s.format {
        case .imdf:
            var r = IMDFReader(limits: s.limits, threads: threads)
            let v = try r.read(bundle)
            loaded = Loaded(sourceID: s.id, venue: v, diagnostics: r.diagnostics.items)
        case .geojson:
            var r = IndoorGeoJSONReader(levelProperty: s.levelProperty ?? "level", categoryProperty: s.categoryProperty, limits: s.limits)
            let single = s.path.hasSuffix(".geojson") || s.path.hasSuffix(".json")
            let v = try r.read(bundle, only: single ? names.first : nil, venueID: s.id, location: s.path)
            loaded = Loaded(sourceID: s.id, venue: v, diagnostics: r.diagnostics.items)
        case .mvf:
            var r = MVFReader(limits: s.limits)
            let v = try r.read(bundle)
            loaded = Loaded(sourceID: s.id, venue: v, diagnostics: r.diagnostics.items)
        }
        loaded.bundle = bundle
        loaded.names = names
        loaded.diagnostics += FarFeatures.remove(from: &loaded.venue, file: s.path)
        loaded.diagnostics += LongNames.bound(&loaded.venue, file: s.path)
        return loaded
    }

    public static func source(_ s: PipelineConfig.Source, threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> Loaded {
        try source(s, threads: threads, recorder: nil)
    }

    /// The sprite sheets for pixel ratios 1 and 2. A custom sprite needs its ratio-1
    /// files; without `@2x` files, 512 px tiles scale the ratio-1 images up.
    public static func sprites(_ base: String?) throws -> (one: Sprite, two: Sprite) {
        guard let base else { return (.builtIn(pixelRatio: 1), .builtIn(pixelRatio: 2)) }
        let one = try Sprite.load(base: base, pixelRatio: 1)
        let hasTwo = FileManager.default.fileExists(atPath: base + "@2x.json")
        return (one, hasTwo ? try Sprite.load(base: base, pixelRatio: 2) : one)
    }

    /// Style properties that name sprite images the sprite does not have (warnings).
    public static func missingSpriteImages(_ style: Style, _ sprite: Sprite) -> [String] {
        var out = [String]()
        for id in style.layers.keys.sorted() {
            let l = style.layers[id]!
            if let p = l.fillPattern, sprite.images[p] == nil {
                out.append("style layer \(id): fill-pattern \"\(p)\" is not in \(sprite.source); filled without it")
            }
            if let i = l.iconName, !i.contains("{category}"), sprite.images[i] == nil {
                out.append("style layer \(id): icon-name \"\(i)\" is not in \(sprite.source); amenities keep their dots")
            }
        }
        return out
    }

    public static func style(_ path: String?) throws -> Style {
        try styleAndBytes(path).style
    }

    /// The style and the bytes it was parsed from (nil: the built-in style).
    static func styleAndBytes(_ path: String?) throws -> (style: Style, bytes: Data?) {
        guard let path else { return (Style.builtIn, nil) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StyleError(source: path, entry: nil, property: nil, problem: "cannot read style file")
        }
        return (try Style.parse(data, source: path), data)
    }
}
