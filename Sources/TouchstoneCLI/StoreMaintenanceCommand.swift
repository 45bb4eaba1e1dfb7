import Foundation
import Touchstone
import TouchstoneBuiltins

/// `touchstone --check-store` and `--export-store FILE`: look at (or salvage) a device's store
/// without opening it as a device, so a damaged store is never written to.
enum StoreMaintenanceCommand {
    /// Runs the check and/or the export; returns the exit status: 1 when damage was found, the
    /// store could not be read, there is no store (also for a store kind that keeps none), or
    /// the export failed or left something behind; 2 when the configuration cannot be read.
    static func run(storage: PluginSelection, check: Bool, exportTo destination: String?) -> Int32 {
        let maintenance: (type: any StorageMaintenance.Type, options: PluginOptions)?
        do {
            maintenance = try PluginRegistry.builtIn.maintenance(for: storage)
        } catch {
            printError("\(error)")
            return 2
        }
        guard let (type, options) = maintenance else {
            // No store on disk: exit 1, as for a path with no store (REPL.md).
            printError(storage.id == "storage.memory"
                ? "storage.memory keeps nothing on disk: there is no store to check or export"
                : "\(storage.id) has no store check or export")
            return 1
        }
        var status: Int32 = 0
        if check {
            let report = type.check(options: options)
            if report.isMissing {
                print("store \(report.location): there is no store at this path (nothing to check). "
                    + "Give the same --config the device uses.")
                return 1  // nor anything to export
            } else if let reason = report.unreadable {
                // The reason says what to do (the key to check, the lock to wait for).
                print("store \(report.location): cannot be read: \(UsageError.escapingUnprintable(reason))")
                print("Nothing shows the store damaged, and the file was not changed.")
                status = 1
            } else if report.isSound {
                print("store \(report.location): sound (\(report.intactRecords) records intact)")
                for note in report.notes { print("  note: \(UsageError.escapingUnprintable(note))") }
            } else {
                print("store \(report.location): DAMAGED (\(report.intactRecords) records intact)")
                for problem in report.problems { print("  - \(UsageError.escapingUnprintable(problem))") }
                for note in report.notes { print("  note: \(UsageError.escapingUnprintable(note))") }
                print("The store was not changed. Salvage what is intact with: touchstone --export-store NEW-FILE (with the same --config)")
                status = 1
            }
        }
        if let destination {
            do {
                let report = try type.export(options: options, to: destination)
                print("exported \(report.copied) intact records to \(report.destination)")
                for skipped in report.skipped { print("  skipped: \(UsageError.escapingUnprintable(skipped))") }
                if !report.skipped.isEmpty {
                    print("What was skipped starts from its defaults in the new store: a skipped device state means a new device "
                        + "(no passcode, a new secret: keys and items bound to biometry or the passcode no longer open); "
                        + "skipped device counters are replaced by counters that lock biometry out until the passcode is entered; "
                        + "a skipped sensor record means nothing enrolled; skipped keychain items and keys are gone.")
                    // The new store is usable, but not everything made it: a script must notice.
                    status = 1
                }
            } catch {
                printError("export failed: \(error)")
                status = 1
            }
        }
        return status
    }

    /// What to tell a user whose device did not open because its store is damaged.
    static func advice(for error: any Error, storage: PluginSelection) -> String {
        guard let error = error as? StorageError else { return "" }
        switch error {
        case .corruptStore, .corruptRecord:
            return "\nSee what is damaged with: touchstone --check-store; copy what is intact to a new store with: touchstone --export-store NEW-FILE (add the same --config)."
        case .ioFailure:
            return ""
        }
    }

    /// Prints `text` as an error; what a damaged store holds (a record's key) never reaches the
    /// terminal raw.
    private static func printError(_ text: String) {
        FileHandle.standardError.write(Data(("error: " + UsageError.escapingUnprintable(text, keeping: ["\n"]) + "\n").utf8))
    }
}
