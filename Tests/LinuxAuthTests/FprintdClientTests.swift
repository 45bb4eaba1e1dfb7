import Foundation
import InMemoryLogging
import LinuxFprintd
import Logging
import Testing
import Touchstone

/// The fprintd client against a private fprintd with libfprint's virtual reader
/// (scripts/fprint-testenv.sh, started once for the suite). Serialized: one reader.
@Suite(.serialized)
struct FprintdClientTests {
    let environment: FprintTestEnvironment
    let client: FprintdClient

    /// Starts (once) the private daemon and deletes every print, so each test starts empty.
    init() async throws {
        environment = try FprintTestEnvironment.shared.get()
        client = FprintdClient(busAddress: environment.busAddress)
        for finger in try await client.enrolledFingers() {
            try await client.deleteFinger(finger)
        }
    }

    /// Enrolls `finger` by scanning `print` once per stage.
    private func enroll(_ finger: String, print: String) async throws -> (FprintdEnrollResult, [FprintdEnrollEvent]) {
        let events = EventLog()
        async let result = client.enroll(finger: finger, timeout: .seconds(30)) { events.append($0) }
        let stages = try await client.enrollStages()
        try await environment.reader.send(Array(repeating: "SCAN \(print)", count: stages))
        return (try await result, events.all)
    }

    @Test func readerIsListedWithItsName() async throws {
        let devices = try await client.devices()
        #expect(devices.count == 1)
        #expect(try await client.defaultDevice() == devices.first)
        #expect(try await client.deviceName() == "Virtual device for debugging")
        #expect(try await client.enrolledFingers() == [])
    }

    @Test func enrollReportsEveryStageThenLists() async throws {
        let stages = try await client.enrollStages()
        let (result, events) = try await enroll("right-index-finger", print: "print-a")
        #expect(result == .completed)
        #expect(events == (1...stages).map { .stagePassed(stage: $0, of: stages) })
        #expect(try await client.enrolledFingers() == ["right-index-finger"])
        try await client.deleteFinger("right-index-finger")
        #expect(try await client.enrolledFingers() == [])
    }

    @Test func verifyMatchesAndRejects() async throws {
        #expect(try await enroll("right-index-finger", print: "print-a").0 == .completed)

        async let match = client.verify(timeout: .seconds(20))
        try await environment.reader.send("SCAN print-a")
        let matchResult = try await match
        #expect(matchResult == .match(finger: "right-index-finger"))

        async let other = client.verify(timeout: .seconds(20))
        try await environment.reader.send("SCAN print-b")
        let otherResult = try await other
        #expect(otherResult == .noMatch)
    }

    @Test func retryResultsAreNotFailures() async throws {
        #expect(try await enroll("left-thumb", print: "print-a").0 == .completed)
        for (code, result) in [(1, "verify-swipe-too-short"), (2, "verify-finger-not-centered"), (3, "verify-remove-and-retry")] {
            async let retry = client.verify(timeout: .seconds(20))
            try await environment.reader.send("RETRY \(code)")
            let retryResult = try await retry
            #expect(retryResult == .retry(result))
        }
        async let match = client.verify(timeout: .seconds(20))
        try await environment.reader.send("SCAN print-a")
        let matchResult = try await match
        #expect(matchResult == .match(finger: "left-thumb"))
    }

    @Test func verifyWithNothingEnrolledSaysSo() async throws {
        await #expect(throws: FprintdError.noEnrolledPrints) { try await client.verify(timeout: .seconds(20)) }
    }

    @Test func timeoutStopsAndReleases() async throws {
        #expect(try await enroll("right-index-finger", print: "print-a").0 == .completed)
        let started = ContinuousClock.now
        #expect(try await client.verify(timeout: .milliseconds(300)) == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(3))
        // Released: the next verification can claim the reader and match.
        async let match = client.verify(timeout: .seconds(20))
        try await environment.reader.send("SCAN print-a")
        let matchResult = try await match
        #expect(matchResult == .match(finger: "right-index-finger"))
    }

