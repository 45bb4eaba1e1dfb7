#if !canImport(Darwin)
import Dispatch
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// The synchronous Apple-shaped calls block their thread while the engine works, as iOS's do
/// while `securityd` answers. Called from many tasks at once, they must not wait for each other.
@Suite("Blocking calls from Swift concurrency")
struct BlockingCallTests {
    @Test("sync SecItem reads that evaluate biometry, from more tasks at once than the concurrency pool has threads, all finish")
    func manyBlockingCallsAtOnce() throws {
        // Each task has its own device (evaluations on one device would cancel each other), and
        // each read of its biometry-protected item runs an evaluation inside the blocking call.
        let calls = 64
        let devices = try (0..<calls).map { _ in try TestDevice() }
        for device in devices {
            device.user.enqueue(.present("thumb"))
            let added = LocalAuthenticationSystem.withAuthenticator(device.authenticator) {
                ConformanceDomainStateKeychainTests.add([.biometryAny], value: "secret")
            }
            #expect(added == errSecSuccess)
        }
        let finished = DispatchSemaphore(value: 0)
        let results = Collected()
        for device in devices {
            let authenticator = device.authenticator
            Task.detached {
                let (_, value) = LocalAuthenticationSystem.withAuthenticator(authenticator) { ConformanceDomainStateKeychainTests.read() }
                results.values.withLock { $0.append(value) }
                finished.signal()
            }
        }
        // A deadlock would leave every pool thread blocked: the watchdog is a timed wait of this
        // thread, which needs no other. Nor can the test library report a failure then (it
        // needs the pool too), so the watchdog ends the process with the reason.
        for _ in 0..<calls {
            guard finished.wait(timeout: .now() + 120) == .success else {
                let done = results.values.withLock { $0.count }
                FileHandle.standardError.write(Data(
                    "BlockingCallTests: the blocking calls waited for each other: \(done) of \(calls) finished\n".utf8))
                exit(1)
            }
        }
        #expect(results.values.withLock { $0 } == Array(repeating: "secret", count: calls))
    }

    @Test("a sync SecItem read whose evaluation waits for the person finishes when another thread answers")
    func blockingCallWaitsForAnAnswer() throws {
        let device = try TestDevice()
        let added = LocalAuthenticationSystem.withAuthenticator(device.authenticator) {
            ConformanceDomainStateKeychainTests.add([.biometryAny], value: "secret")
        }
        #expect(added == errSecSuccess)
        device.user.waitsForActions = true
        let finished = DispatchSemaphore(value: 0)
        let results = Collected()
        let authenticator = device.authenticator
        // The calling thread runs the engine's work; the answer resumes it from this thread.
        Thread {
            let (_, value) = LocalAuthenticationSystem.withAuthenticator(authenticator) { ConformanceDomainStateKeychainTests.read() }
            results.values.withLock { $0.append(value) }
            finished.signal()
        }.start()
        var polls = 0
        while !device.user.isWaitingForAction {
            polls += 1
            guard polls < 50_000_000 else { Issue.record("the read never showed its prompt"); return }
            sched_yield()
        }
        #expect(results.values.withLock { $0.isEmpty })
        device.user.enqueue(.present("thumb"))
        guard finished.wait(timeout: .now() + 120) == .success else {
            FileHandle.standardError.write(Data("BlockingCallTests: the answered read never returned\n".utf8))
            exit(1)
        }
        #expect(results.values.withLock { $0 } == ["secret"])
    }

    /// What the tasks read.
    final class Collected: Sendable {
        let values = Locked<[String?]>([])
    }
}
#endif
