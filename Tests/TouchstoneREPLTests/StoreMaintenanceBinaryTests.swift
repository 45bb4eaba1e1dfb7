import Foundation
import Testing
import TestSupport

/// The built `touchstone` executable facing a damaged store (issue 8 §3): it refuses to open the
/// device with the next steps (not a usage error), `--check-store` reports the damage, and
/// `--export-store` salvages the intact records; the damaged file is never written.
@Suite("A damaged store from the command line", .serialized)
struct StoreMaintenanceBinaryTests {
    private func makeDirectory() throws -> URL { try makeScratchDirectory("touchstone-maint") }

    private func writeConfig(_ directory: URL, store: URL) throws -> URL {
        let config = directory.appendingPathComponent("device.json")
        let text = """
        {"app":"com.example.app","clock":"virtual","detector":{"id":"detector.domain-state"},\
        "passcode":{"id":"passcode.sim"},"sensor":{"id":"sim.touchid"},\
        "storage":{"id":"storage.sqlite","options":{"path":"\(store.path)"}}}
        """
        try Data(text.utf8).write(to: config)
        return config
    }

    /// A device store, `device.sqlite` in a new directory, after the binary ran `input` on it.
    private func deviceStore(after input: String) throws -> (binary: URL, directory: URL, store: URL, config: URL) {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        let directory = try makeDirectory()
        let store = directory.appendingPathComponent("device.sqlite")
        let config = try writeConfig(directory, store: store)
        let setup = try Binary.run(binary, ["--config", config.path], input: input)
        #expect(setup.status == 0, "\(setup.output)")
        return (binary, directory, store, config)
    }

    @Test("--export-store onto the store's own -wal, -shm or the store itself is refused, and the store still opens")
    func exportOntoTheStoresOwnFiles() throws {
        let (binary, directory, store, config) = try deviceStore(after: "passcode set 1234\nenroll thumb\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        for suffix in ["-wal", "-shm", ""] {
            let export = try Binary.run(binary, ["--config", config.path, "--export-store", store.path + suffix])
            #expect(export.status == 1, "\(export.output)")
            #expect(export.output.contains("the store's own file"), "\(export.output)")
        }
        let after = try Binary.run(binary, ["--config", config.path], input: "status\nexpect ok\n")
        #expect(after.status == 0, "\(after.output)")
        // A new file whose name merely starts with the store's is an export like any other.
        let beside = try Binary.run(binary, ["--config", config.path, "--export-store", store.path + ".salvaged"])
        #expect(beside.status == 0, "\(beside.output)")
    }

    @Test("--check-store and --export-store on a memory device: there is no store, exit 1 as for a path without one")
    func memoryHasNoStore() throws {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        for flag in [["--check-store"], ["--export-store", "/tmp/touchstone-never-written-\(UUID().uuidString)"]] {
            let run = try Binary.run(binary, ["--memory"] + flag)
            #expect(run.status == 1, "\(flag): \(run.output)")
            #expect(run.output.contains("keeps nothing on disk"), "\(run.output)")
        }
    }

    @Test("a record found damaged mid-script stops the script (exit 1) with the next steps, without --strict: nothing after it runs")
    func damageFoundMidScriptStops() throws {
        let marker = "MARKERVALUE0123456789"
        let (binary, directory, store, config) = try deviceStore(after: "passcode set 1234\nenroll thumb\nkeychain add svc acct \(marker)\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Alter one byte of the item's stored value (base64 in its record): its checksum fails.
        var bytes = try Data(contentsOf: store)
        let needle = Data(Data(marker.utf8).base64EncodedString().utf8)
        let found = try #require(bytes.range(of: needle), "the item's value is in the main file")
        bytes[found.lowerBound] = bytes[found.lowerBound] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try bytes.write(to: store)
        let run = try Binary.run(binary, ["--config", config.path], input: "status\nkeychain get svc acct\nstatus\n")
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("stopped: the device's store is damaged"), "\(run.output)")
        #expect(run.output.contains("--check-store"), "\(run.output)")
        #expect(run.output.components(separatedBy: "biometry:").count == 2, "the status after the damage did not run: \(run.output)")
    }

    @Test("a right whose stored record is damaged stops the script as other damage does (not an authenticationFailed the script goes past)")
    func damagedRightStops() throws {
        let (binary, directory, store, config) = try deviceStore(after: "passcode set 1234\nenroll thumb\nright save rightmarkerxyz\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = try Data(contentsOf: store)
        let found = try #require(bytes.range(of: Data(#""account":"rightmarkerxyz""#.utf8)), "the right's record is in the main file")
        bytes[found.upperBound - 2] ^= 0x01
        try bytes.write(to: store)
        let run = try Binary.run(binary, ["--config", config.path], input: "right authorize rightmarkerxyz thumb\nstatus\n")
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("stopped: the device's store is damaged"), "\(run.output)")
        #expect(!run.output.contains("biometry:"), "the status after the damage did not run: \(run.output)")
    }

