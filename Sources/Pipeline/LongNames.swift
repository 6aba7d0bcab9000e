import Foundation
import VenueFormats
import VenueModel

/// Names too long for a label. A unit named with megabytes of text (a paste
/// gone wrong, a hostile file) would reach Cairo's text shaping whole, which
/// takes seconds and gigabytes and past some size aborts the process inside
/// Cairo. Every name of a venue (features, levels, buildings, the venue's own)
/// is cut to `maxScalars` Unicode scalars plus "…" when loaded, with one
/// warning per name naming the feature: the same cut every time, for raster
/// labels, vector tiles and client files alike.
///
/// Scalars, not characters: one character can hold any number of combining
/// scalars, so a limit in characters would not bound the bytes.
enum LongNames {
    static let maxScalars = 200

    static func bound(_ venue: inout Venue, file: String) -> [Diagnostic] {
        var out = [Diagnostic]()
        func cut(_ n: inout LocalizedName, _ id: String, _ what: String) {
            guard n.entries.contains(where: { isLong($0.text) }) else { return }
            var map = [String: String]()
            for e in n.entries {
                if isLong(e.text) {
                    out.append(Diagnostic(kind: .warning, file: file, featureID: id,
                                          message: "\(what) in language \"\(e.language)\" has \(e.text.utf8.count) bytes; cut to its first \(maxScalars) characters"))
                    map[e.language] = truncated(e.text)
                } else {
                    map[e.language] = e.text
                }
            }
            n = LocalizedName(map)
        }
        cut(&venue.name, venue.id, "venue name")
        for i in venue.buildings.indices { cut(&venue.buildings[i].name, venue.buildings[i].id, "building name") }
        for i in venue.levels.indices {
            cut(&venue.levels[i].name, venue.levels[i].id, "level name")
            cut(&venue.levels[i].shortName, venue.levels[i].id, "level short name")
        }
        for i in venue.features.indices { cut(&venue.features[i].name, venue.features[i].id, "name") }
        return out
    }

    /// Whether `s` has more than `maxScalars` scalars, without counting all of a long one.
    static func isLong(_ s: String) -> Bool {
        s.utf8.count > maxScalars && s.unicodeScalars.index(s.unicodeScalars.startIndex, offsetBy: maxScalars + 1,
                                                           limitedBy: s.unicodeScalars.endIndex) != nil
    }

    static func truncated(_ s: String) -> String {
        var u = String.UnicodeScalarView()
        u.append(contentsOf: s.unicodeScalars.prefix(maxScalars))
        return String(u) + "…"
    }
}
