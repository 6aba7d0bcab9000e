/// What a person picks in a floor switcher: every level that shares one ordinal,
/// across all buildings of the venue.
public struct Floor: Hashable, Sendable {
    public var ordinal: Int
    /// Levels of this floor, indoor before outdoor, then by id.
    public var levels: [Level]

    public init(ordinal: Int, levels: [Level]) {
        self.ordinal = ordinal
        self.levels = levels.sorted { ($0.outdoor ? 1 : 0, $0.id) < ($1.outdoor ? 1 : 0, $1.id) }
    }

    /// The URL-safe floor id used in paths, layer ids and the manifest:
    /// `floor_<n>` for ordinal n ≥ 0 and `floor_b<n>` for basement ordinal −n.
    public var id: String { Floor.id(forOrdinal: ordinal) }

    public static func id(forOrdinal ordinal: Int) -> String {
        ordinal >= 0 ? "floor_\(ordinal)" : "floor_b\(-ordinal)"
    }

    /// The short name of the first indoor level that has one (e.g. "L1", "B1").
    public func shortName(language: String?) -> String? {
        for level in levels { if let s = level.shortName.text(preferring: language) { return s } }
        return nil
    }

    /// Groups levels into floors by ordinal, lowest ordinal first.
    public static func group(_ levels: [Level]) -> [Floor] {
        Dictionary(grouping: levels, by: \.ordinal)
            .map { Floor(ordinal: $0.key, levels: $0.value) }
            .sorted { $0.ordinal < $1.ordinal }
    }
}
