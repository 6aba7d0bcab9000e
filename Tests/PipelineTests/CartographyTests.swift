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

/// Issue 17 item 10, placement: labels ranked by area and category, fewer
/// dots at low zoom, no stray dots for icons that lost their place, no dot
/// inside a label.
final class CartographyTests: XCTestCase {
    let origin = MercatorPoint(x: -13_725_000, y: 6_182_000)
    lazy var measurer = try! TextMeasurer()
    let style = LabelStyle.resolve(Style.builtIn)!

    func square(_ cx: Double, _ cy: Double, _ half: Double) -> [[MercatorPoint]] {
        let c = MercatorPoint(x: origin.x + cx, y: origin.y + cy)
        return [[MercatorPoint(x: c.x - half, y: c.y - half), MercatorPoint(x: c.x + half, y: c.y - half),
                 MercatorPoint(x: c.x + half, y: c.y + half), MercatorPoint(x: c.x - half, y: c.y + half),
                 MercatorPoint(x: c.x - half, y: c.y - half)]]
    }

    func amenity(_ id: String, _ dx: Double, _ dy: Double, category: String, icon: Bool = true) -> IconCandidate {
        let p = MercatorPoint(x: origin.x + dx, y: origin.y + dy)
        return IconCandidate(featureID: id, anchor: p, name: icon ? "poi" : nil, width: icon ? 24 : 0, height: icon ? 24 : 0,
                             fallback: DrawItem(geometry: .points([p]), paint: Paint(fill: Color(hex: "#3E7CC4")!)),
                             tier: Cartography.amenityTier(category))
    }

    func testAmenityTiers() {
        XCTAssertEqual(Cartography.amenityTier("restroom.female"), 0)
        XCTAssertEqual(Cartography.amenityTier("information"), 0)
        XCTAssertEqual(Cartography.amenityTier("information.mufid.departures"), 2, "departure screens are not the information desk")
        XCTAssertEqual(Cartography.amenityTier("checkin.selfservice"), 2)
        XCTAssertEqual(Cartography.amenityTier("checkin.desk"), 0)
        XCTAssertEqual(Cartography.amenityTier("atm"), 1)
        XCTAssertEqual(Cartography.amenityTier("vendingmachine"), 2)
        XCTAssertGreaterThan(Cartography.labelWeight(.room, category: "foodservice"), Cartography.labelWeight(.nonPublic, category: "storage"))
    }

    /// Two units whose label boxes would overlap: the room's name wins over a
    /// larger storage room's, where area alone would pick the storage.
    func testLabelsAreRankedByCategoryAndArea() {
        let shop = square(0, 0, 40), store = square(30, 0, 45)
        let a = MercatorPoint(x: origin.x + 10, y: origin.y), b = MercatorPoint(x: origin.x + 12, y: origin.y)
        let candidates = [
            LabelCandidate(featureID: "a-storage", layout: measurer.layout("Storage", style: style), anchor: b, rings: store,
                           area: 8100, weight: Cartography.labelWeight(.nonPublic, category: "storage")),
            LabelCandidate(featureID: "b-shop", layout: measurer.layout("Gull Toys", style: style), anchor: a, rings: shop,
                           area: 6400, weight: Cartography.labelWeight(.room, category: "room")),
        ]
        let placed = LabelPlacement.place(candidates, style: style, zoom: 20).compactMap(\.label)
        XCTAssertEqual(placed.map { $0.layout.lines.joined(separator: " ") }, ["Gull Toys"])
        // Equal weights: the larger unit wins, as before.
        var same = candidates
        same[0].weight = 2
        XCTAssertEqual(LabelPlacement.place(same, style: style, zoom: 20).compactMap(\.label).map { $0.layout.lines[0] }, ["Storage"])
    }

    /// Icons at the same spot: the most important is drawn, the others are
    /// left out entirely (no dot beside the icon).
    func testIconsThatLoseLeaveNoStrayDot() {
        let icons = [amenity("1-kiosk", 0, 0, category: "checkin.selfservice"), amenity("2-restroom", 0.1, 0.1, category: "restroom"),
                     amenity("3-atm", 0.2, 0, category: "atm")]
        for z in 19...23 {
            let out = LabelPlacement.place([], icons: icons, style: style, zoom: z)
            XCTAssertEqual(out.compactMap(\.icon).count, 1, "z\(z)")
            XCTAssertEqual(out.filter { $0.icon == nil && $0.label == nil }.count, 0, "z\(z): no stray dot")
            XCTAssertEqual(out.compactMap(\.icon).first?.anchor, icons[1].anchor, "z\(z): the restroom wins")
        }
    }

