#!/usr/bin/env python3
"""Checks Touchstone's RSA, P-384 and P-521 SecKeys with pyca/cryptography (an implementation we
did not write), from the virtual environment scripts/pyattest-env.sh makes. RSAKeyTests and
CurveKeyTests run it.

  seckey-check.py make          prints JSON: a new 2048-bit RSA key pair (PKCS#1 DER, base64),
                                and for one message its signatures under every scheme and its
                                ciphertexts under every padding Touchstone supports
  seckey-check.py verify        reads JSON {publicKey, message, signatures: {scheme: b64}} and
                                prints {scheme: true|false}: whether each RSA signature verifies
  seckey-check.py decrypt       reads JSON {privateKey (PKCS#1), ciphertexts: {padding: b64}} and
                                prints {padding: b64 plaintext, or null when it does not decrypt}
  seckey-check.py ec-make CURVE prints JSON: a new P-256, P-384 or P-521 key pair (X9.63: public
                                04||X||Y, private 04||X||Y||K), and for one message its DER
                                ECDSA signature with each hash
  seckey-check.py certificates  prints JSON: self-signed X.509 certificates pyca makes (RSA, P-256,
                                P-384, P-256 without a common name), each with what SecCertificate
                                should read of it: DER, serial-number content bytes, subject and
                                issuer Name DER, public key (PKCS#1 or X9.63), subject summary,
                                e-mail addresses, validity; and its private key (PKCS#1, X9.63)
  seckey-check.py ec-verify     reads JSON {publicKey (X9.63), message, signatures: {hash: b64
                                DER}} and prints {hash: true|false}: whether each ECDSA
                                signature of the message's hash verifies
  seckey-check.py ec-open       reads JSON {privateKey (P-256, P-384 or P-521 X9.63,
                                04||X||Y||K), ciphertexts: {"<hash>[-<form>]": b64}} and prints
                                {name: b64 plaintext, or null}: Apple's ECIES (see ecies_open);
                                a form naming "variableIV" is the variable-IV one
  seckey-check.py ec-x963       reads JSON {privateKey (EC X9.63, as ec-open), peerPublicKey, sharedInfo,
                                size} and prints {hash: b64}: the X9.63 KDF of the ECDH secret
  seckey-check.py sha224        reads JSON {inputs: [b64]} and prints {digests: [b64]}: hashlib's
                                SHA-224 of each
  seckey-check.py pkcs12        prints JSON: PKCS #12 files, each {p12, password, and what
                                SecPKCS12Import should give: leaf DER, chain DERs, private key
                                (PKCS#1 or X9.63)}: pyca's with AES-256-CBC/PBKDF2 and with triple
                                DES, and the openssl command's -legacy one (RC2-40 certificate
                                bags, triple-DES key bag) and one with an empty password; and
                                files without an identity (certificates alone) or with an
                                Ed25519 key

Schemes: pkcs1v15-<hash>, pss-<hash> (salt as long as the hash, as Apple's). A digest-form
signature (Apple's ...Digest...) of the message's digest is the message-form signature of the
message, so verify takes digest-pkcs1v15-<hash> and digest-pss-<hash> as those; raw is the
private operation on a block (the message left-padded to the modulus size), checked here as
pow(s, e, n). Paddings: pkcs1, oaep-<hash>, raw (the block, as above), aesgcm-<hash> (Apple's
RSA-OAEP-then-AES-GCM: see aesgcm_open). Hashes: SHA1, SHA224, SHA256, SHA384, SHA512."""
import base64
import hashlib
import json
import os
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

HASHES = {"SHA1": hashes.SHA1, "SHA224": hashes.SHA224, "SHA256": hashes.SHA256, "SHA384": hashes.SHA384, "SHA512": hashes.SHA512}
MESSAGE = b"touchstone rsa check"


def signature_padding(scheme):
    kind, name = scheme.removeprefix("digest-").split("-")
    digest = HASHES[name]()
    if kind == "pkcs1v15":
        return padding.PKCS1v15(), digest
    return padding.PSS(mgf=padding.MGF1(HASHES[name]()), salt_length=digest.digest_size), digest


