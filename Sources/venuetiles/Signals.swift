import Dispatch
import Foundation
import Pipeline

/// SIGINT and SIGTERM (Ctrl-C, a batch scheduler's time limit) ask the build to
/// stop: it winds down at the next batch or stage, puts the output folder back
/// as the last complete build left it, releases the lock and exits with 130 or
/// 143. A second signal exits at once (the next build finishes the job then).
final class StopOnSignals {
    private var sources: [DispatchSourceSignal] = []

    init(_ cancellation: Cancellation) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler {
                if cancellation.signal != nil { _exit(128 + sig) }
                cancellation.request(signal: sig)
                FileHandle.standardError.write(Data("\nstopping (signal \(sig)): putting the output folder back; a second signal exits at once\n".utf8))
            }
            s.resume()
            sources.append(s)
        }
    }

    deinit { sources.forEach { $0.cancel() } }
}
