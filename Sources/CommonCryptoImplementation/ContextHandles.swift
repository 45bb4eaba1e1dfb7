import CommonCrypto
import Touchstone

/// The states of the C contexts in progress (`CC_SHA256_CTX`, `CCHmacContext`, …), by the
/// handle each context holds in its first bytes.
///
/// A C context is a plain struct the caller owns and may copy; swift-crypto's hashers are Swift
/// values that cannot live in its bytes. So `_Init` puts a state in this table and writes its
/// handle, with a tag, into the context; `_Update` finds it there, and `_Final` takes it out.
/// A context with no handle of ours (zeroed, as Swift's `CC_SHA256_CTX()` is, or already
/// finished) starts a fresh state; `_Init` always starts one under a new handle. A copy of a
/// context names the same state (our limit: in C the copy is independent), and a context never
/// finished keeps its entry.
final class ContextHandles<State: Sendable>: Sendable {
    /// "TSCC": this handle is one of ours.
    private static var tag: UInt32 { 0x5453_4343 }

    private let table = Locked<(next: UInt64, states: [UInt64: State])>((1, [:]))

    /// The state `context` holds, if any.
    private func handle(in context: UnsafeMutableRawPointer) -> UInt64? {
        guard context.loadUnaligned(fromByteOffset: 8, as: UInt32.self) == Self.tag else { return nil }
        return context.loadUnaligned(as: UInt64.self)
    }

    private func write(_ handle: UInt64?, into context: UnsafeMutableRawPointer) {
        context.storeBytes(of: handle ?? 0, as: UInt64.self)
        context.storeBytes(of: handle == nil ? 0 : Self.tag, toByteOffset: 8, as: UInt32.self)
    }

    /// Gives `context` the state `state`, under a new handle. The bytes `context` held before
    /// are not read: in C an `_Init` overwrites the whole struct, and memory the caller reuses
    /// without zeroing (a context moved elsewhere, or one abandoned) may still name a state
    /// another live context holds, which must not be taken over. (So a context started twice
    /// without finishing leaves its first entry behind, as one never finished does.)
    func start(_ context: UnsafeMutableRawPointer, with state: State) {
        let handle = table.withLock { table -> UInt64 in
            let handle = table.next
            table.next += 1
            table.states[handle] = state
            return handle
        }
        write(handle, into: context)
    }

    /// Changes the state `context` holds, starting from `fresh` when it holds none. The state is
    /// taken out of the table while it changes: the hashing runs outside the lock, and a state
    /// holding a buffer (SHA-224's message) is changed in place, not copied.
    func update(_ context: UnsafeMutableRawPointer, fresh: State, _ change: (inout State) -> Void) {
        let handle = handle(in: context)
        var state = handle.flatMap { handle in table.withLock { $0.states.removeValue(forKey: handle) } } ?? fresh
        change(&state)
        if let handle {
            table.withLock { $0.states[handle] = state }
            write(handle, into: context)
        } else {
            start(context, with: state)
        }
    }

    /// Ends whatever state `context` holds and clears its handle.
    func clear(_ context: UnsafeMutableRawPointer) {
        if let handle = handle(in: context) { _ = table.withLock { $0.states.removeValue(forKey: handle) } }
        write(nil, into: context)
    }

    /// Takes the state out of `context` (`fresh` when it holds none) and clears its handle.
    func finish(_ context: UnsafeMutableRawPointer, fresh: State) -> State {
        let handle = handle(in: context)
        write(nil, into: context)
        guard let handle else { return fresh }
        return table.withLock { $0.states.removeValue(forKey: handle) } ?? fresh
    }
}
