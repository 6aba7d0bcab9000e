import Drawing
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Styling
import Threads
import TileGeometry

/// The outcome of drawing one tile.
public enum RenderedTile: Equatable {
    /// Nothing visible was drawn; such tiles are not written.
    case transparent
    case png(Data)
}

/// Draws raster tiles. This is where a tile's pixels are decided.
///
/// One renderer per worker thread: it owns its Cairo surfaces and reuses them
/// for every tile it draws.
///
/// Tiles are drawn one at a time, or as a metatile: a block of N×N tiles drawn
/// in one surface (every polygon crossing the block is set up once, not once
/// per tile) and cut into tiles. A tile's pixels depend only on the items that
/// touch it (coverage pads every item by its drawn half-width), so drawing a
/// block of any subset of its tiles gives each of them the same bytes.
public final class TileRenderer {
    public let scale: Int
    public let tileSize: Int
    /// A surface, its context and the font last selected on it.
    private final class Canvas {
        let surface: ImageSurface
        let cr: CairoContext
        var font: (String, Double)?
        init(width: Int, height: Int) throws {
            surface = try ImageSurface(width: width, height: height)
            cr = try CairoContext(surface)
        }
    }
    private let tile: Canvas
    /// Metatile canvases by tiles per side, made on first use: one row of the
    /// block's tiles each (the block is drawn a row at a time).
    private var blocks = [Int: Canvas]()
    private let encoder: PNGEncoder
    /// Tiles of more than 256 colours are reduced to 256 when set (`"quantize": true`).
    private let quantizer: ImageQuantizer?
    /// Tells apart, in the shared cache, files of the same pixels encoded with other settings.
    private let encodingCode: UInt16
    private let encodings: EncodedImageCache?
    private let hasher = EncodedImageCache.ImageHasher()
    /// Encoded solid-colour tiles by pixel value: at z22–23 most tiles lie wholly
    /// inside one room and are the same image, encoded once per worker.
    private var solid = [UInt32: Data]()
    /// CPU seconds this renderer spent drawing and encoding (for `build --timings`).
    public private(set) var drawSeconds = 0.0
    public private(set) var encodeSeconds = 0.0


    private let atlas: SpriteAtlas?

    /// `sprite`: icons and fill patterns (without one, icons and patterns are not drawn).
    /// `encodings`: PNG files shared with the other workers of the build.
    /// `quantize`: tiles of more than 256 colours are reduced to a palette with these settings.
    /// `compression`: how the PNG files are compressed (`PNGEncoder.Compression`).
    public init(scale: Int, sprite: Sprite? = nil, encodings: EncodedImageCache? = nil,
                quantize: ImageQuantizer.Settings? = nil, compression: PNGEncoder.Compression = .fast) throws {
        precondition(scale >= 1 && scale <= 4, "scale \(scale) out of range 1...4")
        self.encodings = encodings
        quantizer = try quantize.map { try ImageQuantizer($0) }
        encoder = PNGEncoder(compression: compression)
        // Bit 0: quantized; bit 1: small; bits 8…15: the quantizer's maximum quality.
        encodingCode = (quantize.map { 1 | UInt16($0.maxQuality) << 8 } ?? 0) | (compression == .small ? 2 : 0)
        self.scale = scale
        tileSize = 256 * scale
        tile = try Canvas(width: tileSize, height: tileSize)
        atlas = try sprite.map(SpriteAtlas.init)
    }

    /// Draws `indices` of `items` (already in drawing order) into `tile`.
    public func render(tile t: TileID, items: [DrawItem], indices: [Int32]) throws -> RenderedTile {
        try render(tile: t, items: items, indices: indices[...])
    }

    /// Draws `indices` of `items` (already in drawing order) into `tile`.
    public func render(tile t: TileID, items: [DrawItem], indices: ArraySlice<Int32>) throws -> RenderedTile {
        let t0 = threadCPUSeconds()
        try draw(tile: t, items: items, indices: indices)
        let t1 = threadCPUSeconds()
        drawSeconds += t1 - t0
        defer { encodeSeconds += threadCPUSeconds() - t1 }
        let stride = tile.surface.stride
        return try tile.surface.withPixels { try cut($0, rowWords: stride / 4) }
    }

