#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing

/// `SecCertificate` (issue 34): certificates pyca/cryptography makes — an implementation we did
/// not write — read back as iOS reads them.
@Suite("SecCertificate, read from certificates pyca makes")
struct SecCertificateTests {
    /// The certificates pyca made, by name, without the "extra" DER blobs.
    func certificates() throws -> [String: [String: Any]] {
        try #require(try IndependentKeyCheck.run(["certificates"]) as? [String: [String: Any]]).filter { $0.key != "extra" }
    }

    @Test("SecCertificateCreateWithData reads RSA, P-256 and P-384 certificates as iOS's SecCertificate.c: the same DER back, the serial number's bytes, the subject summary (every common name, the last first; without one, the first e-mail address), the last common name (errSecInternal without one), the e-mail addresses (subjectAltName, then subject), the issuer and subject names, and the public key as a SecKey")
    func readsWhatPycaMade() throws {
        for (name, facts) in try certificates() {
            let der = try IndependentKeyCheck.bytes(facts["der"])
            let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData), "\(name)")
            #expect(CFGetTypeID(certificate) == SecCertificateGetTypeID())
            #expect(SecCertificateCopyData(certificate) as Data == der)
            #expect(SecCertificateCopySerialNumberData(certificate, nil) as Data? == (try IndependentKeyCheck.bytes(facts["serial"])))
            #expect(SecCertificateCopySubjectSummary(certificate) as String? == facts["summary"] as? String)
            var commonName: CFString? = "untouched" as CFString
            let expectedName = facts["commonName"] as? String
            #expect(SecCertificateCopyCommonName(certificate, &commonName) == (expectedName == nil ? errSecInternal : errSecSuccess))
            #expect(commonName as String? == expectedName ?? "untouched")
            var emails: CFArray?
            #expect(SecCertificateCopyEmailAddresses(certificate, &emails) == errSecSuccess)
            #expect(emails as? [String] == facts["emails"] as? [String])
            #expect(SecCertificateCopyNormalizedSubjectSequence(certificate) as Data? == (try IndependentKeyCheck.bytes(facts["subject"])))
            // The RSA certificate's issuer is a PrintableString "  Touchstone   test ca ": pyca
            // encodes the normalized name iOS makes of it, "TOUCHSTONE TEST CA".
            #expect(SecCertificateCopyNormalizedIssuerSequence(certificate) as Data? == (try IndependentKeyCheck.bytes(facts["normalizedIssuer"])))
            let key = try #require(SecCertificateCopyKey(certificate), "\(name)")
            #expect(SecKeyCopyExternalRepresentation(key, nil) as Data? == (try IndependentKeyCheck.bytes(facts["publicKey"])))
            #expect(SecCertificateCopyPublicKey(certificate) == key)
            #expect(SecCertificateCreateWithData(nil, der as CFData) == certificate)
        }
    }

    @Test("the key of a certificate verifies what its private key signs: a P-256 certificate's key takes the ECDSA algorithms")
    func certificateKeyVerifies() throws {
        let facts = try #require(try certificates()["p256"])
        let certificate = try #require(SecCertificateCreateWithData(nil, try IndependentKeyCheck.bytes(facts["der"]) as CFData))
        let key = try #require(SecCertificateCopyKey(certificate))
        #expect(SecKeyIsAlgorithmSupported(key, .verify, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA256))
    }

    @Test("hostile certificates as Apple's SecCertificateParse takes them: a negative serial and an unreadable non-critical subjectAltName are read (the serial's byte as is, no alternative e-mail); an explicit version 0 or a huge one, an empty extensions list, a 38-byte serial are refused")
    func hostileCertificates() throws {
        let extra = try #require(try IndependentKeyCheck.run(["certificates"])["extra"] as? [String: String])
        func certificate(_ name: String) throws -> SecCertificate? {
            SecCertificateCreateWithData(nil, try IndependentKeyCheck.bytes(extra[name]) as CFData)
        }
        let negative = try #require(try certificate("negativeSerial"))
        #expect(SecCertificateCopySerialNumberData(negative, nil) as Data? == Data([0xFF]))
        let badSAN = try #require(try certificate("badNonCriticalSAN"))
        var emails: CFArray?
        #expect(SecCertificateCopyEmailAddresses(badSAN, &emails) == errSecSuccess && emails as? [String] == ["p256@example.com"])
        for name in ["versionZero", "versionHuge", "emptyExtensions", "longSerial"] {
            #expect(try certificate(name) == nil, "\(name)")
        }
    }

    @Test("SecPolicy: the basic X.509 and SSL policies carry Apple's object identifiers and properties (host name, client side)")
    func policies() {
        let basic = SecPolicyCreateBasicX509()
        #expect(CFGetTypeID(basic) == SecPolicyGetTypeID())
        #expect((SecPolicyCopyProperties(basic) as? [String: Any])?[kSecPolicyOid as String] as? String == "1.2.840.113635.100.1.2")
        let server = SecPolicyCreateSSL(true, "example.com" as CFString)
        let properties = SecPolicyCopyProperties(server) as? [String: Any]
        #expect(properties?[kSecPolicyOid as String] as? String == kSecPolicyAppleSSL as String)
        #expect(properties?[kSecPolicyName as String] as? String == "example.com" && properties?[kSecPolicyClient as String] == nil)
        #expect((SecPolicyCopyProperties(SecPolicyCreateSSL(false, nil)) as? [String: Any])?[kSecPolicyClient as String] as? Bool == true)
        #expect(server == SecPolicyCreateSSL(true, "example.com" as CFString) && server != basic)
    }

    @Test("bytes that do not start with a DER certificate — PEM text, a truncated certificate, nothing — give nil; bytes after a certificate are ignored, as iOS ignores them")
    func refusesOtherBytes() throws {
        let facts = try #require(try certificates()["rsa"])
        let der = try IndependentKeyCheck.bytes(facts["der"])
        let pem = Data(("-----BEGIN CERTIFICATE-----\n" + der.base64EncodedString() + "\n-----END CERTIFICATE-----\n").utf8)
        for bytes in [pem, der.dropLast(10), Data([0x30, 0x03, 0x02, 0x01, 0x00]), Data()] {
            #expect(SecCertificateCreateWithData(nil, Data(bytes) as CFData) == nil)
        }
        let trailing = try #require(SecCertificateCreateWithData(nil, (der + Data([0, 1, 2])) as CFData))
        #expect(SecCertificateCopyData(trailing) as Data == der)
    }

    /// openssl-made certificates without a common name or an e-mail address: subject "O=Org
    /// Inc, L=Town" with the dNSNames "127.0.0.1" then "good.example.com"; subject "O=Bad DNS
    /// Org" with "-bad.example.com" and "example.123".
    static let dnsNamesAfterAnAddress = "MIICDTCCAXCgAwIBAgIDAP8AMAoGCCqGSM49BAMCMCExEDAOBgNVBAoMB09yZyBJbmMxDTALBgNVBAcMBFRvd24wHhcNMjYxMTI5MjEyMDEwWhcNMjYxMjI5MjEyMDEwWjAhMRAwDgYDVQQKDAdPcmcgSW5jMQ0wCwYDVQQHDARUb3duMIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQBP69F5bbNIImnL8cjQlfhSmbmelXq79i5PYuui/Syx7+e1AkGugeutwEhWOIHjpN9L3o7ED6zyfATZbjAlEaw6jABIVngLjJm/3bWWHoPNtrpVbcfj0hK2z5s10ErdCQrDzgLRU7/O8PzZPKl4k29ZqnSfAMfoswUOc1yKu2WQV/GhT6jVDBSMAkGA1UdEwQCMAAwJgYDVR0RBB8wHYIJMTI3LjAuMC4xghBnb29kLmV4YW1wbGUuY29tMB0GA1UdDgQWBBSOBL2GaoAFD2JtRIYh8qs/Fryf5TAKBggqhkjOPQQDAgOBigAwgYYCQR4Ld8XVojbdO+kLk3DDm9IQ9gsdqEQOA2ZvxJfAP7p+Kex2ixlG2I3O1GruWKr6/BWseT69HBDQuJOmb2ngtiLBAkEkrtL9+WENwzQpuXq1MPT7hB3pSTWVZamEvCQakkQow8acM6lB1P4cTSMpa3BgyXBZo4x+qGmujwrK6XZwDX9DGg=="
    static let noDNSNames = "MIIBcTCCARegAwIBAgIBCTAKBggqhkjOPQQDAjAWMRQwEgYDVQQKDAtCYWQgRE5TIE9yZzAeFw0yNjExMjkyMTIwMTBaFw0yNjEyMjkyMTIwMTBaMBYxFDASBgNVBAoMC0JhZCBETlMgT3JnMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEc9DutcDlimhoPxe80OTSMzd2XhJ/UTxD1tTwh9hj4vna/7//QKQnYFYhAffFMdnq4FikC/6n7CiC7rNI8yEkEqNWMFQwCQYDVR0TBAIwADAoBgNVHREEITAfghAtYmFkLmV4YW1wbGUuY29tggtleGFtcGxlLjEyMzAdBgNVHQ4EFgQUD9qw6ig5WaK6cYRiIsGOM/1vYNQwCgYIKoZIzj0EAwIDSAAwRQIhAIYMuoL37FPUmfrEBG/2wKgLN8/kdDjq5dbgI6gWjUw4AiAY+A5OsPFFGtpkYTNhxsJ1F79i7VLWBW975G5smVltHQ=="

    @Test("without a common name or an e-mail address, the subject summary is the first subjectAltName dNSName that reads as a DNS name (SecCertificate.c, SecFrameworkIsDNSName: an address such as 127.0.0.1, a leading hyphen, an all-digit last label are not); with none, the organization")
    func subjectSummarySkipsNamesThatAreNotDNSNames() throws {
        func summary(_ base64: String) throws -> String? {
            let der = try #require(Data(base64Encoded: base64))
            let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
            return SecCertificateCopySubjectSummary(certificate).map { $0 as String }
        }
        #expect(try summary(Self.dnsNamesAfterAnAddress) == "good.example.com")
        #expect(try summary(Self.noDNSNames) == "Bad DNS Org")
    }
}
#endif
