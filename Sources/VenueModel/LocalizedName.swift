/// An IMDF "labels" object: language tag → text. Stored sorted by tag so
/// that everything derived from it (hashes, manifests) is stable.
public struct LocalizedName: Hashable, Sendable {
    public private(set) var entries: [(language: String, text: String)]

    public init(_ map: [String: String]) {
        entries = map.sorted { $0.key < $1.key }.map { (language: $0.key, text: $0.value) }
    }

    public init() { entries = [] }

    public var isEmpty: Bool { entries.isEmpty }

    public subscript(language: String) -> String? {
        entries.first { $0.language == language }?.text
    }

    /// The text in `preferred` if present, else English, else the first tag in order.
    public func text(preferring preferred: String?) -> String? {
        language(preferring: preferred).flatMap { self[$0] }
    }

    /// The language `text(preferring:)` picks.
    public func language(preferring preferred: String?) -> String? {
        if let preferred, self[preferred] != nil { return preferred }
        if self["en"] != nil { return "en" }
        return entries.first?.language
    }

    public static func == (a: LocalizedName, b: LocalizedName) -> Bool {
        a.entries.elementsEqual(b.entries) { $0.language == $1.language && $0.text == $1.text }
    }

    public func hash(into h: inout Hasher) {
        for e in entries { h.combine(e.language); h.combine(e.text) }
    }
}
