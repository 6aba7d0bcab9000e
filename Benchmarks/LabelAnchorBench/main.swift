// Times the label anchor search (TileGeometry.PoleOfInaccessibility) on a hall
// with a grid of square pillars (holes): the case of a unit with 100,000 holes.
//
//   label-anchor-bench HOLES [REPEAT]
import Foundation
import TileGeometry

let args = CommandLine.arguments
guard args.count >= 2, let holes = Int(args[1]), holes >= 0 else {
    FileHandle.standardError.write(Data("usage: label-anchor-bench HOLES [REPEAT]\n".utf8))
    exit(64)
}
let repeatCount = args.count > 2 ? Int(args[2]) ?? 3 : 3

/// A 200 m hall, its south wall densified to 400 vertices, and k×k pillars of a third of their spacing.
func hall(holes: Int) -> [[MercatorPoint]] {
    let side = 200.0, x0 = 1_000_000.0, y0 = 6_000_000.0
    var outline = (0..<400).map { MercatorPoint(x: x0 + Double($0) * side / 400, y: y0 + ($0 % 2 == 0 ? 0 : -0.05)) }
    outline += [MercatorPoint(x: x0 + side, y: y0), MercatorPoint(x: x0 + side, y: y0 + side), MercatorPoint(x: x0, y: y0 + side)]
    var rings = [outline]
    let k = Int(Double(holes).squareRoot().rounded(.up))
    let step = (side - 2) / Double(max(k, 1))
    outer: for i in 0..<k {
        for j in 0..<k {
            if rings.count > holes { break outer }
            let x = x0 + 1 + Double(i) * step, y = y0 + 1 + Double(j) * step, s = step / 3
            rings.append([MercatorPoint(x: x, y: y), MercatorPoint(x: x, y: y + s), MercatorPoint(x: x + s, y: y + s), MercatorPoint(x: x + s, y: y)])
        }
    }
    return rings
}

let rings = hall(holes: holes)
var times = [Double]()
var pole: MercatorPoint?
for _ in 0..<repeatCount {
    let t0 = DispatchTime.now().uptimeNanoseconds
    pole = PoleOfInaccessibility.find(rings, precision: 0.05)
    times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
}
times.sort()
let p = pole.map { String(format: "%.3f,%.3f", $0.x - 1_000_000, $0.y - 6_000_000) } ?? "none"
print(String(format: "holes %d edges %d: median %.3f s (min %.3f), pole %@", rings.count - 1, rings.reduce(0) { $0 + $1.count },
             times[times.count / 2], times[0], p))
