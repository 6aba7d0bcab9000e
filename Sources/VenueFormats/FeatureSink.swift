import VenueModel

/// Where every reader hands its features, so that all formats get the same
/// checks and repairs, in the same order:
///
/// 1. polygon repair (`GeometryRepair`): rings organised by containment, winding,
///    crossing rings;
/// 2. duplicate ids: a second feature with the id of an earlier one on the same
///    level is skipped (OSM features repeated on several levels keep their id);
/// 3. at `finish`: features far outside the venue are skipped (a typo in a
///    coordinate would otherwise stretch the tile pyramid over half a
///    continent), and levels with nothing on them are reported.
struct FeatureSink {
    private(set) var features: [Feature] = []
    private var files: [String] = []
    private var seen = Set<String>()

    /// `repaired`: the caller already ran `GeometryRepair` (a feature added on several levels is repaired once).
    mutating func add(_ feature: Feature, file: String, repaired: Bool = false, diagnostics: inout Diagnostics) {
        var f = feature
        if !repaired {
            guard let g = GeometryRepair.repair(f.geometry, file: file, featureID: f.id, diagnostics: &diagnostics) else { return }
            f.geometry = g
        }
        guard seen.insert(f.id + "\u{1F}" + (f.levelID ?? "")).inserted else {
            diagnostics.warn(file, f.id, "skipped: duplicate id (an earlier feature\(f.levelID.map { " on level \($0)" } ?? "") has it)")
            return
        }
        features.append(f)
        files.append(file)
    }

    /// Repairs a level outline the same way as a feature's polygons.
    static func repairOutline(_ g: Geometry?, levelID: String, file: String, diagnostics: inout Diagnostics) -> Geometry? {
        guard let g else { return nil }
        return GeometryRepair.repair(g, file: file, featureID: levelID, diagnostics: &diagnostics)
    }

    /// The features that survive the venue-wide checks.
    ///
    /// `reference` is the venue's own extent when the source has one (the IMDF
    /// venue polygon, the level outlines); otherwise the middle half of the
    /// feature centres stands in for it.
    mutating func finish(reference given: LonLatBounds?, levels: [Level], location: String,
                         diagnostics: inout Diagnostics) -> [Feature] {
        var reference = given ?? .empty
        if reference.isEmpty {
            for l in levels { if let g = l.geometry { reference.extend(g.bounds) } }
        }
        if reference.isEmpty, !features.isEmpty {
            let lons = features.map { $0.geometry.bounds.center.lon }.sorted()
            let lats = features.map { $0.geometry.bounds.center.lat }.sorted()
            let q1 = lons.count / 4, q3 = (lons.count * 3) / 4
            reference = LonLatBounds(west: lons[q1], south: lats[q1], east: lons[min(q3, lons.count - 1)], north: lats[min(q3, lats.count - 1)])
        }
        var kept = [Feature]()
        kept.reserveCapacity(features.count)
        if !reference.isEmpty {
            // A margin of the venue's own size, and at least ~1 km: wings and car parks
            // beyond a venue polygon are normal; a room 50 km away is a coordinate typo.
            let margin = max(0.01, reference.east - reference.west, reference.north - reference.south)
            let box = LonLatBounds(west: reference.west - margin, south: reference.south - margin,
                                   east: reference.east + margin, north: reference.north + margin)
            for (f, file) in zip(features, files) {
                let b = f.geometry.bounds
                if b.west > box.east || b.east < box.west || b.south > box.north || b.north < box.south {
                    diagnostics.warn(file, f.id, "skipped: far outside the venue (at \(b.center), venue extent \(format(reference)))")
                    continue
                }
                kept.append(f)
            }
        } else {
            kept = features
        }
        var used = Set<String>()
        for f in kept { if let l = f.levelID { used.insert(l) } }
        for l in levels where l.geometry == nil && !used.contains(l.id) {
            diagnostics.warn(location, l.id, "empty floor: level \(l.id) has no outline and no features")
        }
        return kept
    }

    private func format(_ b: LonLatBounds) -> String {
        func r(_ v: Double) -> String { String(Double((v * 1e5).rounded()) / 1e5) }
        return "\(r(b.west)),\(r(b.south)) – \(r(b.east)),\(r(b.north))"
    }
}
