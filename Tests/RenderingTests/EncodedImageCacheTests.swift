import Dispatch
import Foundation
import Rendering
import XCTest

/// The encoded-image cache shared by render workers: under contention every
/// lookup returns the bytes stored for its key or nothing, and hits are
/// counted exactly. Run under `scripts/test --sanitize thread`, this is the
/// case ThreadSanitizer once reported (two workers inside the cache's lock).
final class EncodedImageCacheTests: XCTestCase {
    func testWorkersShareTheCache() {
        let cache = EncodedImageCache()
        let hasher = EncodedImageCache.ImageHasher()
        // 64 distinct 2×2 images; their file is the image's own words, so a lookup can be checked.
        let images = (0..<64).map { i in [UInt32](repeating: 0xFF00_0000 | UInt32(i), count: 4) }
        let keys = images.map { px in px.withUnsafeBufferPointer { hasher.key($0, width: 2, height: 2, rowWords: 2) } }
        let files = images.map { px in px.withUnsafeBytes { Data($0) } }
        let workers = 4, rounds = 2_000
        let found = UnsafeMutableBufferPointer<Int>.allocate(capacity: workers)
        let wrong = UnsafeMutableBufferPointer<Int>.allocate(capacity: workers)
        defer { found.deallocate(); wrong.deallocate() }
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var f = 0, bad = 0
            for r in 0..<rounds {
                let k = (r * 7 + w * 13) % images.count
                if let d = cache.file(for: keys[k]) {
                    f += 1
                    if d != files[k] { bad += 1 }
                } else {
                    cache.insert(files[k], for: keys[k])
                }
            }
            found[w] = f; wrong[w] = bad
        }
        XCTAssertEqual(wrong.reduce(0, +), 0, "a lookup returned another key's bytes")
        XCTAssertEqual(cache.hits, found.reduce(0, +))
        // Each key misses at least once (its first lookup) and at most once per worker.
        XCTAssertGreaterThanOrEqual(cache.hits, workers * rounds - workers * images.count)
    }

    /// Emptied between venues, the cache's budget is free again: what it holds
    /// does not add up over a build's venues.
    func testRemoveAllFreesTheBudget() {
        let cache = EncodedImageCache(maxEntryBytes: 8, budgetBytes: 16)
        let hasher = EncodedImageCache.ImageHasher()
        let keys = (0..<3).map { i in [UInt32](repeating: UInt32(i), count: 4).withUnsafeBufferPointer { hasher.key($0, width: 2, height: 2, rowWords: 2) } }
        for k in keys { cache.insert(Data(repeating: 1, count: 8), for: k) }
        XCTAssertNotNil(cache.file(for: keys[1]))
        XCTAssertNil(cache.file(for: keys[2]), "past the budget nothing is added")
        cache.removeAll()
        XCTAssertNil(cache.file(for: keys[0]))
        cache.insert(Data(repeating: 2, count: 8), for: keys[2])
        XCTAssertEqual(cache.file(for: keys[2]), Data(repeating: 2, count: 8))
        XCTAssertEqual(cache.hits, 2, "hits are counted across emptyings")
    }
}