def encryption_padding(name):
    if name.startswith("aesgcm-"):
        name = "oaep-" + name.split("-")[1]
    if name == "pkcs1":
        return padding.PKCS1v15()
    digest = HASHES[name.split("-")[1]]
    return padding.OAEP(mgf=padding.MGF1(digest()), algorithm=digest(), label=None)


def b64(data):
    return base64.b64encode(data).decode()


def make():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    schemes = [kind + "-" + name for kind in ("pkcs1v15", "pss") for name in HASHES]
    out = {
        "privateKey": b64(key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL,
                                            serialization.NoEncryption())),
        "publicKey": b64(key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)),
        "spki": b64(key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)),
        "pkcs8": b64(key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())),
        "message": b64(MESSAGE),
        "signatures": {s: b64(key.sign(MESSAGE, *signature_padding(s))) for s in schemes},
        "ciphertexts": {p: b64(key.public_key().encrypt(MESSAGE, encryption_padding(p)))
                        for p in ["pkcs1"] + ["oaep-" + name for name in HASHES]},
    }
    numbers = key.private_numbers()
    size = key.key_size // 8
    out["ciphertexts"]["raw"] = b64(pow(int.from_bytes(block(MESSAGE, size), "big"), numbers.public_numbers.e,
                                        numbers.public_numbers.n).to_bytes(size, "big"))
    for name in HASHES:
        out["ciphertexts"]["aesgcm-" + name] = b64(aesgcm_seal(key.public_key(), name, MESSAGE))
    print(json.dumps(out))


# Apple's RSA AES-GCM layout, as SecKey.h describes it: a 256-bit AES key for a modulus of
# 4096 bits or more, 128 below; an IV of 16 zero bytes; the PKCS#1 public key as associated data.
def AESGCM_KEY_BYTES(modulus_bits):
    return 32 if modulus_bits >= 4096 else 16


AESGCM_IV = bytes(16)


def block(message, size):
    """A raw RSA block: the message left-padded with zeros to the modulus size."""
    return bytes(size - len(message)) + message


def aesgcm_seal(public_key, hash_name, message):
    """Apple's ...OAEPSHA<hash>AESGCM: a fresh AES key wrapped with RSA-OAEP, then the message
    sealed with it under AES-GCM; the layout is in aesgcm_open."""
    session = os.urandom(AESGCM_KEY_BYTES(public_key.key_size))
    wrapped = public_key.encrypt(session, encryption_padding("oaep-" + hash_name))
    return wrapped + AESGCM(session).encrypt(AESGCM_IV, message, pkcs1(public_key))


def aesgcm_open(private_key, hash_name, ciphertext):
    """The reverse of aesgcm_seal: the wrapped key is the first modulus-size bytes, then the
    AES-GCM ciphertext with its 16-byte tag after it."""
    size = private_key.key_size // 8
    session = private_key.decrypt(ciphertext[:size], encryption_padding("oaep-" + hash_name))
    assert len(session) == AESGCM_KEY_BYTES(private_key.key_size), "the AES key is not the size SecKey.h gives"
    return AESGCM(session).decrypt(AESGCM_IV, ciphertext[size:], pkcs1(private_key.public_key()))


def pkcs1(public_key):
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)


def verify():
    request = json.load(sys.stdin)
    # PKCS#1 RSAPublicKey DER, read through its PEM form ("RSA PUBLIC KEY").
    der = base64.b64decode(request["publicKey"])
    key = serialization.load_pem_public_key(
        b"-----BEGIN RSA PUBLIC KEY-----\n" + base64.encodebytes(der) + b"-----END RSA PUBLIC KEY-----\n")
    message = base64.b64decode(request["message"])
    results = {}
    numbers = key.public_numbers()
    for scheme, signature in request["signatures"].items():
        try:
            if scheme == "raw":
                value = pow(int.from_bytes(base64.b64decode(signature), "big"), numbers.e, numbers.n)
                results[scheme] = value == int.from_bytes(message, "big")
                continue
            key.verify(base64.b64decode(signature), message, *signature_padding(scheme))
            results[scheme] = True
        except Exception:
            results[scheme] = False
    print(json.dumps(results))


