import Drawing
import Foundation
import Pipeline
import Rendering
import Styling
import TestSupport
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

/// Issue 17 item 2: no label, icon or dot is cut where the produced tiles of a
/// floor end. Every planned tile of a floor and zoom is drawn (as the build
/// does; a tile that draws nothing is not written), and for every placed box
/// each tile it reaches that was not written is drawn again with that box
/// alone: it must show nothing of it.
final class LabelEdgeTests: XCTestCase {
    static var sharedVenues: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/venues")
    }

    /// Descriptions of the placed boxes some of whose ink falls in a tile that is not produced.
    /// `floorTilesOnly`: as the plan was before the fix, only the tiles the
    /// floor's own items reach (to show the check finds what it should).
    func cutBoxes(_ floor: PreparedFloor, zoom z: Int, renderer r: TileRenderer, floorTilesOnly: Bool = false) throws -> (cut: [String], placed: Int) {
        var (labels, plan) = Plan.raster(floor: floor, zoom: z)
        if floorTilesOnly {
            let own = Set(Plan.run(floor: floor, zoom: z).tiles)
            let keep = plan.tiles.indices.filter { own.contains(plan.tiles[$0]) }
            plan.tiles = plan.tiles.selecting(keep)
            plan.items = plan.items.selecting(keep)
        }
        let items = floor.items + labels
        var written = Set<TileID>()
        for (i, t) in plan.tiles.enumerated() where try r.render(tile: t, items: items, indices: plan.items[i]) != .transparent {
            written.insert(t)
        }
        var cut = [String]()
        for j in floor.items.count..<items.count {
            let item = items[j]
            let what = item.label.map { "label \"\($0.layout.lines.joined(separator: " "))\"" }
                ?? item.icon.map { "icon \($0.name)" } ?? "dot"
            TileCoverage.tiles(of: item.geometry, zoom: z, pad: DrawMetrics.pad(for: item.geometry, zoom: z)) { t in
                guard !written.contains(t) else { return }
                if (try? r.render(tile: t, items: items, indices: [Int32(j)])) != .transparent {
                    cut.append("\(floor.id) z\(z): \(what) is cut at the edge of tile \(t), which is not produced")
                }
            }
        }
        return (cut, items.count - floor.items.count)
    }

    func assertNothingCut(_ v: PreparedVenue, zooms: ClosedRange<Int>, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try TileRenderer(scale: 1, sprite: .builtIn(pixelRatio: 1))
        var placed = 0
        for floor in v.floors {
            for z in zooms {
                let (cut, n) = try cutBoxes(floor, zoom: z, renderer: r)
                placed += n
                XCTAssertEqual(cut, [], file: file, line: line)
            }
        }
        XCTAssertGreaterThan(placed, 0, "nothing placed: the check checked nothing", file: file, line: line)
    }

    func testSampleLabelsAndIconsAreNeverCut() throws {
        var reader = IMDFReader()
        let v = Prepare.run(sourceID: "h", venue: try reader.read(path: PlanTests.fixture), style: Style.builtIn)
        // (Its six cut boxes of before, "East Pavilion" on floors without that
        // building, went with issue 17 item 3; the fixture below shows that the check sees a cut.)
        try assertNothingCut(v, zooms: 17...21)
    }

    func testRealVenuesLabelsAndIconsAreNeverCut() throws {
        let yyj = Self.sharedVenues.appendingPathComponent("yyj-victoria-airport-imdf/VictoriaAirport_IMDF")
        let caserne = Self.sharedVenues.appendingPathComponent("caserne-de-bonne-geojson/caserne.geojson")
        try ExternalTools.skipUnless(FileManager.default.fileExists(atPath: yyj.path) && FileManager.default.fileExists(atPath: caserne.path),
                                     needs: "../shared/venues beside the clone")
        var imdf = IMDFReader()
        try assertNothingCut(Prepare.run(sourceID: "yyj", venue: try imdf.read(path: yyj.path), style: Style.builtIn), zooms: 17...20)
        var osm = IndoorGeoJSONReader()
        try assertNothingCut(Prepare.run(sourceID: "caserne", venue: try osm.read(path: caserne.path, venueID: "caserne"), style: Style.builtIn),
                             zooms: 17...20)
    }

    /// The fixture of the issue: a room whose east wall is 4 px from a tile edge, with a
    /// name anchored near that wall, an amenity icon 4 px from it, and a
    /// building label on a footprint the floor does not draw (the default
    /// style hides building outlines). Before the fix the icon and the
    /// building label were drawn in the tile of their anchor and cut at the
    /// edge of the produced tiles.
    func testLabelAnchoredNearTheEdgeOfTheProducedTiles() throws {
        let z = 20
        let t = TileID(z: z, x: 553_418, y: 338_942)
        let b = t.bounds
        let k = (b.maxX - b.minX) / 256
        func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [[MercatorPoint]] {
            // Pixel coordinates in tile t, y down.
            let p = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)].map { MercatorPoint(x: b.minX + $0.0 * k, y: b.maxY - $0.1 * k) }
            return [p]
        }
        let wall = 252.0
        let roomRings = rect(20, 20, wall, 236)
        let room = DrawItem(geometry: .polygons([roomRings]), paint: Paint(fill: Color(hex: "#FBE5C4")!, outline: Color(hex: "#D2AE7C")!))
        let measurer = try TextMeasurer()
        let style = LabelStyle.resolve(Style.builtIn)!
        let layout = measurer.layout("Gull Toys", style: style)
        // The name's box touches the east wall at 2 px of clearance.
        let nameAnchor = MercatorPoint(x: b.minX + (wall - layout.width / 2 - style.haloWidth - LabelPlacement.marginPx - 0.5) * k,
                                       y: b.maxY - 60 * k)
        let iconAt = MercatorPoint(x: b.minX + (wall - 4) * k, y: b.maxY - 200 * k)
        let sprite = Sprite.builtIn(pixelRatio: 1)
        let (iconName, image) = try XCTUnwrap(sprite.image(forCategory: "drinkingwater"))
        let icon = IconCandidate(featureID: "water", anchor: iconAt, name: iconName, width: image.logicalWidth, height: image.logicalHeight,
                                 fallback: DrawItem(geometry: .points([iconAt]), paint: Paint(fill: Color(hex: "#3E7CC4")!)), tier: 1)
        let buildingStyle = LabelStyle.resolve(Style.builtIn, template: "building_labels_[BUILDING]", building: "b")!
        let footprint = rect(20, 20, 700, 236)
        let buildingLayout = measurer.layout("East Pavilion", style: buildingStyle)
        let buildingAnchor = MercatorPoint(x: b.maxX + 40 * k, y: b.maxY - 128 * k)
        let floor = PreparedFloor(floor: Floor(ordinal: 0, levels: []), items: [room], featureIDs: ["room"],
                                  labels: [LabelCandidate(featureID: "room", layout: layout, anchor: nameAnchor, rings: roomRings, area: 1),
                                           LabelCandidate(featureID: "b", layout: buildingLayout, anchor: buildingAnchor, rings: footprint,
                                                          area: 2, style: buildingStyle, rank: 1)],
                                  labelStyle: style, icons: [icon])
        let (labels, plan) = Plan.raster(floor: floor, zoom: z)
        XCTAssertEqual(labels.filter { $0.label != nil }.count, 2, "both names placed")
        XCTAssertEqual(labels.filter { $0.icon != nil }.count, 1, "the icon placed")
        // The room alone makes one tile; the icon and the building label reach the next one east.
        XCTAssertEqual(Array(Plan.run(floor: floor, zoom: z).tiles), [t])
        let east = TileID(z: z, x: t.x + 1, y: t.y)
        let i = try XCTUnwrap(plan.tiles.firstIndex(of: east), "the tile east of the room is produced")
        // It lists the labels that reach it, so its input key changes with them.
        let listed = plan.items[i].map { labels[Int($0) - floor.items.count] }
        XCTAssertTrue(listed.contains { $0.icon != nil } && listed.contains { $0.label?.layout == buildingLayout }, "\(plan.items[i])")
        let renderer = try TileRenderer(scale: 1, sprite: .builtIn(pixelRatio: 1))
        let (cut, _) = try cutBoxes(floor, zoom: z, renderer: renderer)
        XCTAssertEqual(cut, [])
        // With only the tiles the room's own drawing reaches, the icon and the building label are cut: the check sees it.
        XCTAssertGreaterThan(try cutBoxes(floor, zoom: z, renderer: renderer, floorTilesOnly: true).cut.count, 0)
    }
}
