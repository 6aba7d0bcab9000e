import Foundation
import FuzzSupport
import VenueFormats

// libFuzzer entry point; see FuzzSupport for how a normal build links this target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var reader = IndoorGeoJSONReader()
    _ = try? reader.read(MemoryBundle(FuzzFiles.split(fuzzData(bytes, size), fallback: "venue.geojson")), venueID: "fuzz", location: "fuzz")
    return 0
}

@_cdecl("FuzzGeoJSON_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.main(argc, argv, fuzzOne)
}
