import Drawing
import Foundation
import Pipeline
import Rendering
import Styling
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

/// Labels and icons: placement rules, seams at tile edges, and retina tiles.
final class LabelTests: XCTestCase {
    func fixtureVenue() throws -> PreparedVenue {
        var r = IMDFReader()
        return Prepare.run(sourceID: "h", venue: try r.read(path: PlanTests.fixture), style: Style.builtIn)
    }

    /// Straight RGBA of a premultiplied ARGB32 pixel.
    func rgba(_ p: UInt32) -> [Int] {
        let a = Int(p >> 24)
        guard a > 0 else { return [0, 0, 0, 0] }
        func un(_ c: UInt32) -> Int { Int((Double(c & 0xFF) * 255 / Double(a)).rounded()) }
        return [un(p >> 16), un(p >> 8), un(p), a]
    }

    func testPlacedLabelsFitTheirUnitAndNeverOverlap() throws {
        let v = try fixtureVenue()
        var placedAtAll = 0
        for floor in v.floors where !floor.labels.isEmpty {
            for z in 17...23 {
                let items = LabelPlacement.place(floor.labels, icons: floor.icons, style: floor.labelStyle, zoom: z)
                let boxes = items.filter { $0.label != nil || $0.icon != nil }.map(\.geometry.bounds)
                placedAtAll += items.filter { $0.label != nil }.count
                for i in boxes.indices {
                    for j in boxes.indices where j > i {
                        XCTAssertFalse(boxes[i].intersects(boxes[j]), "\(floor.id) z\(z): boxes \(i) and \(j) overlap")
                    }
                }
                for item in items where item.label != nil {
                    let c = try XCTUnwrap(floor.labels.first { $0.anchor == item.label!.anchor })
                    let b = item.geometry.bounds
                    for corner in [MercatorPoint(x: b.minX, y: b.minY), MercatorPoint(x: b.maxX, y: b.maxY)] {
                        XCTAssertTrue(Planar.contains(rings: c.rings, corner), "\(c.featureID) z\(z): label box leaves its unit")
                    }
                }
            }
        }
        XCTAssertGreaterThan(placedAtAll, 20)
        // Units are too small for their names at z17; at z21 most names fit.
        func count(_ z: Int) -> Int { v.floors.reduce(0) { $0 + LabelPlacement.place($1.labels, style: $1.labelStyle, zoom: z).count } }
        XCTAssertLessThan(count(17), count(21))
    }

