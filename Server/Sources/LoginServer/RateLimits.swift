import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TouchstoneAppAttestFormat

/// The failure limits: every attempt recorded before it is judged (REFERENCE §11).
extension LoginAPI {
    /// Throws 429 with `Retry-After` when `key` has `limit` failures in the window: the quick
    /// refusal while a limit is reached. It decides nothing under concurrency (the count may
    /// change right after); ``recordAttempt(_:_:uncountIfRefused:message:)`` does.
    func checkRateLimit(_ key: String, limit: Int, message: String = APIError.tooManyFailures) async throws {
        let now = clock.now()
        let window = configuration.failureWindow.timeInterval
        let (count, oldest) = try await repository.failures(key: key, since: now.addingTimeInterval(-window))
        try enforceRateLimit(failures: count, oldest: oldest, now: now, limit: limit, message: message)
    }

    /// Records this request as a failure under each key, then judges it against the failures
    /// recorded before it: 429 with `Retry-After` when a key had its limit already. Recorded
    /// first, so of requests made at once no more than a limit's worth get through, on either
    /// backend and across servers. A request refused here is uncounted (it was never tried)
    /// unless `uncountIfRefused` is false (account creation counts every attempt).
    func recordAttempt(_ limits: [(key: String, limit: Int)], _ context: LoginRequestContext, uncountIfRefused: Bool = true,
                       message: String = APIError.tooManyFailures) async throws -> RecordedAttempt {
        let now = clock.now()
        let window = configuration.failureWindow
        let attempt = try await repository.recordAttempt(keys: limits.map(\.key), at: now,
                                                         since: now.addingTimeInterval(-window.timeInterval), window: window)
        do {
            for (limit, earlier) in zip(limits, attempt.earlier) {
                try enforceRateLimit(failures: earlier.count, oldest: earlier.oldest, now: now, limit: limit.limit, message: message)
            }
        } catch {
            if uncountIfRefused { await uncount(attempt, context) }
            throw error
        }
        return attempt
    }

    /// Whether `password` matches `stored`, checked as every password is: the attempt is counted
    /// as a failure under `limits` before the hash runs (429 past them), and uncounted when the
    /// password is right or the hash could not run (no hashing slot: 503).
    func verifyPassword(_ password: String, against stored: String, countingUnder limits: [(key: String, limit: Int)],
                        _ context: LoginRequestContext) async throws -> Bool {
        let attempt = try await recordAttempt(limits, context)
        let hasher = self.hasher
        let matches: Bool
        do {
            matches = try await hashPassword { hasher.verify(password, against: stored) }
        } catch {
            await uncount(attempt, context)
            throw error
        }
        if matches { await uncount(attempt, context) }
        return matches
    }

    /// Removes `attempt`'s failures (it succeeded, or was never tried). When the database does
    /// not answer, they stay counted: the safe side, logged.
    func uncount(_ attempt: RecordedAttempt, _ context: LoginRequestContext) async {
        do {
            try await repository.releaseAttempt(attempt)
        } catch {
            context.logger.warning("an attempt could not be uncounted; it counts as a failure", metadata: ["error": .string("\(error)")])
        }
    }

    /// Throws 429 with `Retry-After` when `failures` (in the window ending `now`) reach `limit`.
    func enforceRateLimit(failures count: Int, oldest: Date?, now: Date, limit: Int,
                          message: String = APIError.tooManyFailures) throws {
        let window = configuration.failureWindow.timeInterval
        guard count >= limit else { return }
        let freeAt = (oldest ?? now).addingTimeInterval(window)
        let seconds = max(1, Int(freeAt.timeIntervalSince(now).rounded(.up)))
        throw APIError(.tooManyRequests, "rate_limited", message, retryAfter: seconds)
    }
}
