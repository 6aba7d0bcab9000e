import VenueModel

/// What matters most on a floor map, for label and icon placement: a venue
/// has more names and amenities than a low zoom can show, and placement keeps
/// the ones a visitor looks for first.
public enum Cartography {
    /// How much a unit's name is worth per square metre of unit: placement
    /// orders unit labels by area × weight, so a named shop beats a storage
    /// room of the same size and a large concourse beats a small corridor.
    public static func labelWeight(_ c: FeatureClass, category: String) -> Double {
        switch c {
        case .room: return 2
        case .restroom: return 1.5
        case .walkway, .otherRoom: return 1
        case .elevator, .stairs: return 0.5
        case .openToBelow, .fixture, .water: return 0.3
        case .nonPublic: return 0.05
        default: return 1
        }
    }

    /// Amenity tiers: 0 what a visitor needs wherever they are (restrooms,
    /// information, vertical circulation, exits, first aid, security and the
    /// desks a traveller must reach); 1 useful services; 2 everything else
    /// (self-service kiosks, screens, vending machines, phones, ...).
    public static func amenityTier(_ category: String) -> Int {
        var c = Substring(category.lowercased())
        // The most specific listed name wins ("checkin.selfservice" before "checkin").
        while true {
            if let t = tiers[String(c)] { return t }
            guard let dot = c.lastIndex(of: ".") else { return 2 }
            c = c[..<dot]
        }
    }

    static let tiers: [String: Int] = {
        var t = [String: Int]()
        for c in ["restroom", "toilets", "information", "informationdesk", "guestservices", "elevator", "escalator", "stairs",
                  "entrance", "entry", "exit", "emergencyexit", "firstaid", "medical", "security", "security.checkpoint",
                  "checkin", "checkin.desk", "baggageclaim", "immigration", "boardinggate", "arrivalgate", "ticketing"] { t[c] = 0 }
        for c in ["food", "foodservice", "foodcourt", "cafe", "coffee", "restaurant", "fastfood", "atm", "bank",
                  "currencyexchange", "pharmacy", "mothersroom", "nursery", "babychanging", "parking", "taxi", "bus", "shuttle",
                  "rentalcar", "wheelchairassist", "accessible", "wheelchair", "lostandfound", "police", "concierge",
                  "baggagestorage", "luggagelocker", "businesscenter", "shower"] { t[c] = 1 }
        for c in ["checkin.selfservice", "information.mufid", "ticketing.selfservice"] { t[c] = 2 }
        return t
    }()

    /// The least important amenity tier drawn as a dot at `zoom`: a venue at
    /// z17 is a few hundred pixels wide, where every kiosk's dot would be noise.
    public static func maxDotTier(zoom: Int) -> Int {
        zoom <= 17 ? 0 : zoom == 18 ? 1 : 2
    }

    /// Clearance kept between a dot and any other placed dot, icon or label, in
    /// pixels: wide at low zoom, where dots would merge into clusters.
    public static func dotSpacingPx(zoom: Int) -> Double {
        zoom <= 17 ? 16 : zoom == 18 ? 8 : 2
    }
}
