// A child process for the storage reliability tests (Tests/StorageTests): it opens a device on
// a file store and writes until it is killed or done, printing one line per acknowledged
// (committed) change, so the parent can check that nothing acknowledged is ever lost.
//
//   StorageCrashChild stream <storage id> <key>=<value>...    counters, items, biometric failures, forever
//   StorageCrashChild increment <count> <storage id> <key>=<value>...   <count> read-modify-write increments
//   StorageCrashChild wave <name> <failures> <items> <storage id> <key>=<value>...
//       opens the device, prints "ready", waits for a line on stdin, then runs <failures>
//       biometric evaluations that fail one match each ("fail <error code>") and
//       adds <items> keychain items ("item <name>-<n>"), and exits (closing the store)
import Foundation
import TouchstoneBuiltins

let counterKey = RecordKey("crash", "counter")

func acknowledge(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

func storageSelection(_ arguments: ArraySlice<String>) -> PluginSelection {
    guard let id = arguments.first else { fail("missing storage id") }
    var options: [String: String] = [:]
    for pair in arguments.dropFirst() {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { fail("bad option \(pair)") }
        options[parts[0]] = parts[1]
    }
    return PluginSelection(id, options: options)
}

func openDevice(_ storage: PluginSelection) throws -> (Authenticator, ScriptedInteraction) {
    var composition = Composition()
    composition.seed = 7
    composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
    composition.storage = storage
    let user = ScriptedInteraction()
    return (try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(interaction: user), user)
}

func increment(_ storage: any StorageBackend) throws -> Int {
    try storage.transaction { transaction -> Int in
        let current = try transaction.read(counterKey).flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } ?? 0
        transaction.put(Record(key: counterKey, value: Data(String(current + 1).utf8)))
        return current + 1
    }
}

func stream(_ selection: PluginSelection) async throws {
    let (authenticator, user) = try openDevice(selection)
    let device = authenticator.device
    let biometrics = try authenticator.policy(named: "biometrics")
    acknowledge("open")
    while true {
        let n = try increment(device.storage)
        acknowledge("counter \(n)")
        try authenticator.keychain.add("v\(n)", service: "crash", account: "item-\(n)")
        acknowledge("item \(n)")
        if try !device.biometryStatus().isLockedOut {
            user.clear()
            user.enqueue([.noMatch, .cancel])
            _ = try? await authenticator.makeContext().evaluate(biometrics, reason: "crash test")
            acknowledge("bio \(try device.counters.consecutiveBiometricFailures)")
        }
    }
}

/// One process of a multi-process wave: every failed match and every added item is printed
/// once acknowledged, so the parent can compare the store with what was acknowledged.
func wave(name: String, failures: Int, items: Int, _ selection: PluginSelection) async throws {
    let (authenticator, user) = try openDevice(selection)
    let biometrics = try authenticator.policy(named: "biometrics")
    acknowledge("ready")
    _ = readLine()
    for _ in 0..<failures {
        user.clear()
        user.enqueue([.noMatch, .cancel])
        do {
            _ = try await authenticator.makeContext().evaluate(biometrics, reason: "stress")
            acknowledge("fail unexpected-success")
        } catch let error as AuthenticationError {
            acknowledge("fail \(error.code)")
        }
    }
    for index in 0..<items {
        try authenticator.keychain.add("v", service: "stress", account: "\(name)-\(index)")
        acknowledge("item \(name)-\(index)")
    }
}

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "stream":
        try await stream(storageSelection(arguments.dropFirst()))
    case "increment":
        guard let count = arguments.dropFirst().first.flatMap(Int.init) else { fail("increment needs a count") }
        let (authenticator, _) = try openDevice(storageSelection(arguments.dropFirst(2)))
        for _ in 0..<count { acknowledge("counter \(try increment(authenticator.device.storage))") }
    case "wave":
        let rest = Array(arguments.dropFirst())
        guard rest.count >= 4, let failures = Int(rest[1]), let items = Int(rest[2]) else {
            fail("usage: StorageCrashChild wave <name> <failures> <items> <storage id> <options>...")
        }
        try await wave(name: rest[0], failures: failures, items: items, storageSelection(arguments.dropFirst(4)))
    default:
        fail("usage: StorageCrashChild stream|increment|wave ...")
    }
} catch {
    fail("error: \(error)")
}