    /// Renders `tiles`, all inside the metatile of `span`×`span` tiles whose
    /// top-left tile is `origin`; `itemsOfTile[k]` are the items
    /// of `tiles[k]`, in drawing order. Only the part of the block the tiles
    /// cover is cleared and drawn.
    ///
    /// `frame`: the tiles the drawing is clipped to, the same whichever of them
    /// are rendered: Cairo cuts paths at the clip with rounded vertices, so a
    /// clip that depended on the subset would move a tile's edge pixels.
    ///
    /// The block is drawn one row of tiles at a time, into a canvas one row
    /// tall (a worker's canvases are an eighth of a whole block's: 2 MB, not
    /// 16, for an 8×8 block of 256-pixel tiles), each row clipped to the
    /// frame's columns and placed from the row's first tile of the block (so
    /// a tile's pixels do not depend on which of the block's rows are drawn),
    /// and that row's tiles are cut and encoded at once: a row
    /// of an 8×8 block (2 MB) is still in the core's cache when its tiles are
    /// read for the solid check, the hash and the palette scan, where the whole
    /// block (16 MB) is not. Measured on the medium venue (png, `--jobs 1`,
    /// three runs each): encode CPU 1.98–2.24 → 1.87–1.94 s, draw within this
    /// machine's noise (user instructions +1.3 % with each row drawing only its
    /// tiles' items, +3.5 % when every row drew the whole block's), every tile
    /// byte-identical to drawing the block at once. A row draws the union of
    /// its tiles' items, which are all that can reach its pixels (coverage pads
    /// every item by its drawn half-width).
    public func render<List: Collection>(metatile origin: TileID, span: Int, tiles: [TileID], frame: [TileID], items: [DrawItem],
                                         itemsOfTile: [List]) throws -> [RenderedTile] where List.Element == Int32 {
        precondition(frame.allSatisfy { $0.z == origin.z && $0.x >= origin.x && $0.y >= origin.y && $0.x < origin.x + span && $0.y < origin.y + span },
                     "tiles outside the metatile")
        precondition(tiles.allSatisfy(frame.contains), "tiles outside the frame")
        precondition(itemsOfTile.count == tiles.count, "\(itemsOfTile.count) item lists for \(tiles.count) tiles")
        let canvas: Canvas
        if let c = blocks[span] { canvas = c } else { canvas = try Canvas(width: span * tileSize, height: tileSize); blocks[span] = canvas }
        let ts = Double(tileSize)
        let minX = frame.map(\.x).min()! - origin.x, maxX = frame.map(\.x).max()! - origin.x
        let rowWords = canvas.surface.stride / 4
        var out = [RenderedTile](repeating: .transparent, count: tiles.count)
        for row in Set(tiles.map { $0.y - origin.y }).sorted() {
            let t0 = threadCPUSeconds()
            canvas.cr.save()
            canvas.cr.clip(x: Double(minX) * ts, y: 0, width: Double(maxX - minX + 1) * ts, height: ts)
            var rowItems = Set<Int32>()
            for (k, t) in tiles.enumerated() where t.y - origin.y == row { rowItems.formUnion(itemsOfTile[k]) }
            // The row's canvas starts at the row's first tile of the block.
            try paint(canvas, origin: TileID(z: origin.z, x: origin.x, y: origin.y + row), items: items, indices: rowItems.sorted()[...])
            canvas.cr.restore()
            // restore() also brought back the font of before the drawing.
            canvas.font = nil
            let t1 = threadCPUSeconds()
            drawSeconds += t1 - t0
            try canvas.surface.withPixels { px in
                for (k, t) in tiles.enumerated() where t.y - origin.y == row {
                    let offset = (t.x - origin.x) * tileSize
                    out[k] = try cut(UnsafeBufferPointer(rebasing: px[offset...]), rowWords: rowWords)
                }
            }
            encodeSeconds += threadCPUSeconds() - t1
        }
        return out
    }

    /// Encodes the tile whose top-left pixel is `px[0]`.
    private func cut(_ px: UnsafeBufferPointer<UInt32>, rowWords: Int) throws -> RenderedTile {
        let size = tileSize
        if let only = TileRenderer.singleColor(px, size: size, rowWords: rowWords) {
            if only == 0 { return .transparent }
            if let d = solid[only] { return .png(d) }
            let d = try encode(px, rowWords: rowWords)
            solid[only] = d
            return .png(d)
        }
        guard let encodings else { return .png(try encode(px, rowWords: rowWords)) }
        let key = hasher.key(px, width: size, height: size, rowWords: rowWords, encoding: encodingCode)
        if let d = encodings.file(for: key) { return .png(d) }
        let d = try encode(px, rowWords: rowWords)
        encodings.insert(d, for: key)
        return .png(d)
    }

