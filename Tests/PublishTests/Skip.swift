import Foundation
import XCTest

/// Whether a test may skip for a missing tool: never under CI=true, where
/// scripts/setup has installed everything the tests use.
func skipUnlessAvailable(_ ok: Bool, _ reason: String) throws {
    if ok { return }
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        XCTFail("\(reason) (CI=true: scripts/setup should have installed it)")
        throw XCTSkip(reason)
    }
    print("skipped: \(reason)")
    throw XCTSkip(reason)
}

