// Times TileGeometry.Triangulator on polygons read from a file written by
// scripts/bench_triangulation.py, so that the C++ earcut (mapbox-earcut) can
// be timed on exactly the same rings in the same run.
//
// File format (little-endian): UInt32 polygon count; per polygon UInt32 ring
// count; per ring UInt32 point count then x, y as Float64 pairs.
import Foundation
import TileGeometry

let args = CommandLine.arguments
guard args.count >= 2, let data = FileManager.default.contents(atPath: args[1]) else {
    FileHandle.standardError.write(Data("usage: triangulation-bench RINGS_FILE [REPEAT]\n".utf8))
    exit(64)
}
let repeatCount = args.count > 2 ? Int(args[2]) ?? 5 : 5
var offset = 0
func u32() -> Int {
    let v = data[offset..<(offset + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    offset += 4
    return Int(UInt32(littleEndian: v))
}
func f64() -> Double {
    let v = data[offset..<(offset + 8)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    offset += 8
    return Double(bitPattern: UInt64(littleEndian: v))
}
var polygons = [[[PlanePoint]]]()
for _ in 0..<u32() {
    var rings = [[PlanePoint]]()
    for _ in 0..<u32() {
        let n = u32()
        var r = [PlanePoint]()
        r.reserveCapacity(n)
        for _ in 0..<n { r.append(PlanePoint(x: f64(), y: f64())) }
        rings.append(r)
    }
    polygons.append(rings)
}
var times = [Double]()
// One workspace for the run, as the mesh builder uses one per floor.
let workspace = Triangulator.Workspace()
var triangles = 0
for _ in 0..<repeatCount {
    triangles = 0
    let t0 = DispatchTime.now().uptimeNanoseconds
    for p in polygons { triangles += Triangulator.triangulate(p, workspace: workspace).indices.count / 3 }
    times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
}
times.sort()
print("\(polygons.count) \(triangles) \(times[times.count / 2])")
