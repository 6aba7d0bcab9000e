import Foundation
import TestSupport
import XCTest

/// Whether a test may skip for a missing tool: never under CI=true, where
/// scripts/setup has installed everything the tests use.
func skipUnlessAvailable(_ ok: Bool, _ reason: String) throws {
    try ExternalTools.skipUnless(ok, needs: reason)
}