    @Test func cancelDuringAScanStopsAndReleases() async throws {
        #expect(try await enroll("right-index-finger", print: "print-a").0 == .completed)
        let verification = Task { try await client.verify(timeout: .seconds(30)) }
        // The reader's socket answers once the device is claimed: the scan is waiting.
        try await environment.reader.send("SET_SCAN_TYPE swipe")
        let cancelled = ContinuousClock.now
        verification.cancel()
        await #expect(throws: CancellationError.self) { try await verification.value }
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        async let match = client.verify(timeout: .seconds(20))
        try await environment.reader.send("SCAN print-a")
        let matchResult = try await match
        #expect(matchResult == .match(finger: "right-index-finger"))
    }

    @Test func cancelDuringEnrollmentStopsAndReleases() async throws {
        let enrollment = Task { try await client.enroll(finger: "right-thumb", timeout: .seconds(30)) }
        try await environment.reader.send("SCAN print-c")
        enrollment.cancel()
        await #expect(throws: CancellationError.self) { try await enrollment.value }
        #expect(try await client.enrolledFingers() == [])
    }

    @Test func polkitDenyingIsAClearError() async throws {
        try environment.polkit(allow: false)
        defer { _ = try? environment.polkit(allow: true) }
        do {
            _ = try await client.verify(timeout: .seconds(20))
            Issue.record("verify succeeded although polkit refuses")
        } catch let error as FprintdError {
            guard case .permissionDenied = error else {
                Issue.record("expected permissionDenied, got \(error)")
                return
            }
            #expect(error.description.contains("polkit"))
        }
    }

    @Test func unpluggedReaderEndsTheVerificationWithAnError() async throws {
        // Its own daemon: after UNPLUG the reader is gone for good.
        let own = try FprintTestEnvironment.start()
        defer { own.stop() }
        let handler = InMemoryLogHandler()
        let client = FprintdClient(busAddress: own.busAddress, logger: Logger(label: "test") { _ in handler })
        async let enrolled = client.enroll(finger: "right-index-finger", timeout: .seconds(30))
        try await own.reader.send(Array(repeating: "SCAN print-a", count: try await client.enrollStages()))
        #expect(try await enrolled == .completed)
        #expect(handler.entries.isEmpty, "\(handler.entries)")
        async let verification = client.verify(timeout: .seconds(20))
        try await own.reader.send("UNPLUG")
        let result = try await verification
        #expect(result == .deviceError("verify-unknown-error") || result == .disconnected)
        // Releasing a reader that is gone fails: logged (not thrown over the result), naming
        // the call and fprintd's reason.
        let release = try #require(handler.entries.first { $0.metadata["fprintd.call"] == "Release" }, "\(handler.entries)")
        #expect(release.level == .info)
        #expect("\(release.message)".contains("clean-up call failed"))
        #expect(release.error.map { "\($0)" }?.contains("removed") == true, "\(String(describing: release.error))")
    }

    @Test func daemonAbsentIsAClearError() async throws {
        let bare = try FprintTestEnvironment.start(withFprintd: false)
        defer { bare.stop() }
        let client = FprintdClient(busAddress: bare.busAddress)
        do {
            _ = try await client.enrolledFingers()
            Issue.record("listing succeeded without fprintd")
        } catch let error as FprintdError {
            guard case .daemonUnavailable = error else {
                Issue.record("expected daemonUnavailable, got \(error)")
                return
            }
            #expect(error.description.contains("fprintd is not running"))
        }
    }

    @Test func busAbsentIsAClearError() async throws {
        let client = FprintdClient(busAddress: "unix:path=/nonexistent/touchstone/bus")
        do {
            _ = try await client.devices()
            Issue.record("connected to a bus that does not exist")
        } catch let error as FprintdError {
            guard case .busUnavailable = error else {
                Issue.record("expected busUnavailable, got \(error)")
                return
            }
            #expect(error.description.contains("/nonexistent/touchstone/bus"))
        }
    }
}

/// Events reported from the client's operation thread.
final class EventLog: Sendable {
    private let events = Locked<[FprintdEnrollEvent]>([])
    func append(_ event: FprintdEnrollEvent) { events.withLock { $0.append(event) } }
    var all: [FprintdEnrollEvent] { events.withLock { $0 } }
}
