import Foundation

/// Small Mappedin MVF bundles written from the public descriptions of v2 and v3:
/// two floors of one building ("Harbour Hall"), with a named room, a hallway,
/// walls, doors, stairs and an elevator, and the bundle's own colours.
public enum MVFFixture {
    /// A square room of `size` degrees with its south-west corner at (lon, lat), counter-clockwise.
    static func square(_ lon: Double, _ lat: Double, _ size: Double, _ h: Double? = nil) -> [[Double]] {
        let hh = h ?? size
        return [[lon, lat], [lon + size, lat], [lon + size, lat + hh], [lon, lat + hh], [lon, lat]]
    }

    static let lon0 = -123.4100, lat0 = 48.6400

    static func feature(_ props: [String: Any], _ type: String, _ coords: Any) -> [String: Any] {
        ["type": "Feature", "properties": props, "geometry": ["type": type, "coordinates": coords]]
    }

    static func collection(_ features: [[String: Any]]) -> [String: Any] {
        ["type": "FeatureCollection", "features": features]
    }

    static func write(_ object: Any, _ dir: URL, _ name: String) throws {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(to: url)
    }

    static var manifest: [String: Any] {
        collection([feature(["name": "Harbour Hall", "version": "3.0.0",
                             "contents": [["type": "file", "name": "floors.geojson"]]],   // deliberately incomplete, as in the wild
                            "Point", [lon0 + 0.0004, lat0 + 0.0002])])
    }

    /// An MVF v3 bundle. Floors are listed upper floor first: file order is not elevation order.
    public static func writeV3(to dir: URL) throws {
        try write(manifest, dir, "manifest.geojson")
        let outline = [square(lon0, lat0, 0.0008, 0.0004)]
        try write(collection([
            feature(["id": "f_upper", "elevation": 1, "details": ["name": "Upper Deck", "shortName": "U"]], "Polygon", outline),
            feature(["id": "f_ground", "elevation": 0, "details": ["name": "Ground", "shortName": "G"]], "Polygon", outline),
        ]), dir, "floors.geojson")
        try write([["id": "fs_hall", "floors": ["f_ground", "f_upper"], "details": ["name": "Harbour Hall"]]], dir, "floor-stacks.json")
        try write(collection([
            feature(["id": "g_bakery", "details": ["name": "Room 1"]], "Polygon", [square(lon0 + 0.0001, lat0 + 0.0001, 0.0002)]),
            feature(["id": "g_hall"], "Polygon", [square(lon0 + 0.0003, lat0 + 0.0001, 0.0004, 0.0001)]),
            feature(["id": "g_wall"], "LineString", [[lon0 + 0.0003, lat0 + 0.0001], [lon0 + 0.0003, lat0 + 0.0003]]),
            feature(["id": "g_door"], "LineString", [[lon0 + 0.0003, lat0 + 0.00015], [lon0 + 0.0003, lat0 + 0.00018]]),
            feature(["id": "g_stairs0"], "Polygon", [square(lon0 + 0.0005, lat0 + 0.0002, 0.0001)]),
            feature(["id": "g_lift0"], "Point", [lon0 + 0.00065, lat0 + 0.00025]),
            feature(["id": "g_kiosk"], "Polygon", [square(lon0 + 0.00045, lat0 + 0.00012, 0.00003)]),
        ]), dir, "geometry/f_ground.geojson")
        try write(collection([
            feature(["id": "g_lounge"], "Polygon", [square(lon0 + 0.0001, lat0 + 0.0001, 0.0003)]),
            feature(["id": "g_stairs1"], "Polygon", [square(lon0 + 0.0005, lat0 + 0.0002, 0.0001)]),
        ]), dir, "geometry/f_upper.geojson")
        try write(["g_bakery": "room", "g_hall": "hallway", "g_wall": "wall", "g_stairs0": "room", "g_kiosk": "object"],
                  dir, "kinds/f_ground.json")
        try write(["g_lounge": "room", "g_stairs1": "room"], dir, "kinds/f_upper.json")
        try write([
            ["id": "c_stairs", "type": "stairs", "entryCost": 1, "floorCostMultiplier": 1,
             "entrances": [["floorId": "f_ground", "geometryId": "g_stairs0", "flags": []]],
             "exits": [["floorId": "f_upper", "geometryId": "g_stairs1", "flags": []]]],
            ["id": "c_door", "type": "door", "entryCost": 0, "floorCostMultiplier": 1,
             "entrances": [["floorId": "f_ground", "geometryId": "g_door", "flags": []]], "exits": []],
            ["id": "c_lift", "type": "elevator", "entryCost": 5, "floorCostMultiplier": 1,
             "entrances": [["floorId": "f_ground", "geometryId": "g_lift0", "flags": []]], "exits": []],
        ], dir, "connections.json")
        try write([["id": "loc_bakery", "details": ["name": "Harbour Bakery"],
                    "geometryAnchors": [["floorId": "f_ground", "geometryId": "g_bakery"]]]], dir, "locations.json")
        try write(["rooms-red": ["color": "#CC3322", "opacity": 0.5, "height": 4.5, "altitude": 0, "buffer": 0,
                                 "geometryAnchors": [["floorId": "f_ground", "geometryId": "g_bakery"]]],
                   "hidden-kiosk": ["color": "#000000", "opacity": 1, "height": 1, "altitude": 0, "buffer": 0, "hidden": true,
                                    "geometryAnchors": [["floorId": "f_ground", "geometryId": "g_kiosk"]]]],
                  dir, "default-style.json")
    }