def decrypt():
    request = json.load(sys.stdin)
    der = base64.b64decode(request["privateKey"])
    key = serialization.load_pem_private_key(
        b"-----BEGIN RSA PRIVATE KEY-----\n" + base64.encodebytes(der) + b"-----END RSA PRIVATE KEY-----\n", password=None)
    results = {}
    numbers = key.private_numbers()
    size = key.key_size // 8
    for name, ciphertext in request["ciphertexts"].items():
        try:
            data = base64.b64decode(ciphertext)
            if name == "raw":
                results[name] = b64(pow(int.from_bytes(data, "big"), numbers.d, numbers.public_numbers.n).to_bytes(size, "big"))
            elif name.startswith("aesgcm-"):
                results[name] = b64(aesgcm_open(key, name.split("-")[1], data))
            else:
                results[name] = b64(key.decrypt(data, encryption_padding(name)))
        except Exception:
            results[name] = None
    print(json.dumps(results))


CURVES = {"P-256": ec.SECP256R1, "P-384": ec.SECP384R1, "P-521": ec.SECP521R1}


def ec_make():
    key = ec.generate_private_key(CURVES[sys.argv[2]]())
    public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    size = (key.curve.key_size + 7) // 8
    scalar = key.private_numbers().private_value.to_bytes(size, "big")
    print(json.dumps({
        "publicKey": b64(public), "privateKey": b64(public + scalar), "message": b64(MESSAGE),
        "signatures": {name: b64(key.sign(MESSAGE, ec.ECDSA(HASHES[name]()))) for name in HASHES},
    }))


def ec_verify():
    request = json.load(sys.stdin)
    der = base64.b64decode(request["publicKey"])
    curve = {97: ec.SECP384R1, 133: ec.SECP521R1, 65: ec.SECP256R1}[len(der)]()
    key = ec.EllipticCurvePublicKey.from_encoded_point(curve, der)
    message = base64.b64decode(request["message"])
    results = {}
    for name, signature in request["signatures"].items():
        try:
            key.verify(base64.b64decode(signature), message, ec.ECDSA(HASHES[name]()))
            results[name] = True
        except Exception:
            results[name] = False
    print(json.dumps(results))


# Apple's X9.63 private key lengths (04 || X || Y || K) and their curves.
PRIVATE_KEY_CURVES = {97: ec.SECP256R1, 145: ec.SECP384R1, 199: ec.SECP521R1}


def ec_private(der):
    """A P-256, P-384 or P-521 private key from Apple's X9.63 form, by its length."""
    curve = PRIVATE_KEY_CURVES[len(der)]()
    coordinate = (len(der) - 1) // 3
    return ec.derive_private_key(int.from_bytes(der[1 + 2 * coordinate:], "big"), curve)


def ecies_open(key, name, ciphertext):
    """Apple's ...X963<hash>AESGCM (SecKeyAdaptors.m): the ephemeral public key (X9.63: 65,
    97 or 133 bytes), the AES-GCM ciphertext, its 16-byte tag. The X9.63 KDF of the ECDH
    secret, shared info the ephemeral key, gives the AES key (16 bytes for P-256, 32 for the
    larger curves) and, for the variable-IV form, then the 16-byte IV (16 zero bytes
    otherwise)."""
    hash_name, _, form = name.partition("-")
    variable_iv = "variableIV" in form
    coordinate = (key.curve.key_size + 7) // 8
    point = 1 + 2 * coordinate
    ephemeral = ec.EllipticCurvePublicKey.from_encoded_point(key.curve, ciphertext[:point])
    secret = key.exchange(ec.ECDH(), ephemeral)
    key_size = 16 if key.curve.key_size <= 256 else 32
    size = key_size + 16 if variable_iv else key_size
    material = X963KDF(algorithm=HASHES[hash_name](), length=size, sharedinfo=ciphertext[:point]).derive(secret)
    iv = material[key_size:] if variable_iv else bytes(16)
    return AESGCM(material[:key_size]).decrypt(iv, ciphertext[point:], None)


def ec_open():
    request = json.load(sys.stdin)
    key = ec_private(base64.b64decode(request["privateKey"]))
    results = {}
    for name, ciphertext in request["ciphertexts"].items():
        try:
            results[name] = b64(ecies_open(key, name, base64.b64decode(ciphertext)))
        except Exception:
            results[name] = None
    print(json.dumps(results))


