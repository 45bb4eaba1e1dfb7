import CSDBus
import Foundation
import Touchstone

/// libsystemd's sd-bus functions, opened with `dlopen` the first time a connection is made
/// (shim.h): the programs that carry the plugin neither link nor load libsystemd until then.
struct SDBus: @unchecked Sendable {
    // @unchecked: the table holds C function pointers only, written once by the loader.
    let functions: ts_sdbus

    /// The loaded library, or why it could not be loaded (kept: the loader runs once).
    static let shared: Result<SDBus, FprintdError> = SystemLibrary.load(ts_sdbus_load)
        .map { SDBus(functions: $0) }
        .mapError { .libraryUnavailable(reason: $0.reason) }
}

/// One sd-bus connection. Not thread-safe (sd-bus is not): it lives on the thread of one
/// fprintd operation and is closed when that operation ends.
final class BusConnection {
    private let sd: ts_sdbus
    private let bus: OpaquePointer
    /// Timeout of one method call, in microseconds.
    private let callTimeout: UInt64

    init(address: String?, callTimeout: Duration) throws {
        var sd = try SDBus.shared.get().functions
        self.sd = sd
        var raw: OpaquePointer?
        let r = address.map { address in address.withCString { ts_bus_open(&sd, $0, &raw) } } ?? ts_bus_open(&sd, nil, &raw)
        guard r >= 0, let raw else {
            throw FprintdError.busUnavailable(
                address: address ?? ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "the system bus",
                reason: String(cString: strerror(-r)))
        }
        bus = raw
        let (seconds, attoseconds) = callTimeout.components
        self.callTimeout = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
    }

    deinit {
        _ = sd.sd_bus_flush_close_unref(bus)
    }

    /// Calls `member` on fprintd's object `path` with string arguments; returns the reply.
    @discardableResult
    func call(_ path: String, _ interface: String, _ member: String, _ arguments: [String] = []) throws -> BusMessage {
        var message: OpaquePointer?
        var sd = self.sd
        var r = sd.sd_bus_message_new_method_call(bus, &message, Fprintd.busName, path, interface, member)
        guard r >= 0, let message else { throw FprintdError.bus(operation: member, reason: String(cString: strerror(-r))) }
        defer { _ = sd.sd_bus_message_unref(message) }
        for argument in arguments {
            r = ts_bus_append_string(&sd, message, CChar(UInt8(ascii: "s")), argument)
            guard r >= 0 else { throw FprintdError.bus(operation: member, reason: String(cString: strerror(-r))) }
        }
        var error = sd_bus_error()
        defer { sd.sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        r = sd.sd_bus_call(bus, message, callTimeout, &error, &reply)
        guard r >= 0, let reply else {
            let name = error.name.map { String(cString: $0) }
            let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-r))
            throw FprintdError(busError: name, message: text, operation: member)
        }
        return BusMessage(reply, sd)
    }

    /// Reads a property through `org.freedesktop.DBus.Properties.Get` (sd-bus's own property
    /// getter failed on fprintd's `scan-type`, LINUX-AUTH.md).
    func property(_ path: String, _ interface: String, _ name: String) throws -> BusMessage {
        let reply = try call(path, "org.freedesktop.DBus.Properties", "Get", [interface, name])
        return reply
    }

    /// Subscribes `collector` to fprintd's device signal `member` on `path`. The returned slot
    /// must be kept alive as long as the subscription is wanted.
    func subscribe(path: String, member: String, collector: SignalCollector) throws -> BusSlot {
        var slot: OpaquePointer?
        let userdata = Unmanaged.passUnretained(collector).toOpaque()
        // Sender is not matched: sd-bus compares it with the unique name locally; the object
        // path and interface identify fprintd's device.
        let r = sd.sd_bus_match_signal(bus, &slot, nil, path, Fprintd.deviceInterface, member, signalHandler, userdata)
        guard r >= 0, let slot else { throw FprintdError.bus(operation: "AddMatch \(member)", reason: String(cString: strerror(-r))) }
        return BusSlot(slot, sd)
    }

    /// Dispatches every queued message; then waits up to `wait` for more.
    func pump(wait: Duration) throws {
        while true {
            let r = sd.sd_bus_process(bus, nil)
            guard r >= 0 else { throw FprintdError.bus(operation: "process", reason: String(cString: strerror(-r))) }
            if r == 0 { break }
        }
        guard wait > .zero else { return }
        let (seconds, attoseconds) = wait.components
        let micros = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
        let r = sd.sd_bus_wait(bus, micros)
        guard r >= 0 || r == -EINTR else { throw FprintdError.bus(operation: "wait", reason: String(cString: strerror(-r))) }
    }
}