    func testBackgroundFillsEveryTileButMakesNone() throws {
        var r = IMDFReader()
        let venue = try r.read(path: PlanTests.fixture)
        let doc = Style.defaultJSON.replacingOccurrences(of: #"{"layer-id": "background", "hidden": true}"#,
                                                         with: ##"{"layer-id": "background", "fill-color": "#102030"}"##)
        XCTAssertNotEqual(doc, Style.defaultJSON)
        let withBG = Prepare.run(sourceID: "h", venue: venue, style: try Style.parse(Data(doc.utf8), source: "bg.json")).floors[1]
        let plain = Prepare.run(sourceID: "h", venue: venue, style: Style.builtIn).floors[1]
        let a = Plan.run(floor: withBG, zoom: 21), b = Plan.run(floor: plain, zoom: 21)
        XCTAssertEqual(a.tiles, b.tiles, "the background must not make tiles exist")
        XCTAssertTrue(a.items.allSatisfy { $0.first == 0 })
        let renderer = try TileRenderer(scale: 1)
        try renderer.draw(tile: a.tiles[0], items: withBG.items, indices: a.items[0])
        XCTAssertEqual(rgba(renderer.pixels.pixel(x: 0, y: 0)), [0x10, 0x20, 0x30, 255])
        // Building names are label candidates ranked below units.
        XCTAssertTrue(plain.labels.contains { $0.rank == 1 })
    }

    /// Metatiles: a tile drawn with its whole block, with any subset of it, or on
    /// its own looks the same (exactly the same bytes within one mode; within a
    /// few antialiasing steps across modes), so there are no seams.
    func testMetatilesMatchTilesDrawnAlone() throws {
        let v = try fixtureVenue()
        let (items, plans) = Plan.raster(floor: v.floors[1], zooms: [21])
        let plan = plans[0]
        let span = 8
        let origin = TileID(z: 21, x: plan.tiles[0].x / span * span, y: plan.tiles[0].y / span * span)
        let inBlock = plan.tiles.indices.filter { let t = plan.tiles[$0]; return t.x / span * span == origin.x && t.y / span * span == origin.y }
        XCTAssertGreaterThan(inBlock.count, 4)
        let r = try TileRenderer(scale: 1, sprite: .builtIn(pixelRatio: 1))
        func union(_ idx: [Int]) -> [Int32] { Set(idx.flatMap { plan.items[$0] }).sorted() }
        let frame = inBlock.map { plan.tiles[$0] }
        let whole = try r.render(metatile: origin, span: span, tiles: frame, frame: frame, items: items, itemsOfTile: inBlock.map { _ in union(inBlock) })
        // Every other tile of the block in the block: the same bytes as with the whole block.
        let some = inBlock.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        let part = try r.render(metatile: origin, span: span, tiles: some.map { plan.tiles[$0] }, frame: frame, items: items, itemsOfTile: some.map { _ in union(some) })
        for (k, i) in some.enumerated() { XCTAssertEqual(part[k], whole[inBlock.firstIndex(of: i)!], "tile \(plan.tiles[i])") }
        // Each row drawing only its own tiles' items (as the build does): the same bytes.
        let byRow = try r.render(metatile: origin, span: span, tiles: frame, frame: frame, items: items,
                                 itemsOfTile: inBlock.map { plan.items[$0] })
        XCTAssertEqual(byRow, whole, "rows drawn with their tiles' items only")
        // Each tile on its own in the block (an incremental build re-rendering one tile): the same bytes too.
        for (k, i) in inBlock.enumerated() {
            let one = try r.render(metatile: origin, span: span, tiles: [plan.tiles[i]], frame: frame, items: items, itemsOfTile: [union([i])])
            XCTAssertEqual(one[0], whole[k], "tile \(plan.tiles[i]) rendered alone in its metatile")
        }
        // Tile by tile: the same picture within a few antialiasing steps.
        for (k, i) in inBlock.enumerated() {
            let alone = try r.render(tile: plan.tiles[i], items: items, indices: plan.items[i])
            guard case .png(let a) = alone, case .png(let b) = whole[k] else {
                XCTAssertEqual(alone, whole[k]); continue
            }
            let pa = try ImageSurface.decodePNG(a), pb = try ImageSurface.decodePNG(b)
            var worst = 0, differing = 0
            for y in 0..<256 {
                for x in 0..<256 {
                    let d = zip(rgba(pa.pixel(x: x, y: y)), rgba(pb.pixel(x: x, y: y))).map { abs($0 - $1) }.max()!
                    worst = max(worst, d)
                    if d > 0 { differing += 1 }
                }
            }
            XCTAssertLessThanOrEqual(worst, 8, "tile \(plan.tiles[i])")
            XCTAssertLessThan(differing, 64, "tile \(plan.tiles[i])")
        }
    }

    func testLayoutWrapsAtMaxTextWidth() throws {
        let m = try TextMeasurer()
        var style = LabelStyle()
        style.maxWidth = 60
        let l = m.layout("Harbour Pharmacy and Optician", style: style)
        XCTAssertGreaterThan(l.lines.count, 1)
        for (line, w) in zip(l.lines, l.lineWidths) where line.contains(" ") { XCTAssertLessThanOrEqual(w, 60, line) }
        XCTAssertEqual(l.lines.joined(separator: " "), "Harbour Pharmacy and Optician")
        let one = m.layout("Supercalifragilistic", style: style)
        XCTAssertEqual(one.lines, ["Supercalifragilistic"], "a long word keeps its own line")
        XCTAssertGreaterThan(l.lineHeight, 10)
        XCTAssertEqual(m.family("DejaVu Sans"), "DejaVu Sans")
    }

    /// A unit spanning two tiles with its label right on their shared edge: both
    /// tiles list the label, and the two tiles side by side show exactly the
    /// label drawn whole (the same label, shifted by a whole number of pixels
    /// to lie inside one tile).
    func testLabelOnATileEdgeIsDrawnWholeOnBothSides() throws {
        let z = 20
        let left = TileID(z: z, x: 553_418, y: 338_942), right = TileID(z: z, x: 553_419, y: 338_942)
        let lb = left.bounds, rb = right.bounds
        let k = (lb.maxX - lb.minX) / 256
        // A unit larger than both tiles: a uniform background under the label.
        let unit = [MercatorPoint(x: lb.minX - 50 * k, y: lb.minY - 50 * k), MercatorPoint(x: rb.maxX + 50 * k, y: lb.minY - 50 * k),
                    MercatorPoint(x: rb.maxX + 50 * k, y: lb.maxY + 50 * k), MercatorPoint(x: lb.minX - 50 * k, y: lb.maxY + 50 * k)]
        let rings = [unit + [unit[0]]]
        let room = DrawItem(geometry: .polygons([rings]), paint: Paint(fill: Color(hex: "#FBE5C4")!))
        let anchor = MercatorPoint(x: lb.maxX, y: (lb.minY + lb.maxY) / 2)
        var style = LabelStyle()
        style.fontSize = 20
        style.maxWidth = 400
        let layout = try TextMeasurer().layout("Seamless Label", style: style)
        XCTAssertGreaterThan(layout.width, 100)
        let floor = PreparedFloor(floor: Floor(ordinal: 0, levels: []), items: [room], featureIDs: ["room"],
                                  labels: [LabelCandidate(featureID: "room", layout: layout, anchor: anchor, rings: rings, area: 1)],
                                  labelStyle: style)
        let (items, plans) = Plan.raster(floor: floor, zooms: [z])
        let plan = plans[0]
        let labelIndex = Int32(try XCTUnwrap(items.firstIndex { $0.label != nil }))
        let r = try TileRenderer(scale: 1)
        func pixels(_ t: TileID, _ items: [DrawItem], _ indices: [Int32]) throws -> [[Int]] {
            try r.draw(tile: t, items: items, indices: indices)
            return (0..<256).map { y in (0..<256).map { x in r.pixels.pixel(x: x, y: y) } }.map { $0.map(Int.init) }
        }
        var sides = [[[Int]]]()
        for t in [left, right] {
            let i = try XCTUnwrap(plan.tiles.firstIndex(of: t))
            XCTAssertTrue(plan.items[i].contains(labelIndex), "\(t) does not list the label")
            sides.append(try pixels(t, items, Array(plan.items[i])))
        }
        // The reference: the same label, 128 px to the left, wholly inside the left tile.
        var shifted = items[Int(labelIndex)]
        shifted.label!.anchor.x -= 128 * k
        let reference = try pixels(left, [room, shifted], [0, 1])
        var differing = 0
        for y in 0..<256 {
            for x in 0..<256 {
                let sx = x + 128
                let seamPixel = sx < 256 ? sides[0][y][sx] : sides[1][y][sx - 256]
                if seamPixel != reference[y][x] { differing += 1 }
            }
        }
        XCTAssertEqual(differing, 0, "the label across the seam differs from the label drawn whole in \(differing) pixels")
        XCTAssertNotEqual(Set(reference[128]).count, 1, "the reference row shows text")
    }

    /// A 512 px tile averaged down 2×2 looks like the 256 px tile of the same place.
    func testRetinaTilesMatchWhenDownscaled() throws {
        let v = try fixtureVenue()
        let floor = v.floors[1]
        let (items, plans) = Plan.raster(floor: floor, zooms: [20])
        let one = try TileRenderer(scale: 1, sprite: .builtIn(pixelRatio: 1))
        let two = try TileRenderer(scale: 2, sprite: .builtIn(pixelRatio: 2))
        var checked = 0
        for (i, t) in plans[0].tiles.enumerated() {
            try one.draw(tile: t, items: items, indices: plans[0].items[i])
            try two.draw(tile: t, items: items, indices: plans[0].items[i])
            var total = 0.0
            for y in 0..<256 {
                for x in 0..<256 {
                    let p = rgba(one.pixels.pixel(x: x, y: y))
                    var avg = [0, 0, 0, 0]
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let q = rgba(two.pixels.pixel(x: 2 * x + dx, y: 2 * y + dy))
                        for c in 0..<4 { avg[c] += q[c] }
                    }
                    for c in 0..<4 { total += Double(abs(p[c] - avg[c] / 4)) }
                }
            }
            let mean = total / Double(256 * 256 * 4)
            XCTAssertLessThan(mean, 4, "tile \(t): mean channel difference \(mean)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }

    func testIconsAndPatternsAreDrawnFromTheSprite() throws {
        let t = TileID(z: 21, x: 1_106_838, y: 677_884)
        let b = t.bounds
        let k = (b.maxX - b.minX) / 256
        let centre = MercatorPoint(x: b.minX + 100 * k, y: b.maxY - 100 * k)
        let icon = DrawItem(geometry: .points([centre]), paint: Paint(), icon: IconDraw(anchor: centre, name: "poi"))
        let r = try TileRenderer(scale: 1, sprite: .builtIn(pixelRatio: 1))
        try r.draw(tile: t, items: [icon], indices: [0])
        XCTAssertEqual(rgba(r.pixels.pixel(x: 100, y: 100)), [255, 255, 255, 255], "white dot in the middle of the poi icon")
        let rim = rgba(r.pixels.pixel(x: 92, y: 100))
        XCTAssertEqual(rim[3], 255)
        XCTAssertLessThan(abs(rim[0] - 96) + abs(rim[1] - 104) + abs(rim[2] - 112), 12, "grey icon body, got \(rim)")

        // A hatch pattern runs on across tiles: world pixel X and X + period agree, also across the seam.
        let right = TileID(z: 21, x: t.x + 1, y: t.y)
        let whole = [MercatorPoint(x: b.minX, y: b.minY), MercatorPoint(x: right.bounds.maxX, y: b.minY),
                     MercatorPoint(x: right.bounds.maxX, y: b.maxY), MercatorPoint(x: b.minX, y: b.maxY), MercatorPoint(x: b.minX, y: b.minY)]
        let hatched = DrawItem(geometry: .polygons([[whole]]), paint: Paint(fill: Color(hex: "#E2DFD9")!, pattern: "hatch"))
        let period = Sprite.builtIn(pixelRatio: 1).images["hatch"]!.width
        try r.draw(tile: t, items: [hatched], indices: [0])
        let a = (0..<256).map { y in (0..<256).map { rgba(r.pixels.pixel(x: $0, y: y)) } }
        try r.draw(tile: right, items: [hatched], indices: [0])
        let c = (0..<256).map { y in (0..<256).map { rgba(r.pixels.pixel(x: $0, y: y)) } }
        XCTAssertGreaterThan(Set(a[100].map { $0[0] }).count, 1, "the pattern shows")
        for y in stride(from: 10, to: 250, by: 37) {
            XCTAssertEqual(a[y][100], a[y][100 + period])
            XCTAssertEqual(a[y][256 - period + 3], c[y][3], "pattern breaks at the tile edge (row \(y))")
        }
    }
}