def ec_x963():
    request = json.load(sys.stdin)
    key = ec_private(base64.b64decode(request["privateKey"]))
    peer = ec.EllipticCurvePublicKey.from_encoded_point(key.curve, base64.b64decode(request["peerPublicKey"]))
    secret = key.exchange(ec.ECDH(), peer)
    info = base64.b64decode(request["sharedInfo"])
    print(json.dumps({name: b64(X963KDF(algorithm=hash(), length=request["size"], sharedinfo=info).derive(secret))
                      for name, hash in HASHES.items()}))


def sha224():
    request = json.load(sys.stdin)
    print(json.dumps({"digests": [b64(hashlib.sha224(base64.b64decode(data)).digest()) for data in request["inputs"]]}))


def der_length(n):
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def der_tlv(tag, content):
    return bytes([tag]) + der_length(len(content)) + content


def der_children(data):
    """The (tag, whole element) pairs of a DER element's content."""
    length_byte = data[1]
    offset = 2 if length_byte < 0x80 else 2 + (length_byte & 0x7F)
    children, content = [], data[offset:]
    while content:
        first = content[1]
        header = 2 if first < 0x80 else 2 + (first & 0x7F)
        size = first if first < 0x80 else int.from_bytes(content[2:header], "big")
        children.append((content[0], content[:header + size]))
        content = content[header + size:]
    return children


def with_tbs_field(der, index, replacement):
    """The certificate `der` with its TBSCertificate's field `index` replaced (None: removed);
    the signature no longer matches, which SecCertificateCreateWithData does not check."""
    tbs, algorithm, signature = [element for _, element in der_children(der)]
    fields = [element for _, element in der_children(tbs)]
    if replacement is None:
        del fields[index]
    else:
        fields[index] = replacement
    return der_tlv(0x30, der_tlv(0x30, b"".join(fields)) + algorithm + signature)