    private func encode(_ px: UnsafeBufferPointer<UInt32>, rowWords: Int) throws -> Data {
        guard let quantizer else { return encoder.encode(pixels: px, width: tileSize, height: tileSize, stride: rowWords * 4) }
        return try encoder.encode(pixels: px, width: tileSize, height: tileSize, stride: rowWords * 4, reducingWith: quantizer)
    }

    /// The pixel value when every pixel has it, else nil.
    static func singleColor(_ px: UnsafeBufferPointer<UInt32>, size: Int, rowWords: Int) -> UInt32? {
        let first = px[0]
        // The first row word by word (an early exit on most tiles), then every
        // other row against it with memcmp: a per-pixel loop with an early exit
        // does not vectorise, and solid tiles are scanned whole.
        for x in 0..<size where px[x] != first { return nil }
        let base = px.baseAddress!
        for y in 1..<size where memcmp(base + y * rowWords, base, size * 4) != 0 { return nil }
        return first
    }

    /// Draws into the renderer's tile surface without encoding (tests read pixels from `pixels`).
    public func draw(tile t: TileID, items: [DrawItem], indices: [Int32]) throws {
        try paint(tile, origin: t, items: items, indices: indices[...])
    }

    /// Draws into the renderer's tile surface without encoding (tests read pixels from `pixels`).
    public func draw(tile t: TileID, items: [DrawItem], indices: ArraySlice<Int32>) throws {
        try paint(tile, origin: t, items: items, indices: indices)
    }

    /// Clears and draws the canvas (within its clip) with device pixel (0, 0) at
    /// the top-left corner of tile `origin`.
    private func paint(_ canvas: Canvas, origin: TileID, items: [DrawItem], indices: ArraySlice<Int32>) throws {
        let cr = canvas.cr
        cr.clear()
        let bounds = origin.bounds
        let mpp = DrawMetrics.metresPerPixel(zoom: origin.z)
        let k = Double(scale) / mpp
        let ox = bounds.minX, oy = bounds.maxY
        @inline(__always) func px(_ p: MercatorPoint) -> (Double, Double) { ((p.x - ox) * k, (oy - p.y) * k) }
        func set(_ c: Color) {
            cr.setColor(r: Double(c.r) / 255, g: Double(c.g) / 255, b: Double(c.b) / 255, a: Double(c.a) / 255)
        }
        func addRing(_ ring: [MercatorPoint]) {
            for (n, p) in ring.enumerated() {
                let (x, y) = px(p)
                if n == 0 { cr.moveTo(x, y) } else { cr.lineTo(x, y) }
            }
            cr.closePath()
        }

        cr.setEvenOdd()
        var labels = [LabelDraw](), icons = [IconDraw]()
        var clipped: ClipArea? = nil
        for i in indices {
            let item = items[Int(i)]
            if let l = item.label { labels.append(l); continue }
            if let ic = item.icon { icons.append(ic); continue }
            if item.clip !== clipped {
                if clipped != nil { cr.restore() }
                clipped = item.clip
                if let c = clipped {
                    cr.save()
                    cr.newPath()
                    for ring in c.rings { addRing(ring) }
                    cr.setNonZero()
                    cr.clipToPath()
                    cr.setEvenOdd()
                }
            }
            if item.wholeTile {
                if let f = item.paint.fill { set(f); cr.paintAll() }
                continue
            }
            switch item.geometry {
            case .polygons(let polys) where item.grow > 0:
                drawGrown(polys, item.paint, grow: item.grow * k, cr: cr, addRing: addRing, set: set)
            case .polygons(let polys):
                for rings in polys {
                    cr.newPath()
                    for ring in rings {
                        for (n, p) in ring.enumerated() {
                            let (x, y) = px(p)
                            if n == 0 { cr.moveTo(x, y) } else { cr.lineTo(x, y) }
                        }
                        cr.closePath()
                    }
                    if let f = item.paint.fill { set(f); cr.fillPreserve() }
                    if let name = item.paint.pattern, let (p, ratio) = try atlas?.pattern(name) {
                        // Aligned to the world pixel grid so the pattern runs on across tile edges.
                        let k = Double(scale) / Double(ratio)
                        let pw = Double(p.width) * k, ph = Double(p.height) * k
                        let gx = (Double(origin.x) * Double(tileSize)).truncatingRemainder(dividingBy: pw)
                        let gy = (Double(origin.y) * Double(tileSize)).truncatingRemainder(dividingBy: ph)
                        cr.fillPattern(p, originX: -gx, originY: -gy, scale: k)
                    }
                    if let o = item.paint.outline {
                        set(o)
                        cr.setRoundJoins()
                        cr.setLineWidth(DrawMetrics.outlineWidthPx * Double(scale))
                        cr.stroke()
                    }
                    cr.newPath()
                }
            case .lines(let lines):
                guard let c = item.paint.line ?? item.paint.outline else { continue }
                cr.newPath()
                for line in lines {
                    for (n, p) in line.enumerated() {
                        let (x, y) = px(p)
                        if n == 0 { cr.moveTo(x, y) } else { cr.lineTo(x, y) }
                    }
                }
                set(c)
                cr.setButtCaps()
                cr.setLineWidth(DrawMetrics.lineWidthPx(zoom: origin.z) * Double(scale))
                cr.stroke()
            case .points(let pts):
                let r = DrawMetrics.dotRadiusPx * Double(scale)
                for p in pts {
                    let (x, y) = px(p)
                    cr.newPath()
                    cr.circle(x, y, r)
                    if let f = item.paint.fill { set(f); cr.fillPreserve() }
                    if let o = item.paint.outline {
                        set(o)
                        cr.setLineWidth(DrawMetrics.dotRingPx * Double(scale))
                        cr.stroke()
                    }
                    cr.newPath()
                }
            }
        }
        if clipped != nil { cr.restore() }
        if !labels.isEmpty { drawLabels(labels, canvas, px) }
        if let atlas {
            for ic in icons {
                let (x, y) = px(ic.anchor)
                atlas.drawIcon(ic.name, cx: x, cy: y, scale: scale, on: cr)
            }
        }
        try cr.checkStatus("draw tile \(origin)")
    }

