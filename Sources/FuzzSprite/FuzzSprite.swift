import Foundation
import FuzzSupport
import Styling
import Rendering

// libFuzzer entry point; see FuzzSupport for how a normal build links this target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // A sprite: its index (sprite.json) and sheet (sprite.png); a bare input is the PNG alone.
    let files = FuzzFiles.split(fuzzData(bytes, size), fallback: "sprite.png")
    let png = files.first { $0.name == "sprite.png" }?.data ?? Data()
    guard let sheet = try? ImageSurface.decodePNG(png) else { return 0 }
    guard let index = files.first(where: { $0.name == "sprite.json" })?.data,
          let sprite = try? Sprite.parse(index: index, png: png, pixelRatio: 1, source: "sprite") else { return 0 }
    // Cut every image out of the sheet, as a fill pattern is.
    for name in sprite.images.keys.sorted() {
        let i = sprite.images[name]!
        guard let s = try? ImageSurface(width: i.width, height: i.height), let c = try? CairoContext(s) else { continue }
        c.paint(sheet, sourceX: Double(i.x), sourceY: Double(i.y), width: Double(i.width), height: Double(i.height), x: 0, y: 0, scale: 1)
    }
    return 0
}

@_cdecl("FuzzSprite_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.main(argc, argv, fuzzOne)
}
