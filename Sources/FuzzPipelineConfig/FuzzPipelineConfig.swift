import Foundation
import FuzzSupport
import Config

// libFuzzer entry point; see FuzzSupport for how a normal build links this target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? PipelineConfig.parse(fuzzData(bytes, size), file: "pipeline.json")
    return 0
}

@_cdecl("FuzzPipelineConfig_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.main(argc, argv, fuzzOne)
}
