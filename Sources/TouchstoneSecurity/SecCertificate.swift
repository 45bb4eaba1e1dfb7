#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

/// An X.509 certificate, as `SecCertificateCreateWithData` makes it from DER. It reads the
/// certificate's names, serial number, validity and public key (``X509Certificate``); it does
/// not judge it (trust is ``SecTrust``'s job). Two certificates are
/// equal when their bytes are, as `CFEqual` compares them on iOS.
public final class SecCertificate: Sendable, Hashable, CustomStringConvertible {
    let certificate: X509Certificate

    init(_ certificate: X509Certificate) {
        self.certificate = certificate
    }

    /// Equal when the DER bytes are.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool {
        lhs.certificate.der == rhs.certificate.der
    }

    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate.der)
    }

    /// `<cert(…)> s: <subject summary> i: …`, close to Apple's debug description.
    public var description: String {
        "<cert(\(Unmanaged.passUnretained(self).toOpaque()))> s: \(subjectSummary ?? "") i: \(issuerSummary)"
    }

    /// `SecCertificateCopySubjectSummary`, as Apple's `SecCertificate.c` makes it: of the
    /// subject's common names, else organizational units, else organizations, else other
    /// attributes, the values of the first kind present, last first, joined by ", " (a
    /// description attribute follows common names in parentheses); without a common name, the
    /// first e-mail address or else the first DNS name of the certificate wins (a subjectAltName
    /// dNSName entry that reads as one, ``isDNSName(_:)``); nil when there is nothing.
    var subjectSummary: String? {
        let attributes = certificate.subjectAttributes
        func rank(_ oid: String) -> Int {
            switch oid {
            case X509Certificate.commonName: 4
            case X509Certificate.organizationalUnit: 3
            case X509Certificate.organization: 2
            default: 1  // any other attribute, a description among them
            }
        }
        let best = attributes.map { rank($0.oid) }.max() ?? 0
        let values = attributes.filter { rank($0.oid) == best && best > 0 }.map(\.value)
        var summary = values.isEmpty ? nil : values.reversed().joined(separator: ", ")
        let descriptions = certificate.subjectValues(X509Certificate.descriptionAttribute)
        if best == 4, let summaryText = summary, !descriptions.isEmpty {
            summary = "\(summaryText) (\(descriptions.reversed().joined(separator: ", ")))"
        }
        if best < 4, let other = certificate.emailAddresses.first ?? certificate.alternativeDNSNames.first(where: Self.isDNSName) {
            summary = other
        }
        return summary
    }

    /// Whether `name` reads as a DNS name, as Apple's `SecFrameworkIsDNSName` (`SecCertificate.c`)
    /// decides which dNSName entries count: at most 255 characters; labels of ASCII letters,
    /// digits, `*`, `_` and hyphens (never first or last in a label), at most 63 characters
    /// each, separated by single dots, with no dot at either end; the last label holds a letter
    /// (or `*`). So an IP address written as a dNSName ("127.0.0.1") is not one.
    static func isDNSName(_ name: String) -> Bool {
        enum State { case initial, afterDot, afterAlpha, afterDigit, afterDash }
        let units = Array(name.utf16)
        guard units.count <= 255 else { return false }
        var state = State.initial
        var labelLength = 0
        var labelHasAlpha = false
        for unit in units {
            labelLength += 1
            switch unit {
            case 0x2E:  // "."; counted in the label's length here, as Apple's loop counts it
                guard labelLength <= 64, state == .afterAlpha || state == .afterDigit else { return false }
                state = .afterDot
                labelHasAlpha = false
                labelLength = 0
            case 0x41...0x5A, 0x61...0x7A, 0x2A:  // "A"–"Z", "a"–"z", "*"
                state = .afterAlpha
                labelHasAlpha = true
            case 0x30...0x39:  // "0"–"9"
                state = .afterDigit
            case 0x2D:  // "-"
                guard state == .afterAlpha || state == .afterDigit || state == .afterDash else { return false }
                state = .afterDash
            case 0x5F:  // "_": allowed, but not a letter of the label
                state = .afterAlpha
            default:
                return false
            }
        }
        return labelLength <= 63 && (state == .afterAlpha || state == .afterDigit) && labelHasAlpha
    }

    private var issuerSummary: String {
        certificate.issuerAttributes.last { $0.oid == X509Certificate.commonName }?.value ?? ""
    }

    /// The public key (`SecCertificateCopyKey`): P-256, P-384 or P-521, or RSA; nil for another.
    var publicKey: SecKey? {
        switch certificate.keyAlgorithm {
        case X509Certificate.rsaEncryption:
            return (try? RSAKey(pkcs1: certificate.subjectPublicKey, isPrivate: false)).map { SecKey(.inMemory($0)) }
        case X509Certificate.ecPublicKey:
            switch certificate.keyParameters {
            case "1.2.840.10045.3.1.7":
                guard (try? P256.Signing.PublicKey(x963Representation: certificate.subjectPublicKey)) != nil else { return nil }
                return SecKey(.publicKey(certificate.subjectPublicKey))
            case "1.3.132.0.34", "1.3.132.0.35":
                return (try? CurveKey(x963: certificate.subjectPublicKey, isPrivate: false)).map { SecKey(.inMemory($0)) }
            default: return nil
            }
        default: return nil
        }
    }

    /// `kSecAttrPublicKeyHash`: the SHA-1 of the public key's bytes, which is the
    /// `kSecAttrApplicationLabel` of the matching private key (how iOS pairs an identity).
    var publicKeyHash: Data { Data(Insecure.SHA1.hash(data: certificate.subjectPublicKey)) }
}

