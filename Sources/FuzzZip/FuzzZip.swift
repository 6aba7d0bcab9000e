import Foundation
import FuzzSupport
import VenueFormats

// libFuzzer entry point; see FuzzSupport for how a normal build links this target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // libzip reads a file: the input goes to a per-process file in /dev/shm (memory).
    let path = (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()) + "/venuetiles-fuzz-\(getpid()).zip"
    guard FileManager.default.createFile(atPath: path, contents: fuzzData(bytes, size)) else { fatalError("cannot write \(path)") }
    defer { unlink(path) }
    guard let bundle = try? ZipBundle(path: path, limits: ArchiveLimits(maxUncompressedBytes: 1 << 24, maxEntries: 1000)) else { return 0 }
    for name in (try? bundle.fileNames()) ?? [] { _ = try? bundle.read(name) }
    _ = try? detectFormat(path: path, limits: ArchiveLimits(maxUncompressedBytes: 1 << 24, maxEntries: 1000))
    return 0
}

@_cdecl("FuzzZip_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.main(argc, argv, fuzzOne)
}
