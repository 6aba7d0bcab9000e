import Archives
import Clients
import Foundation
import VenueModel

extension Builder {
    /// The TileJSON 3.0.0 document of a pyramid.
    func tileJSON(_ p: Pyramid, _ v: PreparedVenue, legend: [FloorsIndex.LegendEntry]) -> TileJSON {
        let ts = config.tilesets[p.tileset]
        let b = p.extent ?? v.bounds
        let c = TileJSONExtent.center(v.venue.displayPoint, in: b)
        let floorName: String = p.name == "all" ? "all floors" :
            (v.floors.first { $0.id == p.name }.flatMap { $0.floor.shortName(language: v.venue.language) } ?? p.name)
        // Described from its items while they were at hand (`Pyramid.hollowed`).
        let layers = p.vectorLayers
        var tj = TileJSON(name: "\(v.venue.name.text(preferring: v.venue.language) ?? v.sourceID) — \(floorName)",
                        description: "\(Generator.name) \(ts.format.rawValue) tiles of \(v.sourceID), \(p.name)",
                        tiles: [tileURL(p, v).url],
                        minzoom: config.minZoom, maxzoom: config.maxZoom, bounds: [b.west, b.south, b.east, b.north],
                        center: [c.lon, c.lat, Double(config.minZoom)], vector_layers: layers,
                        format: ts.fileExtension, tile_size: ts.format == .png ? ts.tileSize : nil)
        tj.scheme = tileURL(p, v).scheme
        tj.legend = legend
        tj.attribution = attribution(v.sourceID)
        return tj
    }

    func venueEntries(_ venues: [PreparedVenue], _ loaded: [Load.Loaded], _ pyramids: [Pyramid], _ zooms: [Int],
                      _ counts: [Int], _ bytes: [Int], _ blanks: [Int], _ perZoom: [[Int]],
                      _ tilejsonPaths: [Int: [String]], _ meshes: [Int: Manifest.MeshEntry]) -> [Manifest.VenueEntry] {
        var out = [Manifest.VenueEntry]()
        for (vi, v) in venues.enumerated() {
            let lang = v.venue.language
            let b = v.bounds
            let floors = v.floors.map { f in
                var e = Manifest.FloorEntry(id: f.id, ordinal: f.floor.ordinal, position: f.floor.fraction == 0 ? nil : f.floor.position,
                                    short_name: f.floor.shortName(language: lang),
                                    levels: f.floor.levels.map {
                                        Manifest.LevelEntry(id: $0.id, name: $0.name.text(preferring: lang),
                                                            short_name: $0.shortName.text(preferring: lang),
                                                            building_ids: $0.buildingIDs, outdoor: $0.outdoor)
                                    })
                e.building = f.floor.building.map { "building_\($0)" }
                e.building_id = f.floor.buildingID
                return e
            }
            let built = Set(pyramids.filter { $0.venue == vi }.map(\.name))
            let layers = v.overlays.filter { built.contains($0.id) }.map { o -> Manifest.LayerEntry in
                switch o.kind {
                case .floor: return Manifest.LayerEntry(id: o.id, kind: "floor")
                case .outdoors: return Manifest.LayerEntry(id: o.id, kind: "outdoors")
                case .buildingOutlines(let b): return Manifest.LayerEntry(id: o.id, kind: "building_outlines", building: b)
                case .shadows(let f): return Manifest.LayerEntry(id: o.id, kind: "floor_shadows", floor: f)
                }
            }
            var tilesets = [Manifest.TilesetEntry]()
            for (ti, ts) in config.tilesets.enumerated() {
                let mine = pyramids.indices.filter { pyramids[$0].venue == vi && pyramids[$0].tileset == ti }
                var perFloor = [String: [String: Int]]()
                for pi in mine {
                    for (zi, z) in zooms.enumerated() where perZoom[pi][zi] > 0 { perFloor[pyramids[pi].name, default: [:]]["\(z)"] = perZoom[pi][zi] }
                }
                let raster = ts.format == .png
                tilesets.append(Manifest.TilesetEntry(
                    format: ts.format.rawValue, scale: raster ? ts.scale : nil, tile_size: raster ? ts.tileSize : nil,
                    extent: raster ? nil : ts.extent, buffer: raster ? nil : ts.buffer,
                    content_encoding: raster ? nil : (ts.gzip ? "gzip" : "identity"),
                    minzoom: config.minZoom, maxzoom: config.maxZoom,
                    path_template: (try! TilePathTemplate(ts.pathTemplate)).tilesetTemplate(venue: v.sourceID, format: ts.format.rawValue, scale: ts.scale),
                    tile_count: mine.reduce(0) { $0 + counts[$1] }, total_bytes: mine.reduce(0) { $0 + bytes[$1] },
                    tiles_per_floor: perFloor, blank_tiles_skipped: mine.reduce(0) { $0 + blanks[$1] },
                    tilejson: tilejsonPaths[vi * 1000 + ti] ?? []))
            }
            let center = v.venue.displayPoint ?? b.center
            let warnings = loaded[vi].diagnostics.filter { $0.kind == .warning }.count
            out.append(Manifest.VenueEntry(id: v.venue.id, source_id: v.sourceID, name: v.venue.name.text(preferring: lang),
                                           center: [center.lon, center.lat], bounds: [b.west, b.south, b.east, b.north],
                                           floors: floors, layers: layers.isEmpty ? nil : layers, tilesets: tilesets, warnings: warnings,
                                           attribution: attribution(v.sourceID), mesh: meshes[vi]))
        }
        return out
    }

    /// The attribution of the source a venue was read from.
    func attribution(_ sourceID: String) -> String? {
        config.sources.first { $0.id == sourceID }?.effectiveAttribution
    }
}