    @Test("a damaged store: exit 1 with the next steps, check reports it, export salvages it, the file is unchanged")
    func damagedStoreFromTheCommandLine() throws {
        let (binary, directory, store, config) = try deviceStore(after: "passcode set 1234\nenroll thumb\nkeychain add svc acct secret\n")
        defer { try? FileManager.default.removeItem(at: directory) }

        // A clean store opens and --check-store calls it sound.
        let sound = try Binary.run(binary, ["--config", config.path, "--check-store"])
        #expect(sound.status == 0, "\(sound.output)")
        #expect(sound.output.contains("sound"), "\(sound.output)")
        // A sound store exports whole: exit 0, nothing skipped.
        let whole = directory.appendingPathComponent("whole.sqlite")
        let wholeExport = try Binary.run(binary, ["--config", config.path, "--export-store", whole.path])
        #expect(wholeExport.status == 0, "\(wholeExport.output)")
        #expect(wholeExport.output.contains("exported"), "\(wholeExport.output)")
        #expect(!wholeExport.output.contains("skipped"), "\(wholeExport.output)")

        // Damage the schema page's b-tree header: the store can no longer be opened.
        let handle = try FileHandle(forUpdating: store)
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 90))
        try handle.close()
        let damaged = try Data(contentsOf: store)

        let refused = try Binary.run(binary, ["--config", config.path], input: "status\n")
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("nothing is written to it"), "\(refused.output)")
        #expect(refused.output.contains("--check-store"), "\(refused.output)")
        #expect(refused.output.contains("--export-store"), "\(refused.output)")
        #expect(!refused.output.contains("Usage:"), "a damaged store is not a usage mistake: \(refused.output)")

        let check = try Binary.run(binary, ["--config", config.path, "--check-store"])
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("DAMAGED"), "\(check.output)")

        let rescued = directory.appendingPathComponent("rescued.sqlite")
        let export = try Binary.run(binary, ["--config", config.path, "--export-store", rescued.path])
        #expect(FileManager.default.fileExists(atPath: rescued.path), "\(export.output)")
        // Salvaged, not whole: a script sees exit 1 and the list of what was left behind.
        #expect(export.status == 1, "\(export.output)")
        #expect(export.output.contains("skipped:"), "\(export.output)")

        #expect(try Data(contentsOf: store) == damaged, "the damaged store was written")
        #expect(!FileManager.default.fileExists(atPath: store.path + "-wal"))
    }

    @Test("--export-store with no store at the path says so, not that a store is corrupt, and creates nothing")
    func exportWithoutAStore() throws {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try writeConfig(directory, store: directory.appendingPathComponent("absent.sqlite"))
        let destination = directory.appendingPathComponent("out.sqlite")
        let export = try Binary.run(binary, ["--config", config.path, "--export-store", destination.path])
        #expect(export.status == 1, "\(export.output)")
        #expect(export.output.contains("there is no store at") && !export.output.contains("corrupt"), "\(export.output)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("--check-store / --export-store with a script or --json is a usage error (64) naming the conflict; '-' runs standard input as a script")
    func maintenanceTakesNoScript() throws {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = try writeConfig(directory, store: directory.appendingPathComponent("device.sqlite"))
        let withScript = try Binary.run(binary, ["--config", config.path, "--check-store", "setup.touchstone"])
        #expect(withScript.status == 64, "\(withScript.output)")
        #expect(withScript.output.contains("run no script ('setup.touchstone')"), "\(withScript.output)")
        let withJSON = try Binary.run(binary, ["--config", config.path, "--export-store", directory.appendingPathComponent("o.sqlite").path, "--json"])
        #expect(withJSON.status == 64, "\(withJSON.output)")
        #expect(withJSON.output.contains("--json"), "\(withJSON.output)")
        let dash = try Binary.run(binary, ["--memory", "-"], input: "enroll thumb\nexpect ok\n")
        #expect(dash.status == 0, "\(dash.output)")
        #expect(dash.output.contains("enrolled thumb"), "\(dash.output)")
    }

    @Test("bytes appended past the last page: opening refuses the store, and --check-store calls it damaged too")
    func trailingBytesAreDamage() throws {
        let (binary, directory, store, config) = try deviceStore(after: "enroll thumb\n")
        defer { try? FileManager.default.removeItem(at: directory) }

        let handle = try FileHandle(forUpdating: store)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0, count: 100))
        try handle.close()
        let damaged = try Data(contentsOf: store)

        let refused = try Binary.run(binary, ["--config", config.path], input: "status\n")
        #expect(refused.status == 1, "\(refused.output)")
        let check = try Binary.run(binary, ["--config", config.path, "--check-store"])
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("DAMAGED") && check.output.contains("does not match its"), "\(check.output)")
        #expect(try Data(contentsOf: store) == damaged, "the damaged store was written")
    }
}