    /// An MVF v2 bundle; `oldNames` writes the pre-October-2024 names (`map.geojson`, `mapstack.geojson`).
    public static func writeV2(to dir: URL, oldNames: Bool = false) throws {
        try write(manifest, dir, "manifest.geojson")
        let floors = [
            feature(["id": "m_upper", "name": "Upper Deck", "shortName": "U", "elevation": 1], "Polygon", [square(lon0, lat0, 0.0008, 0.0004)]),
            feature(["id": "m_ground", "name": "Ground", "shortName": "G", "elevation": 0], "Polygon", [square(lon0, lat0, 0.0008, 0.0004)]),
        ]
        try write(collection(floors), dir, oldNames ? "map.geojson" : "floor.geojson")
        if oldNames {
            try write(collection([feature(["id": "ms_hall", "name": "Harbour Hall", "maps": ["m_ground", "m_upper"]], "Point", [lon0, lat0])]),
                      dir, "mapstack.geojson")
        } else {
            try write([["id": "fs_hall", "name": "Harbour Hall", "floors": ["m_ground", "m_upper"]]], dir, "floorstack.json")
        }
        try write(collection([
            feature(["id": "s_bakery", "externalId": "B-1", "kind": "space", "details": ["name": "Harbour Bakery"]], "Polygon",
                    [square(lon0 + 0.0001, lat0 + 0.0001, 0.0002)]),
            feature(["id": "s_hall", "externalId": "H-1", "kind": "hallway"], "Polygon", [square(lon0 + 0.0003, lat0 + 0.0001, 0.0004, 0.0001)]),
        ]), dir, "space/m_ground.geojson")
        try write(collection([
            feature(["id": "s_lounge", "kind": "space", "details": ["name": "Lounge"]], "Polygon", [square(lon0 + 0.0001, lat0 + 0.0001, 0.0003)]),
        ]), dir, "space/m_upper.geojson")
        try write(collection([
            feature(["id": "o_wall", "kind": "wall"], "LineString", [[lon0 + 0.0003, lat0 + 0.0001], [lon0 + 0.0003, lat0 + 0.0003]]),
            feature(["id": "o_desk", "kind": "desk"], "Polygon", [square(lon0 + 0.00045, lat0 + 0.00012, 0.00003)]),
        ]), dir, "obstruction/m_ground.geojson")
        try write(collection([
            feature(["id": "e_door", "externalId": "D-1"], "LineString", [[lon0 + 0.0003, lat0 + 0.00015], [lon0 + 0.0003, lat0 + 0.00018]]),
        ]), dir, "entrance/m_ground.geojson")
        try write([["id": "c_stairs", "type": "stairs", "nodes": ["n_s0", "n_s1"], "externalId": "ST-1"]], dir, "connection.json")
        try write(collection([feature(["id": "n_s0"], "Point", [lon0 + 0.00055, lat0 + 0.00025])]), dir, "node/m_ground.geojson")
        try write(collection([feature(["id": "n_s1"], "Point", [lon0 + 0.00055, lat0 + 0.00025])]), dir, "node/m_upper.geojson")
        try write(["Bakeries": ["color": "#CC3322", "opacity": 0.5, "height": 4.5, "polygons": ["s_bakery"]]], dir, "styles.json")
    }
}
