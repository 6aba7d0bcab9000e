import VenueModel

/// The text `level` property of vector features, as OSM's Simple Indoor
/// Tagging and the indoor viewers that read it (indoorequal, map-gl-indoor)
/// write it: the floor ordinal (`"0"`, `"-1"`), or the ordinals of every floor
/// a feature is on joined by `;` in ascending order (`"0;1"`); a level between
/// floors as a decimal (`"0.5"`). Places are kept in millionths of a floor
/// (`Floor.fractionScale`), so that they compare and print exactly.
struct LevelText {
    private var ordinalOfLevel = [String: Int]()
    /// Ordinals of features that appear on more than one level: the same id,
    /// class and geometry (a different geometry under the same id is another feature).
    private var repeated = [FeatureKey: String]()
    /// Ids seen more than once; only their features are looked up by geometry.
    private var repeatedIDs = Set<String>()
    /// Features without a level (the venue, buildings) are on every floor.
    private let everyFloor: String

    struct FeatureKey: Hashable { var id: String; var featureClass: FeatureClass; var geometry: Geometry }

    init(venue: Venue, floors: [Floor]) {
        for l in venue.levels { ordinalOfLevel[l.id] = l.ordinal * Floor.fractionScale + l.fraction }
        let floorOrdinals = floors.map { $0.ordinal * Floor.fractionScale + $0.fraction }
        everyFloor = LevelText.join(floorOrdinals)
        var seen = Set<String>()
        for f in venue.features where f.levelID != nil && !seen.insert(f.id).inserted { repeatedIDs.insert(f.id) }
        var ordinals = [FeatureKey: Set<Int>]()
        for f in venue.features where repeatedIDs.contains(f.id) {
            guard let l = f.levelID, let o = ordinalOfLevel[l] else { continue }
            ordinals[FeatureKey(id: f.id, featureClass: f.featureClass, geometry: f.geometry), default: []].insert(o)
        }
        for (k, os) in ordinals where os.count > 1 { repeated[k] = LevelText.join(Array(os)) }
    }

    func text(for f: Feature) -> String {
        guard let l = f.levelID else { return everyFloor }
        if repeatedIDs.contains(f.id), let r = repeated[FeatureKey(id: f.id, featureClass: f.featureClass, geometry: f.geometry)] { return r }
        return ordinalOfLevel[l].map(LevelText.format) ?? ""
    }

    static func join(_ places: [Int]) -> String {
        Set(places).sorted().map(format).joined(separator: ";")
    }

    /// A place in millionths of a floor as OSM writes levels: `0`, `-1`, `0.5`, `-0.5`.
    static func format(_ place: Int) -> String {
        let sign = place < 0 ? "-" : "", a = abs(place), scale = Floor.fractionScale
        guard a % scale != 0 else { return sign + String(a / scale) }
        var digits = String(String(a % scale + scale).dropFirst())   // six digits, leading zeros kept
        while digits.hasSuffix("0") { digits.removeLast() }
        return sign + "\(a / scale).\(digits)"
    }
}

/// Feature ids of the venue-wide pyramid, unique per layer. MVT 2.1 says an id
/// SHOULD be unique within a layer; clients use it for feature state (hover,
/// selection), which a duplicate id would apply to the wrong feature.
struct UniqueIDs {
    private var used = [String: Set<UInt64>]()
    /// Geometry of the first placement of each (layer, source id), to tell a
    /// repeat of the same feature on another floor from a clash.
    private var first = [String: [String: Geometry]]()

    /// `isNew` false: the same feature (id and geometry) is already in `layer`
    /// and the venue-wide pyramid should not carry it again.
    mutating func place(_ f: Feature, layer: String) -> (id: UInt64, isNew: Bool) {
        let base = PrepareVector.stableID(f.id)
        if let g = first[layer]?[f.id] {
            if g == f.geometry { return (base, false) }
        } else {
            first[layer, default: [:]][f.id] = f.geometry
        }
        var id = base, n = 0
        while used[layer, default: []].contains(id) {
            n += 1
            id = PrepareVector.stableID("\(f.id)\u{1F}\(f.levelID ?? "")\u{1F}\(n)")
        }
        used[layer, default: []].insert(id)
        return (id, true)
    }
}
