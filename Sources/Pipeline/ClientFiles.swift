import Archives
import Clients
import Crypto
import Foundation
import Styling

extension Builder {
    /// A font the style names that is not installed: raster labels would fall back without a word.
    func fontWarnings(_ style: Style, _ fonts: FontCatalog) -> [String] {
        var users = [String: [String]](), warnings = [String]()
        for (id, l) in style.layers { if let n = l.fontName { users[n, default: []].append(id) } }
        for (name, ids) in users.sorted(by: { $0.key < $1.key }) where fonts[name] == nil {
            warnings.append("\(style.id): \"font-name\": \"\(name)\" (\(ids.sorted().joined(separator: ", "))) is not an installed font (family, or family and face such as \"DejaVu Sans Bold\"); labels use fontconfig's fallback")
        }
        return warnings
    }

    /// The files web clients use for one venue (see `VenueClientFiles`):
    /// MapLibre styles, sprite, glyphs, floors.json and the preview page. Made
    /// from the prepared venue and its venue-wide vector pyramid (for the label
    /// texts the glyphs must cover); paths are relative to the output folder.
    /// Every venue has its own copy of the vendored MapLibre files (about 1 MB)
    /// and usually the same glyph ranges: held until the commit, each content
    /// is kept once (`interned`), however many venues have it.
    func clientFiles(_ v: PreparedVenue, _ pyramids: [Pyramid], style: Style, sprites: (one: Sprite, two: Sprite), fonts: FontCatalog,
                     interned: inout [Digest32: Data]) throws -> (files: [(path: String, data: Data)], warnings: [String]) {
        let out = try VenueClientFiles.make(clientVenue(v, labels: labelTexts(pyramids, venue: 0)), style: style, sprites: sprites, fonts: fonts)
        let files = out.files.map { f -> (path: String, data: Data) in
            let d = Digest32.sha256(f.data)
            if interned[d] == nil { interned[d] = f.data }
            return (f.path, interned[d]!)
        }
        return (files, out.warnings)
    }

    func clientVenue(_ v: PreparedVenue, labels: [String]) -> ClientVenue {
        let lang = v.venue.language
        let b = v.bounds, c = v.venue.displayPoint ?? b.center
        let specIDs = v.buildingSpecIDs
        var buildingNames = [String: String]()
        for b in v.venue.buildings { if let n = b.name.text(preferring: lang) { buildingNames[b.id] = n } }
        // Every floor of both kinds: a building floor carries its building (the venue-wide
        // vector pyramid shows it filtered by `building_id`, its raster pyramid is its own).
        let floors = v.floors.map { f in
            ClientVenue.Floor(id: f.id, ordinal: f.floor.ordinal, shortName: f.floor.shortName(language: lang),
                              name: f.floor.levels.lazy.compactMap { $0.name.text(preferring: lang) }.first,
                              building: f.floor.buildingID.map { ClientVenue.Building(id: specIDs[$0] ?? $0, sourceID: $0, name: buildingNames[$0]) })
        }
        var seen = Set<String>()
        let tilesets = config.tilesets.compactMap { ts -> ClientVenue.Tileset? in
            guard seen.insert(ts.directoryName).inserted else { return nil }
            var c = ClientVenue.Tileset(format: ts.format == .png ? .png : .mvt, directory: ts.directoryName,
                                        tileSize: ts.format == .png ? ts.tileSize : 512)
            if ts.pathTemplate != TilePathTemplate.presets["xyz"]! {
                // Paths relative to the venue folder, where the client files are.
                let t = try! TilePathTemplate(ts.pathTemplate)   // checked when the config was read
                func relative(_ p: String) -> String { p.hasPrefix(v.sourceID + "/") ? String(p.dropFirst(v.sourceID.count + 1)) : "../" + p }
                var pyramids: [(id: String, ordinal: Int?)] = v.floors.map { ($0.id, $0.floor.ordinal) }
                if ts.format == .mvt { pyramids.append(("all", nil)) }
                for (id, ordinal) in pyramids {
                    c.tiles[id] = relative(t.urlTemplate(venue: v.sourceID, floor: id, ordinal: ordinal, format: ts.format.rawValue, scale: ts.scale))
                    c.folders[id] = relative(t.pyramidFolder(venue: v.sourceID, floor: id, ordinal: ordinal, format: ts.format.rawValue, scale: ts.scale))
                }
                c.scheme = t.isTMS ? "tms" : "xyz"
            }
            return c
        }
        var client = ClientVenue(id: v.sourceID, name: v.venue.name.text(preferring: lang) ?? v.sourceID,
                                 bounds: [b.west, b.south, b.east, b.north], center: [c.lon, c.lat],
                                 minZoom: config.minZoom, maxZoom: config.maxZoom, floors: floors, tilesets: tilesets,
                                 baseURL: config.baseURL, labelTexts: labels)
        client.attribution = attribution(v.sourceID)
        return client
    }

    /// The `name` of every feature the MapLibre style labels (unit and building
    /// label points; building outlines' names too) in the venue-wide vector pyramid.
    func labelTexts(_ pyramids: [Pyramid], venue: Int) -> [String] {
        var out = Set<String>()
        for p in pyramids where p.venue == venue && p.floor == nil {
            guard case .vector(let items, _) = p.content else { continue }
            for item in items where ["floor_labels", "building_labels", "building_outlines"].contains(item.venueLayer) {
                for (k, value) in item.properties where k == "name" {
                    if case .string(let s) = value { out.insert(s) }
                }
            }
        }
        return out.sorted()
    }
}
