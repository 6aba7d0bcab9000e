import VenueModel

/// The text `level` property of vector features, as OSM's Simple Indoor
/// Tagging and the indoor viewers that read it (indoorequal, map-gl-indoor)
/// write it: the floor ordinal (`"0"`, `"-1"`), or the ordinals of every floor
/// a feature is on joined by `;` in ascending order (`"0;1"`).
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

    init(venue: Venue, floorOrdinals: [Int]) {
        for l in venue.levels { ordinalOfLevel[l.id] = l.ordinal }
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
        return ordinalOfLevel[l].map(String.init) ?? ""
    }

    static func join(_ ordinals: [Int]) -> String {
        Set(ordinals).sorted().map(String.init).joined(separator: ";")
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