def certificates():
    import datetime
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    from cryptography.x509.name import _ASN1Type
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(days=1)
    # The RSA certificate's issuer is a PrintableString that iOS normalizes (upper case, one
    # space, trimmed); "intermediate" is that issuer, issued by a root, for kSecMatchIssuers.
    odd_ca = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "  Touchstone   test ca ", _type=_ASN1Type.PrintableString)])
    normal_ca = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "TOUCHSTONE TEST CA", _type=_ASN1Type.PrintableString)])
    plain_ca = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Touchstone Test CA")])
    root = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Touchstone Root")])
    specs = {
        # A serial whose top bit is set: its DER content starts with a zero byte.
        "rsa": (rsa.generate_private_key(public_exponent=65537, key_size=2048), odd_ca, 0x80 << 144),
        "p256": (ec.generate_private_key(ec.SECP256R1()), plain_ca, x509.random_serial_number()),
        "p384": (ec.generate_private_key(ec.SECP384R1()), plain_ca, x509.random_serial_number()),
        "nocn": (ec.generate_private_key(ec.SECP256R1()), plain_ca, x509.random_serial_number()),
    }
    out = {}
    for name, (key, issuer, serial) in specs.items():
        if name == "nocn":  # no common name: iOS summarizes it by its first e-mail address
            subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Touchstone Test"),
                                 x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "Unit"),
                                 x509.NameAttribute(NameOID.EMAIL_ADDRESS, name + "@example.com")])
        else:
            subject = x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "NL"),
                                 x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Touchstone Test"),
                                 x509.NameAttribute(NameOID.COMMON_NAME, "first " + name),
                                 x509.NameAttribute(NameOID.COMMON_NAME, name + ".example.com"),
                                 x509.NameAttribute(NameOID.EMAIL_ADDRESS, name + "@example.com")])
        cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
                .serial_number(serial).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
                .add_extension(x509.SubjectAlternativeName([x509.RFC822Name("alt-" + name + "@example.com"),
                                                            x509.DNSName(name + ".example.com")]), critical=False)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                .sign(key, hashes.SHA256()))
        public = key.public_key()
        if name == "rsa":
            key_bytes = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)
            private_bytes = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL,
                                              serialization.NoEncryption())
        else:
            key_bytes = public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            private_bytes = key_bytes + key.private_numbers().private_value.to_bytes((key.curve.key_size + 7) // 8, "big")
        out[name] = {
            "der": b64(cert.public_bytes(serialization.Encoding.DER)),
            "serial": b64(serial.to_bytes((serial.bit_length() + 8) // 8, "big")),
            "subject": b64(cert.subject.public_bytes()), "issuer": b64(cert.issuer.public_bytes()),
            "normalizedIssuer": b64((normal_ca if issuer == odd_ca else issuer).public_bytes()),
            "publicKey": b64(key_bytes), "privateKey": b64(private_bytes),
            "notBefore": now.timestamp(), "notAfter": (now + datetime.timedelta(days=3650)).timestamp(),
            # iOS (SecCertificate.c): every common name, the last first; without one, the first
            # e-mail address (subjectAltName before subject).
            "summary": "alt-nocn@example.com" if name == "nocn" else name + ".example.com, first " + name,
            "commonName": None if name == "nocn" else name + ".example.com",
            "emails": ["alt-" + name + "@example.com", name + "@example.com"],
            "subjectKeyID": b64(cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest),
        }
    ca_key = ec.generate_private_key(ec.SECP256R1())
    intermediate = (x509.CertificateBuilder().subject_name(odd_ca).issuer_name(root).public_key(ca_key.public_key())
                    .serial_number(7).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
                    .sign(ca_key, hashes.SHA256())).public_bytes(serialization.Encoding.DER)
    # A second certificate of p256's key: an identity's key another certificate still uses.
    p256_key = specs["p256"][0]
    same_key = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "p256 again")]))
                .issuer_name(plain_ca).public_key(p256_key.public_key()).serial_number(x509.random_serial_number())
                .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
                .sign(p256_key, hashes.SHA256())).public_bytes(serialization.Encoding.DER)
    leaf = base64.b64decode(out["p256"]["der"])
    fields = [element for _, element in der_children(der_children(leaf)[0][1])]
    extensions = next(element for element in fields if element[0] == 0xA3)
    bad_san = der_tlv(0xA3, der_tlv(0x30, der_tlv(0x30, der_tlv(0x06, bytes([0x55, 0x1D, 0x11])) + der_tlv(0x04, b"\x30\x03\x81"))))
    out["extra"] = {
        "intermediate": b64(intermediate), "root": b64(root.public_bytes()), "p256SameKey": b64(same_key),
        # SecCertificateCreateWithData takes these (the signature is not checked):
        "negativeSerial": b64(with_tbs_field(leaf, 1, der_tlv(0x02, b"\xff"))),
        "badNonCriticalSAN": b64(with_tbs_field(leaf, fields.index(extensions), bad_san)),
        # and refuses these:
        "versionZero": b64(with_tbs_field(leaf, 0, der_tlv(0xA0, der_tlv(0x02, b"\x00")))),
        "versionHuge": b64(with_tbs_field(leaf, 0, der_tlv(0xA0, der_tlv(0x02, b"\x7f" + b"\xff" * 7)))),
        "emptyExtensions": b64(with_tbs_field(leaf, fields.index(extensions), der_tlv(0xA3, der_tlv(0x30, b"")))),
        "longSerial": b64(with_tbs_field(leaf, 1, der_tlv(0x02, b"\x01" * 38))),
    }
    print(json.dumps(out))


