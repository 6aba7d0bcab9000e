import Foundation
import FuzzSupport
import VenueFormats

// libFuzzer entry point; see FuzzSupport for how a normal build links this target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // One thread: libFuzzer wants the input handled on its own thread.
    var reader = IMDFReader(limits: ArchiveLimits(maxUncompressedBytes: 1 << 24, maxEntries: 100), threads: 1)
    _ = try? reader.read(MemoryBundle(FuzzFiles.split(fuzzData(bytes, size), fallback: "manifest.json")))
    return 0
}

@_cdecl("FuzzIMDF_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.main(argc, argv, fuzzOne)
}
