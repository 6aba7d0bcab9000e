/// What a feature is for drawing purposes. Every reader maps its own
/// categories onto these; the style layer of a feature follows from its class
/// (see `Styling.LayerTable`).
public enum FeatureClass: String, CaseIterable, Hashable, Sendable {
    case venue
    case building          // building footprints
    case levelOutline      // the outline of a level (IMDF level geometry)
    case elevator
    case stairs            // stairs, steps, escalators, ramps, moving walkways
    case restroom
    case walkway
    case fixture
    case nonPublic
    case openToBelow
    case otherRoom         // units without a more specific class
    case room
    case water
    case wall              // wall lines and wall polygons (MVF walls, OSM indoor=wall lines)
    case opening
    case amenity
    case section           // read and kept, not drawn by the default style
    case anchor            // label anchors; never drawn

    /// Maps an IMDF unit category (IMDF 1.0, "Unit category") to a class.
    public static func imdfUnit(_ category: String) -> FeatureClass {
        if category.hasPrefix("restroom") { return .restroom }
        switch category {
        case "elevator": return .elevator
        case "stairs", "steps", "escalator", "movingwalkway", "ramp": return .stairs
        case "shower", "mothersroom": return .restroom
        case "walkway", "walkway.island", "footbridge", "lobby", "platform", "unenclosedarea",
             "terrace", "road", "parking": return .walkway
        case "nonpublic", "structure", "serverroom", "storage", "mailroom", "column", "brick",
             "concrete", "drywall", "glass", "wood", "kitchen": return .nonPublic
        case "opentobelow": return .openToBelow
        case "room", "office", "classroom", "conferenceroom", "huddleroom", "auditorium",
             "laboratory", "library", "lounge", "privatelounge", "fitnessroom", "foodservice",
             "movietheater", "theater", "phoneroom", "recreation", "waitingroom", "firstaid",
             "smokingarea": return .room
        case "water": return .water
        default: return .otherRoom   // unspecified, fieldofplay, vegetation, unknown values
        }
    }

    /// Maps an IMDF fixture category; water features get their own layer.
    public static func imdfFixture(_ category: String) -> FeatureClass {
        switch category {
        case "water", "fountain": return .water
        default: return .fixture
        }
    }
}
