#if !canImport(Darwin)
import Foundation

/// The system's OpenSSL 3 `libcrypto` (`libcrypto.so.3`, Debian's libssl3 package), for what
/// swift-crypto does not do: reading PKCS #12 files, whose bags are often encrypted with RC2
/// and triple DES (every file made before OpenSSL 3, and by macOS's Keychain Access). It is
/// opened with dlopen the first time a PKCS #12 file is read (``shared``), and never linked: a program that reads no PKCS #12 file
/// needs no OpenSSL, and a machine without one gets an error naming the library.
///
/// Its calls run in a library context of their own, with OpenSSL's default provider and its
/// legacy one (RC2, and the PKCS #12 key derivation of old files) loaded, made the calling
/// thread's default only for the call (``withContext(_:)``), so the process's other users of
/// the library keep the configuration they had.
final class LibCrypto: @unchecked Sendable {
    // (Sendable by OpenSSL's rules: the functions are plain code, and a library context is
    // safe to share between threads once its providers are loaded, which `init` does before
    // the value is published.)

    /// The shared object opened at run time.
    static let library = "libcrypto.so.3"

    /// The library, opened and set up the first time it is asked for, or why it cannot be.
    static let shared: Result<LibCrypto, LoadError> = Result { () throws(LoadError) in try LibCrypto() }

    /// Why the library cannot be used: the loader's sentence, or the provider that did not load.
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    typealias ContextNew = @convention(c) () -> OpaquePointer?
    typealias ContextSetDefault = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias ProviderLoad = @convention(c) (OpaquePointer?, UnsafePointer<CChar>) -> OpaquePointer?
    typealias DecodePKCS12 = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
    typealias ParsePKCS12 = @convention(c) (OpaquePointer, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>,
                                            UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<OpaquePointer?>) -> Int32
    typealias Free = @convention(c) (OpaquePointer?) -> Void
    typealias Encode = @convention(c) (OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    typealias KeyType = @convention(c) (OpaquePointer) -> Int32
    typealias StackCount = @convention(c) (OpaquePointer?) -> Int32
    typealias StackValue = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    typealias NextError = @convention(c) () -> UInt
    typealias ClearErrors = @convention(c) () -> Void

    let setDefaultContext: ContextSetDefault
    let decodePKCS12: DecodePKCS12
    let parsePKCS12: ParsePKCS12
    let freePKCS12: Free
    let encodeCertificate: Encode
    let freeCertificate: Free
    let encodePrivateKey: Encode
    let keyType: KeyType
    let freeKey: Free
    let stackCount: StackCount
    let stackValue: StackValue
    let freeStack: Free
    let nextError: NextError
    let clearErrors: ClearErrors
    /// The library context the calls run in (see the type's comment).
    private let context: OpaquePointer

    private init() throws(LoadError) {
        // dlopen and dlsym from Swift: the shims' C loader (CDynamicLibrary) fills C structs
        // typed by the system headers, which would need OpenSSL's -dev package to build.
        guard let handle = dlopen(Self.library, RTLD_NOW | RTLD_LOCAL) else {
            throw LoadError(description: dlerror().map { String(cString: $0) } ?? "cannot open \(Self.library)")
        }
        func function<F>(_ name: String, as type: F.Type) throws(LoadError) -> F {
            guard let symbol = dlsym(handle, name) else {
                throw LoadError(description: "\(Self.library) has no \(name) (OpenSSL 3 is needed)")
            }
            return unsafeBitCast(symbol, to: F.self)
        }
        let newContext = try function("OSSL_LIB_CTX_new", as: ContextNew.self)
        setDefaultContext = try function("OSSL_LIB_CTX_set0_default", as: ContextSetDefault.self)
        let loadProvider = try function("OSSL_PROVIDER_load", as: ProviderLoad.self)
        decodePKCS12 = try function("d2i_PKCS12", as: DecodePKCS12.self)
        parsePKCS12 = try function("PKCS12_parse", as: ParsePKCS12.self)
        freePKCS12 = try function("PKCS12_free", as: Free.self)
        encodeCertificate = try function("i2d_X509", as: Encode.self)
        freeCertificate = try function("X509_free", as: Free.self)
        encodePrivateKey = try function("i2d_PrivateKey", as: Encode.self)
        keyType = try function("EVP_PKEY_get_base_id", as: KeyType.self)
        freeKey = try function("EVP_PKEY_free", as: Free.self)
        stackCount = try function("OPENSSL_sk_num", as: StackCount.self)
        stackValue = try function("OPENSSL_sk_value", as: StackValue.self)
        freeStack = try function("OPENSSL_sk_free", as: Free.self)
        nextError = try function("ERR_get_error", as: NextError.self)
        clearErrors = try function("ERR_clear_error", as: ClearErrors.self)
        guard let context = newContext() else { throw LoadError(description: "\(Self.library): OSSL_LIB_CTX_new failed") }
        for provider in ["default", "legacy"] where loadProvider(context, provider) == nil {
            throw LoadError(description: "\(Self.library) cannot load its \(provider) provider (Debian's libssl3 ships it in ossl-modules)")
        }
        self.context = context
    }

    /// Runs `body` with the library context as the calling thread's default, and the thread's
    /// error queue cleared before and after.
    func withContext<T>(_ body: () throws -> T) rethrows -> T {
        clearErrors()
        let previous = setDefaultContext(context)
        defer {
            _ = setDefaultContext(previous)
            clearErrors()
        }
        return try body()
    }

    /// The reasons of the errors OpenSSL queued on this thread, as (library, reason) pairs,
    /// oldest first (OpenSSL 3's packing: the library in bits 23–30, the reason below).
    func queuedErrors() -> [(library: Int, reason: Int)] {
        var errors: [(library: Int, reason: Int)] = []
        while case let code = nextError(), code != 0 {
            errors.append((Int((code >> 23) & 0xFF), Int(code & 0x7F_FFFF)))
        }
        return errors
    }

    /// The DER `encode` writes for `object` (OpenSSL's `i2d_*` calls: asked for the length
    /// first, then written into a buffer of that size); nil when it fails.
    func der(of object: OpaquePointer, _ encode: Encode) -> Data? {
        let length = encode(object, nil)
        guard length > 0 else { return nil }
        var bytes = Data(count: Int(length))
        let written = bytes.withUnsafeMutableBytes { buffer -> Int32 in
            var cursor = buffer.bindMemory(to: UInt8.self).baseAddress
            return encode(object, &cursor)
        }
        return written == length ? bytes : nil
    }
}

#endif
