// swift-tools-version:5.9
import PackageDescription

// Fuzz targets export LLVMFuzzerTestOneInput and have no Swift main of their own.
let fuzzFlags: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "VenueTiles",
    products: [
        .executable(name: "venuetiles", targets: ["venuetiles"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // Publish: S3 over HTTP (the SigV4 signer is ours; see Sources/Publish).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        // Tests only: the Kubernetes YAML of docs/scale/ is parsed and checked.
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    ],
    targets: [
        // C libraries: module map + pkg-config, nothing else.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        // clients: FreeType for the SDF glyphs of the MapLibre style.
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Palette quantization of PNG tiles ("quantize": true).
        .systemLibrary(name: "CImageQuant", pkgConfig: "imagequant", providers: [.apt(["libimagequant-dev"])]),
        // glibc's malloc.h: giving freed heap pages back (`FreedMemory`).
        .systemLibrary(name: "CMalloc"),

        // Worker threads (results in index order whatever the scheduling) and the thread CPU clock.
        .target(name: "Threads"),
        // Value types of the normalized venue model. No I/O.
        .target(name: "VenueModel"),
        // Web Mercator, tile ids, coverage, clipping. No I/O.
        .target(name: "TileGeometry", dependencies: [
            "VenueModel", .product(name: "HeapModule", package: "swift-collections"),
        ]),
        // Readers: IMDF, MVF v2/v3, indoor GeoJSON (folder or zip through libzip); repair of bad features.
        .target(name: "VenueFormats", dependencies: ["VenueModel", "TileGeometry", "Threads", "CZip"]),
        // Style spec: layer ids, parsing, default style.
        // The default style and sprite are JSON/PNG files in the repo, compiled into the binary.
        .target(name: "Styling", dependencies: ["VenueModel"], resources: [
            .embedInCode("Resources/default-style.json"),
            .embedInCode("Resources/sprite.json"), .embedInCode("Resources/sprite.png"),
            .embedInCode("Resources/sprite@2x.json"), .embedInCode("Resources/sprite@2x.png"),
        ]),
        // pipeline.json: the config, its tile path templates and mesh options. No I/O beyond reading the file;
        // a module of its own so that FuzzPipelineConfig builds without Pipeline's dependencies.
        .target(name: "Config", dependencies: ["VenueModel", "VenueFormats"]),
        // The drawing model Prepare makes and the renderer draws: paint, draw items, label styles, drawn widths. No Cairo.
        .target(name: "Drawing", dependencies: ["TileGeometry", "Styling"]),
        // Cairo raster renderer, text measurement and PNG encoding.
        .target(name: "Rendering", dependencies: ["VenueModel", "TileGeometry", "Styling", "Drawing", "Threads", "CCairo", "CDeflate", "CXXHash", "CImageQuant"]),
        // Mapbox Vector Tile 2.1 encoding: geometry commands, property tables, protobuf. No Cairo, no I/O.
        .target(name: "VectorTiles", dependencies: ["TileGeometry"]),
        // glTF 2.0 binary (.glb) writing of floor meshes. No I/O.
        .target(name: "Meshes", dependencies: ["Styling"]),
        // clients: MapLibre style, sprite copy, SDF glyphs, floors.json, preview page (MapLibre GL JS vendored).
        .target(name: "Clients", dependencies: ["Styling", "Threads", "CFreeType"], resources: [
            .embedInCode("Resources/preview.html"), .copy("Resources/maplibre-gl"),
        ]),
        // Tile archives: PMTiles v3, MBTiles 1.3, zip packages. No Cairo.
        .target(name: "Archives", dependencies: [
            "TileGeometry", "CZlib", "CZip", "CSQLite", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Config, floors, plan, render stage, tile store, manifest.
        .target(name: "Pipeline", dependencies: [
            "VenueModel", "VenueFormats", "Config", "TileGeometry", "Styling", "Drawing", "Rendering", "VectorTiles", "Meshes", "Archives", "Threads", "CZlib", "CMalloc", "Clients",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Publishing an output folder to another folder or to S3 (SigV4 over async-http-client).
        .target(name: "Publish", dependencies: [
            "Pipeline", "Archives",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // Benchmark of the triangulator (scripts/bench_triangulation.py runs it beside mapbox-earcut).
        .executableTarget(name: "triangulation-bench", dependencies: ["TileGeometry"], path: "Benchmarks/TriangulationBench"),
        // Benchmark of the label anchor search (pole of inaccessibility) on a unit with many holes.
        .executableTarget(name: "label-anchor-bench", dependencies: ["TileGeometry"], path: "Benchmarks/LabelAnchorBench"),
        // Benchmark of PNG encoding on the tiles of a built output folder.
        .executableTarget(name: "png-encode-bench", dependencies: ["Rendering"], path: "Benchmarks/PNGEncodeBench"),
        // clients: benchmark of the SDF glyph generator (release: swift build -c release --product glyph-bench).
        .executableTarget(name: "glyph-bench", dependencies: ["Clients"], path: "Benchmarks/GlyphBench"),
        // Quantized PNG from a built output folder's lossless tiles: bytes, and encode instructions under perf stat.
        .executableTarget(name: "png-quantize-bench", dependencies: ["Rendering"], path: "Benchmarks/PNGQuantizeBench"),
        // Thin CLI over Pipeline.
        .executableTarget(name: "venuetiles", dependencies: [
            "Pipeline", "Publish", "Archives",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // libFuzzer targets, one per reader of untrusted bytes (scripts/fuzz builds them with
        // --sanitize fuzzer; a normal build makes them replay files, see Sources/FuzzSupport).
        .target(name: "FuzzSupport", dependencies: ["VenueFormats"]),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport", "VenueFormats"], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzIMDF", dependencies: ["FuzzSupport", "VenueFormats"], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzMVF", dependencies: ["FuzzSupport", "VenueFormats"], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzGeoJSON", dependencies: ["FuzzSupport", "VenueFormats"], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzZip", dependencies: ["FuzzSupport", "VenueFormats"], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzStyle", dependencies: ["FuzzSupport", "Styling"], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzSprite", dependencies: ["FuzzSupport", "Styling", "Rendering"], swiftSettings: fuzzFlags),
        .executableTarget(name: "FuzzPipelineConfig", dependencies: ["FuzzSupport", "Config"], swiftSettings: fuzzFlags),

        // Test helpers shared by test targets (an independent MVT decoder).
        .target(name: "TestSupport", dependencies: ["CZip"], path: "Tests/TestSupport"),
        .testTarget(name: "TileGeometryTests", dependencies: ["TileGeometry", "TestSupport"]),
        .testTarget(name: "VenueFormatsTests", dependencies: ["VenueFormats", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ThreadsTests", dependencies: ["Threads"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config"]),
        .testTarget(name: "VectorTilesTests", dependencies: ["VectorTiles", "VenueModel", "TileGeometry", "TestSupport"]),
        .testTarget(name: "DrawingTests", dependencies: ["Drawing", "Styling", "TileGeometry"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "Drawing", "Styling", "VenueModel", "TileGeometry", "TestSupport", "CZlib"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "TileGeometry", "Drawing", "Rendering", "VectorTiles", "Styling", "VenueFormats", "VenueModel", "TestSupport"], exclude: ["Golden"]),
        .testTarget(name: "ClientsTests", dependencies: ["Clients", "Styling"]),
        .testTarget(name: "PublishTests", dependencies: ["Publish", "Pipeline", "TestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "ArchivesTests", dependencies: ["Archives", "TileGeometry", "TestSupport", "CZip", "CZlib", "CSQLite", .product(name: "Crypto", package: "swift-crypto")], exclude: ["Helpers"]),
        .testTarget(name: "EndToEndTests", dependencies: ["venuetiles", "VenueFormats", "VenueModel", "TileGeometry", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
                                                       .product(name: "Yams", package: "Yams")]),
    ]
)

// Our own targets compile with warnings as errors (dependencies are not ours
// to fix, and SwiftPM does not pass these flags to them).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-warnings-as-errors"])]
}
