import Crypto
import Drawing
import Styling
import Threads
import TileGeometry
import VectorTiles
import VenueModel

/// A feature ready for vector tiles: its layer names, properties and projected geometry.
public struct VectorItem: Sendable {
    /// Layer id in the per-floor pyramid (`floor_rooms_floor_0`).
    public var floorLayer: String
    /// Layer id in the venue-wide pyramid (`floor_rooms`): the template without its wildcard.
    public var venueLayer: String
    public var id: UInt64
    public var properties: [(key: String, value: MVTValue)]
    public var geometry: ProjectedGeometry
    /// The layers and properties as ids of the venue's `MVTPropertyTable`.
    public var floorLayerID: UInt32 = 0
    public var venueLayerID: UInt32 = 0
    public var tags: [UInt32] = []
}

/// The vector side of the Prepare stage: every feature that has a layer, with
/// the properties of issue 3 (`id`, `category`, `name`, `name:<lang>`,
/// `level_id`, `ordinal`, `building_id`), plus one label point per named unit.
public struct PreparedVectorVenue: Sendable {
    /// Per floor, in the order of `PreparedVenue.floors`, sorted by layer drawing order.
    public var floors: [[VectorItem]]
    /// Every floor's items plus venue-wide ones, for `<venue>/all/mvt`.
    public var all: [VectorItem]
    /// The layer names, keys and values of every item, interned once.
    public var table: MVTPropertyTable
    /// Items of the venue-wide pyramid alone (`outdoors`, `building_labels`,
    /// outlines of buildings without a footprint), in drawing order.
    public var overview: [VectorItem] = []
    /// Where each item of `all` is in `floors` (it is the same item): hashed
    /// once; `floor == floors.count` is an index into `overview`.
    public var allSource: [(floor: Int, index: Int)] = []
}

public enum PrepareVector {
    /// `workers`: threads for the label anchors (a pole of inaccessibility per
    /// named unit, most of this stage's time).
    public static func run(_ v: PreparedVenue, workers: Int = 1) -> PreparedVectorVenue {
        let venue = v.venue
        let (occupantName, anchorOf) = unitLabels(venue, workers: workers)
        let props = VectorProperties(v)
        let specID = v.buildingSpecIDs
        func properties(_ f: Feature, name: LocalizedName, fill: String? = nil) -> [(key: String, value: MVTValue)] {
            props.make(f, name: name, fill: fill)
        }

        var table = MVTPropertyTable()
        func interned(_ item: VectorItem) -> VectorItem {
            var item = item
            item.floorLayerID = table.layer(item.floorLayer)
            item.venueLayerID = table.layer(item.venueLayer)
            item.tags = table.tags(item.properties)
            return item
        }
        var floors = [[VectorItem]]()
        var all = [(order: Int, seq: Int, item: VectorItem)]()
        var position = [Int: (floor: Int, index: Int)]()
        var seq = 0
        var venueWideDone = false
        // Feature ids of the venue-wide pyramid must be unique per layer: a
        // feature repeated on several floors (same id, same geometry) goes in
        // once; any other clash gets an id derived from its level.
        var ids = UniqueIDs()
        // Building floors repeat the ordinal floors' features: the venue-wide
        // pyramid takes one stack (`primaryFloors`).
        let stacked = v.primaryFloors.first?.floor.building == nil
        for pf in v.floors {
            let inStack = pf.floor.building == nil || !stacked
            var items = [(order: Int, seq: Int, item: VectorItem)]()
            let feats = floorFeatures(venue, pf)
            for f in feats {
                // Hidden in the venue's own styles (MVF): left out like the raster leaves it out.
                guard let template = LayerTable.template(for: f.featureClass), f.sourcePaint?.hidden != true else { continue }
                let order = LayerTable.drawIndex(of: template)
                let venueWide = f.levelID == nil
                let venueLayer = LayerTable.genericID(template)
                let placement = inStack ? ids.place(f, layer: venueLayer) : (id: PrepareVector.stableID(f.id), isNew: false)
                let item = interned(VectorItem(floorLayer: LayerTable.layerID(template, floor: pf.id, building: f.buildingID.map { specID[$0] ?? $0 }),
                                      venueLayer: venueLayer, id: placement.id,
                                      properties: properties(f, name: f.name, fill: pf.fillCategories[f.id]),
                                      geometry: ProjectedGeometry(f.geometry)))
                seq += 1
                items.append((order, seq, item))
                let inAll = placement.isNew && (!venueWide || !venueWideDone)
                if inAll { all.append((order, seq, item)) }

                // Labels: a point per named unit.
                guard isUnitClass(f.featureClass) else { continue }
                let name = f.name.isEmpty ? (occupantName[f.id] ?? f.name) : f.name
                guard !name.isEmpty, let anchor = anchorOf[f.id] ?? labelPoint(f) else { continue }
                let labelTemplate = "floor_labels_[FLOOR]"
                let label = interned(VectorItem(floorLayer: LayerTable.layerID(labelTemplate, floor: pf.id), venueLayer: LayerTable.genericID(labelTemplate),
                                       id: placement.id, properties: properties(f, name: name), geometry: .points([anchor])))
                seq += 1
                let lo = LayerTable.drawIndex(of: labelTemplate)
                items.append((lo, seq, label))
                if inAll { all.append((lo, seq, label)) }
            }
            venueWideDone = true
            items.sort { ($0.order, $0.seq) < ($1.order, $1.seq) }
            for (i, e) in items.enumerated() { position[e.seq] = (floors.count, i) }
            floors.append(items.map(\.item))
        }
        // The overview's layers (outdoor levels, building labels, outlines of
        // buildings without a footprint): the venue-wide pyramid's own items.
        var overview = [(order: Int, seq: Int, item: VectorItem)]()
        for (order, item) in overviewItems(v, props: props, ids: &ids) {
            seq += 1
            overview.append((order, seq, interned(item)))
        }
        overview.sort { ($0.order, $0.seq) < ($1.order, $1.seq) }
        for (i, e) in overview.enumerated() { position[e.seq] = (floors.count, i) }
        all += overview
        all.sort { ($0.order, $0.seq) < ($1.order, $1.seq) }
        var out = PreparedVectorVenue(floors: floors, all: all.map(\.item), table: table)
        out.overview = overview.map(\.item)
        out.allSource = all.map { position[$0.seq]! }
        return out
    }

