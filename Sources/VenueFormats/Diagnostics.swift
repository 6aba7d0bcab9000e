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

/// A problem a reader repaired or a feature it skipped. The same input gives the
/// same warnings, in the same order.
public struct Diagnostic: CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable { case notice, warning }
    public var kind: Kind
    public var file: String
    public var featureID: String?
    public var message: String

    public init(kind: Kind, file: String, featureID: String?, message: String) {
        self.kind = kind; self.file = file; self.featureID = featureID; self.message = message
    }

    public var description: String {
        let what = featureID.map { "\(file): feature \($0)" } ?? file
        return "\(kind.rawValue): \(what): \(message)"
    }
}

/// Collects diagnostics while a reader runs.
public struct Diagnostics: Sendable {
    public private(set) var items: [Diagnostic] = []
    public init() {}

    public mutating func warn(_ file: String, _ featureID: String?, _ message: String) {
        items.append(Diagnostic(kind: .warning, file: file, featureID: featureID, message: message))
    }

    public mutating func notice(_ file: String, _ message: String) {
        items.append(Diagnostic(kind: .notice, file: file, featureID: nil, message: message))
    }

    public var warningCount: Int { items.filter { $0.kind == .warning }.count }
}
