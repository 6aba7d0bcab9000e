/// A position in one tile's vector coordinate space: 0…extent across the tile,
/// y down, fractional (before quantisation).
public struct TileUnitPoint: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// A quantised tile position, as an MVT stores it.
public struct TileCoord: Hashable, Sendable {
    public var x: Int32
    public var y: Int32
    public init(x: Int32, y: Int32) { self.x = x; self.y = y }
}

/// Maps Mercator metres into one tile's unit space.
public struct TileTransform: Sendable {
    public let extent: Double
    private let originX: Double, originY: Double, scale: Double

    public init(tile: TileID, extent: Int) {
        let b = tile.bounds
        self.extent = Double(extent)
        originX = b.minX
        originY = b.maxY
        scale = Double(extent) / (b.maxX - b.minX)
    }

    @inline(__always)
    public func apply(_ p: MercatorPoint) -> TileUnitPoint {
        TileUnitPoint(x: (p.x - originX) * scale, y: (originY - p.y) * scale)
    }

    @inline(__always)
    public func invert(_ p: TileUnitPoint) -> MercatorPoint {
        MercatorPoint(x: originX + p.x / scale, y: originY - p.y / scale)
    }

    /// Metres per tile unit.
    public var unitSize: Double { 1 / scale }
}

/// An axis-aligned box in tile units (the tile grown by its buffer).
public struct TileUnitRect: Sendable {
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    /// The tile [0, extent]² grown by `buffer` units on every side.
    public init(extent: Int, buffer: Int) {
        self.init(minX: -Double(buffer), minY: -Double(buffer), maxX: Double(extent + buffer), maxY: Double(extent + buffer))
    }
    @inline(__always)
    public func contains(_ p: TileUnitPoint) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
}

/// Signed area in a y-down plane: positive for rings that run clockwise on screen,
/// which is what MVT 2.1 requires of exterior rings.
/// Inlinable so that other modules get it specialised: called through the
/// protocol, it cost 1,000 instructions per ring of a vector tile.
@inlinable
public func signedArea<P: PlanarPoint>(_ ring: [P]) -> Double {
    guard ring.count > 2 else { return 0 }
    var s = 0.0
    var j = ring.count - 1
    for i in 0..<ring.count {
        s += ring[j].px * ring[i].py - ring[i].px * ring[j].py
        j = i
    }
    return s / 2
}

/// Points of any planar space, for the few algorithms that are space-agnostic.
public protocol PlanarPoint { var px: Double { get }; var py: Double { get } }
extension TileUnitPoint: PlanarPoint { @inlinable public var px: Double { x }; @inlinable public var py: Double { y } }
extension TileCoord: PlanarPoint { @inlinable public var px: Double { Double(x) }; @inlinable public var py: Double { Double(y) } }
