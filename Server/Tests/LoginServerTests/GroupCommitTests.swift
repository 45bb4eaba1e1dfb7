import Foundation
import GRDB
import Synchronization
import Testing
@testable import LoginServer

/// SQLite's group commit (``SQLiteGroupCommit``): reads and writes that arrive together share one
/// transaction, and each stays atomic on its own.
@Suite("SQLite group commit", .timeLimit(.minutes(1)))
struct GroupCommitTests {
    func withRepository(_ body: (SQLiteLoginRepository) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-group-commit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let repository = try SQLiteLoginRepository(path: folder.appendingPathComponent("login.sqlite").path)
        try await repository.migrate()
        try await body(repository)
    }

    @Test("a step that waited past the limit for its turn (behind a slow batch) fails unavailable without running; later ones run")
    func lateStepsFailWithoutRunning() async throws {
        // The wait is measured on a manual clock: the slow batch moves it 300 ms, so the test
        // holds however slowly a loaded machine schedules it.
        let start = ContinuousClock.now
        let elapsed = Mutex<Duration>(.zero)
        let commit = SQLiteGroupCommit(writer: try DatabaseQueue(), maximumWait: .milliseconds(50),
                                       now: { start + elapsed.withLock { $0 } })
        let ran = Mutex<[String]>([])
        let started = AsyncStream<Void>.makeStream()
        let slow = Task {
            try await commit.write { _ in
                started.continuation.yield()
                // A slow disk: this batch holds the writer for 300 ms once the late step is
                // waiting (a step asked after the batch ended rightly runs).
                while commit.waitingSteps == 0 { Thread.sleep(forTimeInterval: 0.001) }
                elapsed.withLock { $0 += .milliseconds(300) }
                ran.withLock { $0.append("slow") }
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        do {
            try await commit.write { _ in ran.withLock { $0.append("late") } }
            Issue.record("a step that waited 300 ms ran with a 50 ms limit")
        } catch let error as RepositoryError {
            #expect(error.description.contains("waited more than"), "\(error)")
        }
        try await slow.value
        try await commit.write { _ in ran.withLock { $0.append("fresh") } }
        #expect(ran.withLock { $0 } == ["slow", "fresh"])
    }

    @Test("of concurrent inserts, each duplicate fails alone and every other write lands")
    func duplicatesFailAlone() async throws {
        try await withRepository { repository in
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        do {
                            try await repository.createAccount(AccountRecord(
                                profileID: UUID().uuidString, username: "user-\(index % 20)", passwordHash: "x", createdAt: now
                            ))
                            return true
                        } catch RepositoryError.duplicate {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 20)
            for index in 0..<20 {
                #expect(try await repository.account(username: "user-\(index)") != nil)
            }
        }
    }

    @Test("of concurrent redeems of one challenge exactly one starts a session, and it is stored")
    func oneRedeemWins() async throws {
        try await withRepository { repository in
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            try await repository.createAccount(AccountRecord(profileID: "p", username: "u", passwordHash: "x", createdAt: now))
            let key = Array(repeating: UInt8(4), count: 65)
            try await repository.createDevice(DeviceRecord(
                deviceID: "d", profileID: "p", kind: .key, name: "", credentialHash: Array(repeating: 1, count: 32),
                publicKey: key, createdAt: now, lastUsedAt: nil
            ))
            let hash = Array(repeating: UInt8(7), count: 32)
            #expect(try await repository.createChallenge(hash: hash, deviceID: "d", expiresAt: now.addingTimeInterval(60), now: now, requestedBy: "test"))
            let winners = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let token = Array(repeating: UInt8(index), count: 32)
                        let profile = try await repository.redeemChallenge(
                            hash: hash, deviceID: "d", now: now, sessionTokenHash: token, sessionExpiresAt: now.addingTimeInterval(3600)
                        )
                        return profile == nil ? nil : token
                    }
                }
                return try await group.reduce(into: [[UInt8]]()) { if let token = $1 { $0.append(token) } }
            }
            #expect(winners.count == 1)
            let token = try #require(winners.first)
            #expect(try await repository.sessionProfile(tokenHash: token, now: now) == "p")
            #expect(try await repository.device(id: "d")?.lastUsedAt == now)
        }
    }

    @Test("reads batched with concurrent writes see every write committed before them, and never fail the writes")
    func readsJoinTheBatches() async throws {
        try await withRepository { repository in
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            for index in 0..<10 {
                try await repository.createAccount(AccountRecord(profileID: "before-\(index)", username: "before-\(index)", passwordHash: "x", createdAt: now))
            }
            let outcomes = try await withThrowingTaskGroup(of: (written: Bool, found: Int).self) { group in
                for index in 0..<30 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            try await repository.createAccount(AccountRecord(
                                profileID: "new-\(index)", username: "new-\(index)", passwordHash: "x", createdAt: now))
                            return (true, 0)
                        }
                        var found = 0
                        for other in 0..<10 where try await repository.account(username: "before-\(other)") != nil { found += 1 }
                        return (false, found)
                    }
                }
                return try await group.reduce(into: [(written: Bool, found: Int)]()) { $0.append($1) }
            }
            #expect(outcomes.filter(\.written).count == 15)
            #expect(outcomes.filter { !$0.written }.allSatisfy { $0.found == 10 })
            for index in stride(from: 0, to: 30, by: 2) {
                #expect(try await repository.account(username: "new-\(index)")?.profileID == "new-\(index)")
            }
            #expect(try await repository.account(username: "nobody") == nil)
        }
    }
}
