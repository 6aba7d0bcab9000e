import Foundation
import Threads
import XCTest

/// `Workers.stream`: every index once, ranges delivered whole and in order,
/// workers kept within `ahead` ranges, a failed delivery stops the work.
final class WorkersTests: XCTestCase {
    /// Ends of ranges of uneven sizes (1 to 13) covering 0..<count.
    func ends(_ count: Int) -> [Int] {
        var e = [Int](), i = 0, k = 0
        while i < count { k += 1; i = min(count, i + 1 + (k * 7) % 13); e.append(i) }
        return e
    }

    func testDeliversEveryRangeInOrderWithItsResults() throws {
        for workers in [1, 2, 3, 8] {
            for count in [1, 2, 5, 100, 1000] {
                let e = ends(count)
                var delivered = [Range<Int>](), values = [Int]()
                try Workers.stream(count, workers: workers, ends: e, placeholder: -1) { _, i in
                    // Uneven work, so workers finish out of order.
                    if i % 7 == 0 { usleep(UInt32(i % 3) * 50) }
                    return i * i
                } deliver: { range, results in
                    delivered.append(range)
                    values += results
                }
                XCTAssertEqual(delivered.map(\.upperBound), e, "workers \(workers), count \(count)")
                XCTAssertEqual(delivered.first?.lowerBound, 0)
                XCTAssertEqual(values, (0..<count).map { $0 * $0 }, "workers \(workers), count \(count)")
            }
        }
    }

    func testEmptyDeliversNothing() throws {
        var calls = 0
        try Workers.stream(0, workers: 2, ends: [], placeholder: 0) { _, _ in 1 } deliver: { _, _ in calls += 1 }
        XCTAssertEqual(calls, 0)
    }

    func testWorkersStayWithinAheadRangesOfDelivery() throws {
        let count = 400, e = Array(stride(from: 10, through: count, by: 10))
        let lock = NSLock()
        var started = [Int]()
        var furthest = -1   // the highest range any worker has started
        var violations = [String]()
        try Workers.stream(count, workers: 4, ends: e, ahead: 2, placeholder: 0) { _, i in
            lock.lock(); started.append(i); furthest = max(furthest, i / 10); lock.unlock()
            return i
        } deliver: { range, _ in
            // Range r is handed over, r + 1 is not: ranges up to r + ahead may have started, none beyond.
            let r = range.lowerBound / 10
            lock.lock()
            if furthest > r + 2 { violations.append("range \(furthest) started while delivering \(r)") }
            lock.unlock()
            // A slow consumer: without the bound the workers would run to the end.
            usleep(300)
        }
        XCTAssertEqual(violations, [])
        XCTAssertEqual(started.sorted(), Array(0..<count))
    }

    struct Stop: Error {}

    func testAThrowingDeliveryStopsTheWorkersAndRethrows() {
        let count = 10_000
        let lock = NSLock()
        var done = 0
        XCTAssertThrowsError(try Workers.stream(count, workers: 2, ends: Array(stride(from: 100, through: count, by: 100)),
                                                placeholder: 0, { _, i in
            lock.lock(); done += 1; lock.unlock()
            return i
        }, deliver: { range, _ in
            if range.lowerBound == 200 { throw Stop() }
        })) { XCTAssertTrue($0 is Stop) }
        // Ranges 0...2 were delivered or being delivered; at most `ahead` more were started.
        lock.lock(); defer { lock.unlock() }
        XCTAssertLessThanOrEqual(done, 500)
    }
}

/// `Locked`: every update of the shared value lands, from any number of threads.
final class LockedTests: XCTestCase {
    func testUpdatesFromSeveralThreadsAllLand() {
        let total = Locked([Int: Int]())
        DispatchQueue.concurrentPerform(iterations: 4) { w in
            for i in 0..<5_000 { total.withLock { $0[i % 17, default: 0] += w + 1 } }
        }
        let sums = total.withLock { $0 }
        XCTAssertEqual(sums.count, 17)
        XCTAssertEqual(sums.values.reduce(0, +), 5_000 * (1 + 2 + 3 + 4))
    }
}
