import Foundation
import FuzzSupport
@_spi(Fuzzing) import VenueFormats

// libFuzzer entry point; see FuzzSupport for how a normal build links this target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? fuzzParseJSON(fuzzData(bytes, size))
    return 0
}

@_cdecl("FuzzJSON_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.main(argc, argv, fuzzOne)
}