    /// A dot never lands inside a placed label; an amenity without a sprite
    /// image is a dot at every zoom, placed after the labels.
    func testDotsNeverSplitALabel() {
        let room = square(0, 0, 200)
        let text = measurer.layout("Main Terminal", style: style)
        let label = LabelCandidate(featureID: "t", layout: text, anchor: origin, rings: room, area: 160_000, weight: 2)
        // A dot between the two words, one beside the label, one far away.
        let icons = [amenity("gap", 0, 0, category: "restroom", icon: false),
                     amenity("far", 150, 150, category: "restroom", icon: false)]
        for z in 17...23 {
            let out = LabelPlacement.place([label], icons: icons, style: style, zoom: z)
            let boxes = out.filter { $0.label != nil }.map(\.geometry.bounds)
            let dots = out.filter { $0.label == nil && $0.icon == nil }
            if z >= 18 { XCTAssertEqual(boxes.count, 1, "z\(z): the label is placed") }
            for d in dots {
                guard case .points(let p) = d.geometry else { return XCTFail("a dot is a point") }
                let r = (DrawMetrics.dotRadiusPx + DrawMetrics.dotRingPx) * DrawMetrics.metresPerPixel(zoom: z)
                let dotBox = MercatorRect(minX: p[0].x - r, minY: p[0].y - r, maxX: p[0].x + r, maxY: p[0].y + r)
                XCTAssertFalse(boxes.contains { $0.intersects(dotBox) }, "z\(z): a dot inside the label")
            }
            if z >= 19 { XCTAssertEqual(dots.count, 1, "z\(z): the far dot stays") }
        }
    }

    /// Many amenities of every tier on a grid 6 m apart: z17 keeps only tier
    /// 0 and spaces them out, z18 more, z19 and up draw icons.
    func testFewerDotsAtLowZoom() {
        var icons = [IconCandidate]()
        let categories = ["restroom", "atm", "vendingmachine", "checkin.selfservice", "information", "payphone"]
        for i in 0..<12 { for j in 0..<12 { icons.append(amenity("a\(i)-\(j)", Double(i) * 6, Double(j) * 6, category: categories[(i + j) % 6])) } }
        func dots(_ z: Int) -> [IconCandidate] {
            let out = LabelPlacement.place([], icons: icons, style: style, zoom: z)
            let at = Set(out.filter { $0.icon == nil && $0.label == nil }.compactMap { item -> MercatorPoint? in
                if case .points(let p) = item.geometry { return p[0] }
                return nil
            }.map { "\($0.x),\($0.y)" })
            return icons.filter { at.contains("\($0.anchor.x),\($0.anchor.y)") }
        }
        let z17 = dots(17), z18 = dots(18)
        XCTAssertGreaterThan(z17.count, 0)
        XCTAssertTrue(z17.allSatisfy { $0.tier == 0 }, "z17 shows only the essentials")
        XCTAssertTrue(z18.allSatisfy { $0.tier <= 1 })
        XCTAssertLessThan(z17.count, z18.count)
        XCTAssertLessThan(z18.count, icons.filter { $0.tier <= 1 }.count, "z18 spaces dots out")
        XCTAssertGreaterThan(LabelPlacement.place([], icons: icons, style: style, zoom: 21).compactMap(\.icon).count, z18.count)
    }

    /// A long, narrow concourse (large in area, narrower than its name at z18)
    /// keeps its name inside the floor; a shop of the same shape and
    /// a room smaller than the name's box do not spill their names.
    func testLargeUnitsNameMayReachPastTheUnitInsideTheFloor() {
        func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [[MercatorPoint]] {
            [[MercatorPoint(x: origin.x + x0, y: origin.y + y0), MercatorPoint(x: origin.x + x1, y: origin.y + y0),
              MercatorPoint(x: origin.x + x1, y: origin.y + y1), MercatorPoint(x: origin.x + x0, y: origin.y + y1),
              MercatorPoint(x: origin.x + x0, y: origin.y + y0)]]
        }
        let floorArea = rect(-300, -300, 300, 300)
        let concourse = rect(-200, -4, 200, 4)   // 400 m × 8 m: 3200 m²
        let text = measurer.layout("Departures Concourse", style: style)
        let z = 18
        let mpp = DrawMetrics.metresPerPixel(zoom: z)
        XCTAssertGreaterThan((text.height + 2 * (style.haloWidth + LabelPlacement.marginPx)) * mpp, 8, "the name is taller than the concourse is wide")
        let walkway = LabelCandidate(featureID: "w", layout: text, anchor: origin, rings: concourse, area: 3200,
                                     weight: Cartography.labelWeight(.walkway, category: "walkway"), spills: true)
        XCTAssertEqual(LabelPlacement.place([walkway], style: style, zoom: z).count, 0, "without the floor: inside its unit only")
        XCTAssertEqual(LabelPlacement.place([walkway], style: style, zoom: z, floorArea: floorArea).count, 1)
        var shop = walkway
        shop.spills = false
        shop.weight = Cartography.labelWeight(.room, category: "room")
        XCTAssertEqual(LabelPlacement.place([shop], style: style, zoom: z, floorArea: floorArea).count, 0, "a shop's name stays in the shop")
        var small = walkway
        small.rings = rect(-5, -4, 5, 4)
        small.area = 80
        XCTAssertEqual(LabelPlacement.place([small], style: style, zoom: z, floorArea: floorArea).count, 0)
        // Not over a fixture (a kiosk in the concourse under the name), nor outside the floor.
        let kiosk = Obstacle(rings: rect(5, 5, 7, 7))
        XCTAssertEqual(LabelPlacement.place([walkway], style: style, zoom: z, floorArea: floorArea, obstacles: [kiosk]).count, 0)
        XCTAssertEqual(LabelPlacement.place([walkway], style: style, zoom: z, floorArea: rect(-300, -3, 300, 300)).count, 0)
    }
}
