import Foundation

/// Mesh output options (pipeline.json `"mesh"`).
public struct MeshOptions: Sendable, Equatable {
    /// Vertical distance between floors in the venue mesh, metres.
    public var floorHeight = 4.5
    /// Extrusion height per feature class, metres; 0 draws a flat face.
    public var heights: [String: Double] = MeshOptions.defaultHeights

    public static let defaultHeights: [String: Double] = [
        "room": 3.0, "restroom": 3.0, "elevator": 3.0, "nonPublic": 3.0, "otherRoom": 3.0,
        "stairs": 1.2, "fixture": 1.0, "water": 0.1, "walkway": 0.02, "openToBelow": 0,
        "levelOutline": 0,
    ]

    public init() {}
}