/// A match slot; unsubscribes when released.
final class BusSlot {
    private let slot: OpaquePointer
    private let sd: ts_sdbus
    init(_ slot: OpaquePointer, _ sd: ts_sdbus) {
        self.slot = slot
        self.sd = sd
    }
    deinit { _ = sd.sd_bus_slot_unref(slot) }
}

/// A received message (a reply or a signal), read front to back.
final class BusMessage {
    private let message: OpaquePointer
    private var sd: ts_sdbus

    init(_ message: OpaquePointer, _ sd: ts_sdbus) {
        self.message = message
        self.sd = sd
    }
    deinit { _ = sd.sd_bus_message_unref(message) }

    private func check(_ r: Int32, _ what: String) throws {
        guard r >= 0 else { throw FprintdError.bus(operation: "read \(what)", reason: String(cString: strerror(-r))) }
        guard r > 0 else { throw FprintdError.bus(operation: "read \(what)", reason: "the message has no more values") }
    }

    /// The next string-like value (`s`, `o`).
    func string(_ type: Character = "s") throws -> String {
        var value: UnsafePointer<CChar>?
        try check(ts_bus_read_string(&sd, message, CChar(UInt8(ascii: type.unicodeScalars.first ?? "s")), &value), "\(type)")
        return value.map { String(cString: $0) } ?? ""
    }

    /// The next boolean.
    func bool() throws -> Bool {
        var value: Int32 = 0
        try check(ts_bus_read_bool(&sd, message, &value), "b")
        return value != 0
    }

    /// The next `as`.
    func strings() throws -> [String] {
        var strv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let r = sd.sd_bus_message_read_strv(message, &strv)
        guard r >= 0 else { throw FprintdError.bus(operation: "read as", reason: String(cString: strerror(-r))) }
        defer { ts_strv_free(strv) }
        var result: [String] = []
        var index = 0
        while let strv, let item = strv[index] {
            result.append(String(cString: item))
            index += 1
        }
        return result
    }

    /// The next `ao`.
    func objectPaths() throws -> [String] {
        try check(sd.sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "o"), "ao")
        var result: [String] = []
        while true {
            var value: UnsafePointer<CChar>?
            let r = ts_bus_read_string(&sd, message, CChar(UInt8(ascii: "o")), &value)
            guard r >= 0 else { throw FprintdError.bus(operation: "read ao", reason: String(cString: strerror(-r))) }
            guard r > 0, let value else { break }
            result.append(String(cString: value))
        }
        _ = sd.sd_bus_message_exit_container(message)
        return result
    }

    /// The next variant holding a string.
    func variantString() throws -> String {
        try check(sd.sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), "s"), "v(s)")
        defer { _ = sd.sd_bus_message_exit_container(message) }
        return try string()
    }

    /// The next variant holding an int32.
    func variantInt32() throws -> Int32 {
        try check(sd.sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), "i"), "v(i)")
        defer { _ = sd.sd_bus_message_exit_container(message) }
        var value: Int32 = 0
        try check(ts_bus_read_int32(&sd, message, &value), "i")
        return value
    }

    /// The member name (for signals).
    var member: String {
        sd.sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
    }
}

/// Signals received on one connection, in arrival order. Touched only from the connection's
/// thread (sd-bus calls the handler from `sd_bus_process`).
final class SignalCollector {
    struct Signal {
        var member: String
        var result: String
        var done: Bool
    }

    var signals: [Signal] = []
    /// Set when reading a signal failed; the operation reports it.
    var readError: (any Error)?

    func take() -> [Signal] {
        defer { signals.removeAll() }
        return signals
    }
}

/// The sd-bus handler for fprintd's device signals: `(s)` for VerifyFingerSelected, `(sb)` for
/// VerifyStatus and EnrollStatus.
private let signalHandler: sd_bus_message_handler_t = { message, userdata, _ in
    // sd-bus keeps its own reference; BusMessage drops the one taken here.
    // A handler runs only on a connection, so the library is loaded.
    guard let message, let userdata, case .success(let library) = SDBus.shared,
          let reference = library.functions.sd_bus_message_ref(message) as OpaquePointer? else { return 0 }
    let collector = Unmanaged<SignalCollector>.fromOpaque(userdata).takeUnretainedValue()
    let wrapped = BusMessage(reference, library.functions)
    do {
        let member = wrapped.member
        let result = try wrapped.string()
        let done = member == "VerifyFingerSelected" ? false : try wrapped.bool()
        collector.signals.append(.init(member: member, result: result, done: done))
    } catch {
        collector.readError = error
    }
    return 0
}