    /// The union of `polys`' rings grown by `grow` pixels: filled and stroked
    /// 2 × `grow` wide in the fill colour over a stroke of the outline colour
    /// one outline width wider, so only the outline's outer half shows, around
    /// the union and not between its parts.
    private func drawGrown(_ polys: [[[MercatorPoint]]], _ paint: Paint, grow: Double, cr: CairoContext,
                           addRing: ([MercatorPoint]) -> Void, set: (Color) -> Void) {
        cr.save()
        cr.setNonZero()
        cr.setRoundJoins()
        cr.newPath()
        for rings in polys { for ring in rings { addRing(ring) } }
        if let o = paint.outline {
            set(o)
            cr.setLineWidth(2 * grow + 2 * DrawMetrics.outlineWidthPx * Double(scale))
            cr.strokePreserve()
        }
        if let f = paint.fill {
            set(f)
            cr.fillPreserve()
            cr.setLineWidth(2 * grow)
            cr.strokePreserve()
        }
        cr.newPath()
        cr.restore()
    }

    /// Labels are placed once per floor and zoom (see `LabelPlacement`), so a
    /// label crossing a tile edge is drawn whole, at the same place, in every
    /// tile it touches. Halos go first so no halo covers a neighbour's text.
    private func drawLabels(_ labels: [LabelDraw], _ canvas: Canvas, _ px: (MercatorPoint) -> (Double, Double)) {
        let k = Double(scale), cr = canvas.cr
        func set(_ c: Color) {
            cr.setColor(r: Double(c.r) / 255, g: Double(c.g) / 255, b: Double(c.b) / 255, a: Double(c.a) / 255)
        }
        for pass in 0..<2 {
            for l in labels {
                if pass == 0 && (l.style.haloColor == nil || l.style.haloWidth <= 0) { continue }
                if canvas.font.map({ $0.0 != l.style.fontName || $0.1 != l.style.fontSize }) ?? true {
                    cr.selectFont(family: l.style.fontName, size: l.style.fontSize * k)
                    canvas.font = (l.style.fontName, l.style.fontSize)
                }
                let (cx, cy) = px(l.anchor)
                let top = cy - l.layout.height * k / 2
                cr.newPath()
                for (n, line) in l.layout.lines.enumerated() {
                    cr.moveTo(cx - l.layout.lineWidths[n] * k / 2, top + (l.layout.ascent + Double(n) * l.layout.lineHeight) * k)
                    cr.textPath(line)
                }
                if pass == 0 {
                    set(l.style.haloColor!)
                    cr.setRoundJoins()
                    cr.setLineWidth(2 * l.style.haloWidth * k)
                    cr.stroke()
                } else {
                    set(l.style.color)
                    cr.fill()
                }
            }
        }
    }

    public var pixels: ImageSurface { tile.surface }
}