/// The type identifier of `SecCertificate`.
public func SecCertificateGetTypeID() -> CFTypeID { CFTypeKind.secCertificate.rawValue }

/// Reads a DER X.509 certificate (not PEM: strip the armour and base64 first, as on iOS); nil
/// when the bytes do not start with one. Bytes after the certificate are ignored, as iOS
/// ignores them (``SecCertificateCopyData(_:)`` gives the certificate alone).
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    (try? X509Certificate(der: data as Data)).map(SecCertificate.init)
}

/// The certificate's DER bytes.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    certificate.certificate.der as CFData
}

/// A short human-readable name for the certificate's subject, as iOS makes it: its common names
/// (the last first, joined by ", "); without one, the first e-mail address or DNS name, else
/// its organizational units or organizations; nil when the certificate names nothing.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.subjectSummary.map { $0 as CFString }
}

/// The subject's last common name in `commonName`; `errSecInternal` (-26276), leaving
/// `commonName` as it was, when the subject has none, as iOS answers.
public func SecCertificateCopyCommonName(_ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>) -> OSStatus {
    guard let last = certificate.certificate.subjectValues(X509Certificate.commonName).last else { return errSecInternal }
    commonName.pointee = last as CFString
    return errSecSuccess
}

/// The certificate's e-mail addresses (the subjectAltName's rfc822Name entries, then the
/// subject's emailAddress attributes, duplicates kept) in `emailAddresses`: an empty array
/// when it has none.
public func SecCertificateCopyEmailAddresses(_ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    emailAddresses.pointee = certificate.certificate.emailAddresses as NSArray
    return errSecSuccess
}

/// The certificate's public key as a `SecKey` (RSA, or EC P-256, P-384, P-521); nil for a key
/// of another kind.
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    certificate.publicKey
}

/// The certificate's public key (deprecated by Apple in iOS 14: use
/// ``SecCertificateCopyKey(_:)``, which this is).
public func SecCertificateCopyPublicKey(_ certificate: SecCertificate) -> SecKey? {
    certificate.publicKey
}

/// The serial number's bytes (the DER INTEGER's content, a leading zero byte included).
public func SecCertificateCopySerialNumberData(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    certificate.certificate.serialNumber as CFData
}

/// The issuer's `Name` as iOS normalizes it (DER, the whole SEQUENCE): PrintableString values
/// upper-cased, their runs of spaces and tabs made one, their ends trimmed; the rest as the
/// certificate has it. nil when the name cannot be read.
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    certificate.certificate.normalizedIssuer.map { $0 as CFData }
}

/// The subject's `Name` as iOS normalizes it (see
/// ``SecCertificateCopyNormalizedIssuerSequence(_:)``).
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    certificate.certificate.normalizedSubject.map { $0 as CFData }
}
#endif
