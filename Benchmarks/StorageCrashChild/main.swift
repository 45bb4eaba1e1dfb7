// A child process for the storage reliability tests (Tests/StorageTests): it opens a device on
// a file store and writes until it is killed or done, printing one line per acknowledged
// (committed) change, so the parent can check that nothing acknowledged is ever lost.
//
//   StorageCrashChild stream <storage id> <key>=<value>...    counters, items, biometric failures, forever
//   StorageCrashChild increment <count> <storage id> <key>=<value>...   <count> read-modify-write increments
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

let arguments = CommandLine.arguments.dropFirst()
do {
    switch arguments.first {
    case "stream":
        try await stream(storageSelection(arguments.dropFirst()))
    case "increment":
        guard let count = arguments.dropFirst().first.flatMap(Int.init) else { fail("increment needs a count") }
        let (authenticator, _) = try openDevice(storageSelection(arguments.dropFirst(2)))
        for _ in 0..<count { acknowledge("counter \(try increment(authenticator.device.storage))") }
    default:
        fail("usage: StorageCrashChild stream|increment ...")
    }
} catch {
    fail("error: \(error)")
}
