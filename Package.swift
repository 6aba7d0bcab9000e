// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "VenueTiles",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "venuetiles", targets: ["venuetiles"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        // C libraries: module map + pkg-config, nothing else.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        // Palette quantization of PNG tiles ("quantize": true).
        .systemLibrary(name: "CImageQuant", pkgConfig: "imagequant", providers: [.apt(["libimagequant-dev"])]),

        // Value types of the normalized venue model. No I/O.
        .target(name: "VenueModel"),
        // Web Mercator, tile ids, coverage, clipping. No I/O.
        .target(name: "TileGeometry", dependencies: [
            "VenueModel", .product(name: "HeapModule", package: "swift-collections"),
        ]),
        // Readers: IMDF, MVF v2/v3, indoor GeoJSON (folder or zip through libzip); repair of bad features.
        .target(name: "VenueFormats", dependencies: ["VenueModel", "TileGeometry", "CZip"]),
        // Style spec: layer ids, parsing, default style.
        // The default style and sprite are JSON/PNG files in the repo, compiled into the binary.
        .target(name: "Styling", dependencies: ["VenueModel"], resources: [
            .embedInCode("Resources/default-style.json"),
            .embedInCode("Resources/sprite.json"), .embedInCode("Resources/sprite.png"),
            .embedInCode("Resources/sprite@2x.json"), .embedInCode("Resources/sprite@2x.png"),
        ]),
        // Cairo raster renderer and PNG encoding.
        .target(name: "Rendering", dependencies: ["VenueModel", "TileGeometry", "Styling", "CCairo", "CDeflate", "CXXHash", "CImageQuant"]),
        // Config, floors, plan, render stage, tile store, manifest.
        .target(name: "Pipeline", dependencies: [
            "VenueModel", "VenueFormats", "TileGeometry", "Styling", "Rendering", "CZlib",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Benchmark of the triangulator (scripts/bench_triangulation.py runs it beside mapbox-earcut).
        .executableTarget(name: "triangulation-bench", dependencies: ["TileGeometry"], path: "Benchmarks/TriangulationBench"),
        // Benchmark of PNG encoding on the tiles of a built output folder.
        .executableTarget(name: "png-encode-bench", dependencies: ["Rendering"], path: "Benchmarks/PNGEncodeBench"),
        // Quantized PNG from a built output folder's lossless tiles: bytes, and encode instructions under perf stat.
        .executableTarget(name: "png-quantize-bench", dependencies: ["Rendering"], path: "Benchmarks/PNGQuantizeBench"),
        // Thin CLI over Pipeline.
        .executableTarget(name: "venuetiles", dependencies: [
            "Pipeline",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Test helpers shared by test targets (an independent MVT decoder).
        .target(name: "TestSupport", dependencies: ["CZip"], path: "Tests/TestSupport"),
        .testTarget(name: "TileGeometryTests", dependencies: ["TileGeometry", "TestSupport"]),
        .testTarget(name: "VenueFormatsTests", dependencies: ["VenueFormats", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "Styling", "VenueModel", "TileGeometry", "TestSupport", "CZlib"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "TileGeometry", "Rendering", "Styling", "VenueFormats", "VenueModel"]),
        .testTarget(name: "EndToEndTests", dependencies: ["venuetiles", "VenueFormats", "VenueModel", "TileGeometry", "TestSupport", .product(name: "Crypto", package: "swift-crypto")]),
    ]
)
