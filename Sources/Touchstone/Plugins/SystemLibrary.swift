/// Loads a C function table the way the Linux plugins' shims do (`ts_sdbus_load`,
/// `ts_pam_load`): the shim opens the shared object with `dlopen`, fills a table of function
/// pointers and writes the reason into a buffer when it cannot.
package enum SystemLibrary {
    /// Runs `load` on fresh storage for one `Table`; the table, or the loader's reason.
    package static func load<Table>(
        _ load: (UnsafeMutablePointer<Table>, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) -> Result<Table, SystemLibraryError> {
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        defer { table.deallocate() }
        var reason = [CChar](repeating: 0, count: 512)
        let status = reason.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return load(table, base, buffer.count)
        }
        guard status == 0 else {
            return .failure(SystemLibraryError(reason: String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        // The loader filled every field (it returns 0 only then).
        return .success(table.move())
    }
}

/// Why a system library could not be loaded (the dynamic loader's message).
package struct SystemLibraryError: Error, Sendable {
    package let reason: String
}