    /// Occupant names by unit (a unit's label is its own name, else that of
    /// the first occupant anchored in it) and the label anchor of every named
    /// unit: a pole of inaccessibility each, on `workers` threads.
    static func unitLabels(_ venue: Venue, workers: Int) -> (occupantName: [String: LocalizedName], anchorOf: [String: MercatorPoint]) {
        var occupantName = [String: LocalizedName]()
        for a in venue.features where a.featureClass == .anchor && !a.name.isEmpty {
            if let u = a.unitID, occupantName[u] == nil { occupantName[u] = a.name }
        }
        // Named units only: unnamed ones carry no label.
        let unitIndices = venue.features.indices.filter { i in
            let f = venue.features[i]
            return isUnitClass(f.featureClass) && (!f.name.isEmpty || !(occupantName[f.id]?.isEmpty ?? true))
        }
        let unitAnchors = Workers.map(unitIndices.count, workers: workers, placeholder: MercatorPoint?.none) { _, i in
            labelPoint(venue.features[unitIndices[i]])
        }
        var anchorOf = [String: MercatorPoint]()
        for (i, fi) in unitIndices.enumerated() { if let a = unitAnchors[i] { anchorOf[venue.features[fi].id] = a } }
        return (occupantName, anchorOf)
    }

    /// A floor's features in drawing-source order: the venue, the buildings,
    /// the floor's level outlines, then the features on its levels.
    static func floorFeatures(_ venue: Venue, _ pf: PreparedFloor) -> [Feature] {
        let levelIDs = Set(pf.floor.levels.map(\.id))
        var feats = [Feature]()
        if let g = venue.geometry {
            feats.append(Feature(id: venue.id, featureClass: .venue, category: venue.category, levelID: nil, name: venue.name, geometry: g))
        }
        feats += venue.features.filter { $0.levelID == nil && $0.featureClass == .building }
        for level in pf.floor.levels {
            if let outline = level.outlineFeature { feats.append(outline) }
        }
        feats += venue.features.filter { $0.levelID.map(levelIDs.contains) == true }
        return feats
    }

    static func isUnitClass(_ c: FeatureClass) -> Bool {
        switch c {
        case .elevator, .stairs, .restroom, .walkway, .nonPublic, .openToBelow, .otherRoom, .room, .water: return true
        default: return false
        }
    }

    /// The display point when the source gives one, else the pole of
    /// inaccessibility of the largest polygon (to 5 cm).
    static func labelPoint(_ f: Feature) -> MercatorPoint? {
        if let d = f.displayPoint { return WebMercator.project(d) }
        guard case .polygons(let ps) = ProjectedGeometry(f.geometry) else { return nil }
        return pole(ps)
    }

    /// The pole of inaccessibility of the largest of projected polygons (to 5 cm).
    static func pole(_ polygons: [[[MercatorPoint]]]) -> MercatorPoint? {
        let largest = polygons.max { abs(Planar.signedArea($0[0])) < abs(Planar.signedArea($1[0])) }
        return largest.flatMap { PoleOfInaccessibility.find($0, precision: 0.05) }
    }

    /// A numeric feature id from the source id: the first 53 bits of its
    /// SHA-256, so it is stable across runs and exact in JavaScript clients.
    public static func stableID(_ id: String) -> UInt64 {
        let d = Array(SHA256.hash(data: Array(id.utf8)))
        var v: UInt64 = 0
        for i in 0..<8 { v = v << 8 | UInt64(d[i]) }
        return v & ((1 << 53) - 1)
    }
}
