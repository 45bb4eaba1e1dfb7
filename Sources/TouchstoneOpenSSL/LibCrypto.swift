#if !canImport(Darwin)
import Foundation

/// The system's OpenSSL 3 `libcrypto` (`libcrypto.so.3`, Debian's libssl3 package), for what
/// swift-crypto does not do: reading PKCS #12 files, whose bags are often encrypted with RC2
/// and triple DES (every file made before OpenSSL 3, and by macOS's Keychain Access), and the
/// ciphers before AES that CommonCrypto still offers (``Cipher``). It is opened with dlopen the
/// first time one of those is needed (``shared``), and never linked: a program that needs
/// neither needs no OpenSSL, and a machine without one gets an error naming the library.
///
/// Its calls run in a library context of their own, with OpenSSL's default provider and its
/// legacy one (DES, CAST, RC2, RC4, Blowfish, and the PKCS #12 key derivation of old files)
/// loaded: ciphers are fetched from it, and a PKCS #12 file is read with it as the calling
/// thread's default only for the call (``withContext(_:)``), so the process's other users of
/// the library keep the configuration they had.
package final class LibCrypto: @unchecked Sendable {
    // (Sendable by OpenSSL's rules: the functions are plain code, and a library context is
    // safe to share between threads once its providers are loaded, which `init` does before
    // the value is published.)

    /// The shared object opened at run time.
    package static let library = "libcrypto.so.3"

    /// The library, opened and set up the first time it is asked for, or why it cannot be.
    package static let shared: Result<LibCrypto, LoadError> = Result { () throws(LoadError) in try LibCrypto() }

    /// Why the library cannot be used: the loader's sentence, or the provider that did not load.
    package struct LoadError: Error, CustomStringConvertible {
        package let description: String
    }

    package typealias ContextNew = @convention(c) () -> OpaquePointer?
    package typealias ContextSetDefault = @convention(c) (OpaquePointer?) -> OpaquePointer?
    package typealias ProviderLoad = @convention(c) (OpaquePointer?, UnsafePointer<CChar>) -> OpaquePointer?
    package typealias DecodePKCS12 = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
    package typealias ParsePKCS12 = @convention(c) (OpaquePointer, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>,
                                            UnsafeMutablePointer<OpaquePointer?>, UnsafeMutablePointer<OpaquePointer?>) -> Int32
    package typealias Free = @convention(c) (OpaquePointer?) -> Void
    package typealias Encode = @convention(c) (OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    package typealias KeyType = @convention(c) (OpaquePointer) -> Int32
    package typealias StackCount = @convention(c) (OpaquePointer?) -> Int32
    package typealias StackValue = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    package typealias NextError = @convention(c) () -> UInt
    package typealias ClearErrors = @convention(c) () -> Void
    package typealias CipherFetch = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafePointer<CChar>?) -> OpaquePointer?
    package typealias CipherContextNew = @convention(c) () -> OpaquePointer?
    package typealias CipherInit = @convention(c) (OpaquePointer, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?,
                                                   Int32, OpaquePointer?) -> Int32
    package typealias CipherSetInt = @convention(c) (OpaquePointer, Int32) -> Int32
    package typealias CipherUpdate = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>,
                                                     UnsafePointer<UInt8>?, Int32) -> Int32

    package let setDefaultContext: ContextSetDefault
    package let decodePKCS12: DecodePKCS12
    package let parsePKCS12: ParsePKCS12
    package let freePKCS12: Free
    package let encodeCertificate: Encode
    package let freeCertificate: Free
    package let encodePrivateKey: Encode
    package let keyType: KeyType
    package let freeKey: Free
    package let stackCount: StackCount
    package let stackValue: StackValue
    package let freeStack: Free
    package let nextError: NextError
    package let clearErrors: ClearErrors
    let fetchCipher: CipherFetch
    let freeCipher: Free
    let newCipherContext: CipherContextNew
    let freeCipherContext: Free
    let initCipher: CipherInit
    let setKeyLength: CipherSetInt
    let setPadding: CipherSetInt
    let updateCipher: CipherUpdate
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
        fetchCipher = try function("EVP_CIPHER_fetch", as: CipherFetch.self)
        freeCipher = try function("EVP_CIPHER_free", as: Free.self)
        newCipherContext = try function("EVP_CIPHER_CTX_new", as: CipherContextNew.self)
        freeCipherContext = try function("EVP_CIPHER_CTX_free", as: Free.self)
        initCipher = try function("EVP_CipherInit_ex2", as: CipherInit.self)
        setKeyLength = try function("EVP_CIPHER_CTX_set_key_length", as: CipherSetInt.self)
        setPadding = try function("EVP_CIPHER_CTX_set_padding", as: CipherSetInt.self)
        updateCipher = try function("EVP_CipherUpdate", as: CipherUpdate.self)
        guard let context = newContext() else { throw LoadError(description: "\(Self.library): OSSL_LIB_CTX_new failed") }
        for provider in ["default", "legacy"] where loadProvider(context, provider) == nil {
            throw LoadError(description: "\(Self.library) cannot load its \(provider) provider (Debian's libssl3 ships it in ossl-modules)")
        }
        self.context = context
    }

    /// Runs `body` with the library context as the calling thread's default, and the thread's
    /// error queue cleared before and after.
    package func withContext<T>(_ body: () throws -> T) rethrows -> T {
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
    package func queuedErrors() -> [(library: Int, reason: Int)] {
        var errors: [(library: Int, reason: Int)] = []
        while case let code = nextError(), code != 0 {
            errors.append((Int((code >> 23) & 0xFF), Int(code & 0x7F_FFFF)))
        }
        return errors
    }

    /// The DER `encode` writes for `object` (OpenSSL's `i2d_*` calls: asked for the length
    /// first, then written into a buffer of that size); nil when it fails.
    package func der(of object: OpaquePointer, _ encode: Encode) -> Data? {
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

extension LibCrypto {
    /// One cipher of the library context, keyed, in one direction, without padding: OpenSSL's
    /// `EVP_CIPHER_CTX`, fed with whole blocks (or any bytes, for a stream cipher such as RC4).
    /// Not for concurrent use, as a CommonCrypto cryptor is not.
    package final class Cipher {
        private let openssl: LibCrypto
        private let context: OpaquePointer

        /// The cipher OpenSSL names `name` (`"DES-EDE3-ECB"`, `"RC4"`...) under `key`, or nil
        /// when it does not take that key.
        package init?(_ name: String, key: UnsafeRawBufferPointer, encrypting: Bool, in openssl: LibCrypto) {
            guard let cipher = openssl.fetchCipher(openssl.context, name, nil) else { return nil }
            defer { openssl.freeCipher(cipher) }  // the context keeps its own reference
            guard let context = openssl.newCipherContext() else { return nil }
            (self.openssl, self.context) = (openssl, context)
            let direction: Int32 = encrypting ? 1 : 0
            guard let keyLength = Int32(exactly: key.count) else { return nil }
            let keyed = key.withMemoryRebound(to: UInt8.self) { key in
                // The cipher first, then the key's length (a variable one is set before the key
                // is), then the key.
                openssl.initCipher(context, cipher, nil, nil, direction, nil) == 1
                    && openssl.setKeyLength(context, keyLength) == 1
                    && openssl.initCipher(context, nil, key.baseAddress, nil, direction, nil) == 1
                    && openssl.setPadding(context, 0) == 1
            }
            guard keyed else { return nil }  // deinit frees the context
        }

        deinit { openssl.freeCipherContext(context) }

        /// `input` enciphered (or deciphered): a block cipher's input is whole blocks.
        package func update(_ input: [UInt8]) -> [UInt8] {
            guard !input.isEmpty, let length = Int32(exactly: input.count) else { return [] }
            var output = [UInt8](repeating: 0, count: input.count)
            var written: Int32 = 0
            let succeeded = output.withUnsafeMutableBufferPointer { output in
                openssl.updateCipher(context, output.baseAddress, &written, input, length) == 1
            }
            return succeeded ? Array(output.prefix(Int(written))) : []
        }
    }
}

#endif
