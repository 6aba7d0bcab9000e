/// Bad input that stops a build: names the file, the feature (when there is one) and the problem.
public struct VenueFormatError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var featureID: String?
    public var problem: String

    public init(file: String, featureID: String? = nil, problem: String) {
        self.file = file; self.featureID = featureID; self.problem = problem
    }

    public var description: String {
        if let featureID { return "\(file): feature \(featureID): \(problem)" }
        return "\(file): \(problem)"
    }
}

/// Problems that make a venue unreadable, found in one pass so that a user sees
/// all of them at once. Carries the warnings found on the way, for `validate`.
public struct VenueFormatErrors: Error, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var errors: [Diagnostic] { diagnostics.filter { $0.kind == .error } }

    public init(diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// One line per error, without the severity word (the CLI prefixes `error: `).
    public var description: String {
        errors.map(\.location).joined(separator: "\n")
    }
}

/// A problem found while reading: a notice (ignored file), a warning (a feature
/// repaired or skipped) or an error (the venue cannot be built). The same input
/// gives the same diagnostics, in the same order.
public struct Diagnostic: CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable { case notice, warning, error }
    public var kind: Kind
    public var file: String
    public var featureID: String?
    public var message: String

    public init(kind: Kind, file: String, featureID: String?, message: String) {
        self.kind = kind; self.file = file; self.featureID = featureID; self.message = message
    }

    public var description: String { "\(kind.rawValue): \(location)" }

    /// `file: feature id: message`.
    public var location: String {
        let what = featureID.map { "\(file): feature \($0)" } ?? file
        return "\(what): \(message)"
    }
}

/// Collects diagnostics while a reader runs.
public struct Diagnostics: Sendable {
    public private(set) var items: [Diagnostic] = []
    /// Counted notices: file + what → the notice's place in `items` and its count.
    private var tallies: [String: (index: Int, count: Int)] = [:]
    public init() {}

    /// A routine repair counted once per file, not listed per feature: one
    /// notice `what: N`, placed where the first one happened. Wrong-way rings
    /// are normal in GeoJSON older than RFC 7946; 699 warning lines for them
    /// would drown the warnings that matter.
    public mutating func tally(_ file: String, _ what: String, count: Int = 1) {
        let key = file + "\u{1F}" + what
        if let t = tallies[key] {
            tallies[key] = (t.index, t.count + count)
            items[t.index].message = "\(what): \(t.count + count)"
        } else {
            tallies[key] = (items.count, count)
            items.append(Diagnostic(kind: .notice, file: file, featureID: nil, message: "\(what): \(count)"))
        }
    }

    public mutating func warn(_ file: String, _ featureID: String?, _ message: String) {
        items.append(Diagnostic(kind: .warning, file: file, featureID: featureID, message: message))
    }

    public mutating func notice(_ file: String, _ message: String) {
        items.append(Diagnostic(kind: .notice, file: file, featureID: nil, message: message))
    }

    /// A problem in one feature that makes the venue unreadable (a non-finite
    /// coordinate, a geometry that is not GeoJSON). Reading goes on so that
    /// every such problem is listed; `throwIfErrors` stops the venue at the end.
    public mutating func error(_ file: String, _ featureID: String?, _ message: String) {
        items.append(Diagnostic(kind: .error, file: file, featureID: featureID, message: message))
    }

    public mutating func error(_ e: VenueFormatError) { error(e.file, e.featureID, e.problem) }

    /// Those another reader found (a file parsed on another thread), after these.
    /// Counted notices of the same file and kind are added up.
    public mutating func append(contentsOf other: Diagnostics) {
        var counted = [Int: (key: String, count: Int)]()
        for (key, t) in other.tallies { counted[t.index] = (key, t.count) }
        for (i, d) in other.items.enumerated() {
            if let c = counted[i] {
                let what = String(c.key[c.key.index(after: c.key.firstIndex(of: "\u{1F}")!)...])
                tally(d.file, what, count: c.count)
            } else {
                items.append(d)
            }
        }
    }

    public var warningCount: Int { items.filter { $0.kind == .warning }.count }
    public var errorCount: Int { items.filter { $0.kind == .error }.count }

    public func throwIfErrors() throws {
        if errorCount > 0 { throw VenueFormatErrors(diagnostics: items) }
    }
}