def pkcs12_files():
    import datetime
    import subprocess
    import tempfile
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.hazmat.primitives.serialization import pkcs12
    from cryptography.x509.oid import NameOID
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(days=1)

    def name(text):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def issue(subject, key, issuer, issuer_key, ca):
        builder = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer)).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=365))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        return builder.sign(issuer_key, None if isinstance(issuer_key, ed25519.Ed25519PrivateKey) else hashes.SHA256())

    def der(certificate):
        return certificate.public_bytes(serialization.Encoding.DER)

    root_key, intermediate_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    root = issue("Touchstone P12 Root", root_key, "Touchstone P12 Root", root_key, True)
    intermediate = issue("Touchstone P12 Intermediate", intermediate_key, "Touchstone P12 Root", root_key, True)
    stranger_key = ec.generate_private_key(ec.SECP256R1())
    stranger = issue("Unrelated", stranger_key, "Unrelated", stranger_key, True)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    rsa_leaf = issue("rsa.p12.example", rsa_key, "Touchstone P12 Intermediate", intermediate_key, False)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    ec_leaf = issue("ec.p12.example", ec_key, "Touchstone P12 Intermediate", intermediate_key, False)
    p384_key = ec.generate_private_key(ec.SECP384R1())
    p384_leaf = issue("p384.p12.example", p384_key, "Touchstone P12 Root", root_key, False)
    ed_key = ed25519.Ed25519PrivateKey.generate()
    ed_leaf = issue("ed25519.p12.example", ed_key, "ed25519.p12.example", ed_key, False)

    def rsa_bytes(key):
        return key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())

    def ec_bytes(key):
        public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return public + key.private_numbers().private_value.to_bytes((key.curve.key_size + 7) // 8, "big")

    ACCENTED = "s\u00e9cret"  # a passphrase beyond ASCII: PKCS #12 derives keys from its BMPString
    triple_des = (serialization.PrivateFormat.PKCS12.encryption_builder().kdf_rounds(2048)
                  .key_cert_algorithm(pkcs12.PBES.PBESv1SHA1And3KeyTripleDESCBC).hmac_hash(hashes.SHA1()).build(b"3des pass"))
    out = {
        # The chain is the leaf, the intermediate, the root; the unrelated certificate is left out.
        "aes": {"p12": pkcs12.serialize_key_and_certificates(b"rsa", rsa_key, rsa_leaf, [stranger, root, intermediate],
                                                              serialization.BestAvailableEncryption(ACCENTED.encode())),
                "password": ACCENTED,
                "leaf": der(rsa_leaf), "chain": [der(rsa_leaf), der(intermediate), der(root)], "privateKey": rsa_bytes(rsa_key)},
        "tripleDES": {"p12": pkcs12.serialize_key_and_certificates(b"p384", p384_key, p384_leaf, [root], triple_des),
                      "password": "3des pass", "leaf": der(p384_leaf), "chain": [der(p384_leaf), der(root)], "privateKey": ec_bytes(p384_key)},
        "certificatesOnly": {"p12": pkcs12.serialize_key_and_certificates(None, None, None, [root, intermediate],
                                                                           serialization.BestAvailableEncryption(b"pass")),
                             "password": "pass"},
        "ed25519": {"p12": pkcs12.serialize_key_and_certificates(b"ed", ed_key, ed_leaf, None, serialization.BestAvailableEncryption(b"pass")),
                    "password": "pass"},
    }
    # The openssl command's legacy format (what OpenSSL 1.x and older tools write): certificate
    # bags under RC2-40, the key bag under triple DES, a SHA-1 MAC; and one with no password.
    with tempfile.TemporaryDirectory() as directory:
        key_path, leaf_path, chain_path = (os.path.join(directory, f) for f in ("key.pem", "leaf.pem", "chain.pem"))
        with open(key_path, "wb") as f:
            f.write(ec_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        with open(leaf_path, "wb") as f:
            f.write(ec_leaf.public_bytes(serialization.Encoding.PEM))
        with open(chain_path, "wb") as f:
            f.write(intermediate.public_bytes(serialization.Encoding.PEM) + root.public_bytes(serialization.Encoding.PEM))
        for entry, password, extra in (("legacy", "badssl.com", ["-legacy"]), ("emptyPassword", "", [])):
            p12 = subprocess.run(["openssl", "pkcs12", "-export", "-inkey", key_path, "-in", leaf_path, "-certfile", chain_path,
                                  "-passout", "pass:" + password] + extra, check=True, capture_output=True).stdout
            out[entry] = {"p12": p12, "password": password, "leaf": der(ec_leaf),
                          "chain": [der(ec_leaf), der(intermediate), der(root)], "privateKey": ec_bytes(ec_key)}
    print(json.dumps({entry: {key: (b64(value) if isinstance(value, bytes) else [b64(v) for v in value] if isinstance(value, list) else value)
                              for key, value in fields.items()} for entry, fields in out.items()}))


if __name__ == "__main__":
    {"make": make, "certificates": certificates, "verify": verify, "decrypt": decrypt, "ec-make": ec_make, "ec-verify": ec_verify,
     "ec-open": ec_open, "ec-x963": ec_x963, "sha224": sha224, "pkcs12": pkcs12_files}[sys.argv[1]]()
