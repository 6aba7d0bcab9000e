/// What a person picks in a floor switcher: every level that shares one
/// position (ordinal and fraction), across all buildings of the venue (an
/// ordinal floor), or of one building (a building floor, the style spec's
/// `floor_b<building>_<floor>`).
public struct Floor: Hashable, Sendable {
    /// The whole floor at or below this one (see `Level.ordinal`).
    public var ordinal: Int
    /// Millionths of a floor above `ordinal`; 0 for whole floors (see `Level.fraction`).
    public var fraction: Int
    /// Levels of this floor, indoor before outdoor, then by id.
    public var levels: [Level]
    /// For a building floor: the building's spec index (`building_<n>`, see
    /// `Venue.buildingIndex`) and source id; nil for an ordinal floor.
    public var building: Int? = nil
    public var buildingID: String? = nil

    /// A fraction's unit: a millionth of a floor.
    public static let fractionScale = 1_000_000

    public init(ordinal: Int, fraction: Int = 0, levels: [Level]) {
        self.ordinal = ordinal
        self.fraction = fraction
        self.levels = levels.sorted { ($0.outdoor ? 1 : 0, $0.id) < ($1.outdoor ? 1 : 0, $1.id) }
    }

    /// The floor's place in the stack as a number: 0.5 for a mezzanine above floor 0.
    public var position: Double { Double(ordinal) + Double(fraction) / Double(Floor.fractionScale) }

    /// The URL-safe floor id used in paths, layer ids and the manifest:
    /// `floor_<n>` for ordinal n ≥ 0 and `floor_m<n>` for basement ordinal −n
    /// (`m` for minus: `floor_b…` is the style spec's building floor);
    /// a floor between the integers writes its decimal digits after `_`:
    /// `floor_0_5` for level 0.5, `floor_1_25` for 1.25, `floor_m0_5` for −0.5.
    /// A building floor is `floor_b<building>_<the same place>`: `floor_b2_m1`
    /// is ordinal −1 of `building_2`, `floor_b1_0_5` its level 0.5.
    public var id: String {
        let ordinalID = Floor.id(forOrdinal: ordinal, fraction: fraction)
        guard let building else { return ordinalID }
        return "floor_b\(building)_" + ordinalID.dropFirst("floor_".count)
    }

    /// The ordinal floor at the same place (itself for an ordinal floor).
    public var ordinalID: String { Floor.id(forOrdinal: ordinal, fraction: fraction) }

    /// The floor ids a style entry may name for this floor, most specific first:
    /// a building floor's own id, then its ordinal floor's.
    public var styleIDs: [String] { building == nil ? [id] : [id, ordinalID] }

    public static func id(forOrdinal ordinal: Int, fraction: Int = 0) -> String {
        if fraction == 0 { return ordinal >= 0 ? "floor_\(ordinal)" : "floor_m\(ordinal.magnitude)" }
        // The magnitude of ordinal + fraction, as whole part and millionths, without overflow.
        let negative = ordinal < 0
        let whole = negative ? ordinal.magnitude - 1 : ordinal.magnitude
        let millionths = negative ? Floor.fractionScale - fraction : fraction
        var digits = String(millionths)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "floor_\(negative ? "m" : "")\(whole)_\(digits)"
    }

    /// The short name of the first indoor level that has one (e.g. "L1", "B1").
    public func shortName(language: String?) -> String? {
        for level in levels { if let s = level.shortName.text(preferring: language) { return s } }
        return nil
    }

    /// Groups levels into floors by ordinal and fraction, lowest first.
    public static func group(_ levels: [Level]) -> [Floor] {
        struct Place: Hashable { var ordinal: Int; var fraction: Int }
        return Dictionary(grouping: levels) { Place(ordinal: $0.ordinal, fraction: $0.fraction) }
            .map { Floor(ordinal: $0.key.ordinal, fraction: $0.key.fraction, levels: $0.value) }
            .sorted { ($0.ordinal, $0.fraction) < ($1.ordinal, $1.fraction) }
    }

    /// Building floors: for each building (in `Venue.buildingIndex` order), its
    /// indoor levels grouped by ordinal and fraction, lowest first. A level of
    /// several buildings is on a floor of each; outdoor levels and levels of no
    /// known building are on none (they are in the ordinal floors and outdoors).
    public static func groupByBuilding(_ levels: [Level], buildings: [String]) -> [Floor] {
        var out = [Floor]()
        for (i, b) in buildings.enumerated() {
            let mine = levels.filter { !$0.outdoor && $0.buildingIDs.contains(b) }
            for var f in group(mine) {
                f.building = i + 1; f.buildingID = b
                out.append(f)
            }
        }
        return out
    }
}

extension Venue {
    /// The style spec's building ids: `building_<n>` numbers the buildings from
    /// 1 in the order of their source ids (stable when the source reorders its
    /// files). Source id → spec id.
    public var buildingIndex: [(id: String, specID: String)] {
        buildings.map(\.id).sorted().enumerated().map { ($0.element, "building_\($0.offset + 1)") }
    }
}
