/// Per-feature paint carried by the venue data itself.
public struct SourcePaint: Hashable, Sendable {
    /// `#RRGGBB` as the source wrote it.
    public var color: String?
    /// 0…1.
    public var opacity: Double?
    /// Extrusion height in metres (used by the mesh output).
    public var height: Double?
    public var hidden: Bool

    public init(color: String? = nil, opacity: Double? = nil, height: Double? = nil, hidden: Bool = false) {
        self.color = color; self.opacity = opacity; self.height = height; self.hidden = hidden
    }
}

/// One drawable or labelable thing on a level (or venue-wide when `levelID` is nil).
public struct Feature: Hashable, Sendable {
    /// The source's id (an IMDF UUID, an OSM id, ...).
    public var id: String
    public var featureClass: FeatureClass
    /// The source category string, kept verbatim for properties and styling.
    public var category: String
    public var levelID: String?
    public var buildingID: String?
    public var name: LocalizedName
    public var displayPoint: LonLat?
    public var geometry: Geometry
    /// For anchors: the unit they sit in (IMDF `unit_id`).
    public var unitID: String?
    /// Paint the source itself gives this feature (MVF `styles.json` / `default-style.json`);
    /// applied on top of the style document.
    public var sourcePaint: SourcePaint?

    public init(id: String, featureClass: FeatureClass, category: String, levelID: String?,
                buildingID: String? = nil, name: LocalizedName = LocalizedName(),
                displayPoint: LonLat? = nil, geometry: Geometry, unitID: String? = nil, sourcePaint: SourcePaint? = nil) {
        self.id = id; self.featureClass = featureClass; self.category = category
        self.levelID = levelID; self.buildingID = buildingID; self.name = name
        self.displayPoint = displayPoint; self.geometry = geometry; self.unitID = unitID
        self.sourcePaint = sourcePaint
    }
}

public struct Level: Hashable, Sendable {
    public var id: String
    /// The whole floor at or below this level (IMDF `ordinal`; for OSM
    /// `level=0.5`, 0; for `level=-0.5`, −1).
    public var ordinal: Int
    /// How far above `ordinal` a level between whole floors sits (a mezzanine),
    /// in millionths of a floor: 0 for whole floors, 500,000 for OSM `level=0.5`.
    /// Such a level is a floor of its own between the integers (see `Floor.id`).
    public var fraction: Int = 0
    public var name: LocalizedName
    public var shortName: LocalizedName
    public var outdoor: Bool
    public var buildingIDs: [String]
    public var category: String
    /// The level outline; nil when the source has none.
    public var geometry: Geometry?

    public init(id: String, ordinal: Int, fraction: Int = 0, name: LocalizedName, shortName: LocalizedName,
                outdoor: Bool, buildingIDs: [String], category: String, geometry: Geometry?) {
        precondition((0..<Floor.fractionScale).contains(fraction), "fraction \(fraction) out of 0..<1,000,000")
        self.id = id; self.ordinal = ordinal; self.fraction = fraction; self.name = name; self.shortName = shortName
        self.outdoor = outdoor; self.buildingIDs = buildingIDs; self.category = category
        self.geometry = geometry
    }
}

public struct Building: Hashable, Sendable {
    public var id: String
    public var name: LocalizedName
    public var category: String
    public var displayPoint: LonLat?

    public init(id: String, name: LocalizedName, category: String, displayPoint: LonLat?) {
        self.id = id; self.name = name; self.category = category; self.displayPoint = displayPoint
    }
}

/// The normalized venue every reader produces.
public struct Venue: Sendable {
    public var id: String
    public var name: LocalizedName
    public var category: String
    /// The language named by the source (IMDF manifest `language`); used to pick default names.
    public var language: String?
    public var displayPoint: LonLat?
    public var geometry: Geometry?
    public var buildings: [Building]
    public var levels: [Level]
    /// Every feature except levels, in source order.
    public var features: [Feature]

    public init(id: String, name: LocalizedName, category: String, language: String?,
                displayPoint: LonLat?, geometry: Geometry?, buildings: [Building],
                levels: [Level], features: [Feature]) {
        self.id = id; self.name = name; self.category = category; self.language = language
        self.displayPoint = displayPoint; self.geometry = geometry; self.buildings = buildings
        self.levels = levels; self.features = features
    }

    /// Bounds of all levels and features (the venue polygon is not included: it often
    /// spans car parks and landside areas that no floor draws).
    public var contentBounds: LonLatBounds {
        var b = LonLatBounds.empty
        for l in levels { if let g = l.geometry { b.extend(g.bounds) } }
        for f in features where f.levelID != nil { b.extend(f.geometry.bounds) }
        if b.isEmpty, let g = geometry { b = g.bounds }
        return b
    }
}

extension Level {
    /// The level's outline as a feature of the floor-outlines class, or nil when the level has none.
    public var outlineFeature: Feature? {
        geometry.map { Feature(id: id, featureClass: .levelOutline, category: category, levelID: id,
                               buildingID: buildingIDs.first, name: name, geometry: $0) }
    }
}
