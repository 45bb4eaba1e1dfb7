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
  seckey-check.py ec-make CURVE prints JSON: a new P-384 or P-521 key pair (X9.63: public
                                04||X||Y, private 04||X||Y||K), and for one message its DER
                                ECDSA signature with each hash
  seckey-check.py ec-verify     reads JSON {publicKey (X9.63), message, signatures: {hash: b64
                                DER}} and prints {hash: true|false}: whether each ECDSA
                                signature of the message's hash verifies

Schemes: pkcs1v15-<hash>, pss-<hash> (salt as long as the hash, as Apple's); paddings: pkcs1,
oaep-SHA1, oaep-SHA256. Hashes: SHA1, SHA256, SHA384, SHA512."""
import base64
import json
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

HASHES = {"SHA1": hashes.SHA1, "SHA256": hashes.SHA256, "SHA384": hashes.SHA384, "SHA512": hashes.SHA512}
MESSAGE = b"touchstone rsa check"


def signature_padding(scheme):
    kind, name = scheme.split("-")
    digest = HASHES[name]()
    if kind == "pkcs1v15":
        return padding.PKCS1v15(), digest
    return padding.PSS(mgf=padding.MGF1(HASHES[name]()), salt_length=digest.digest_size), digest


def encryption_padding(name):
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
        "ciphertexts": {p: b64(key.public_key().encrypt(MESSAGE, encryption_padding(p))) for p in ("pkcs1", "oaep-SHA1", "oaep-SHA256")},
    }
    print(json.dumps(out))


def verify():
    request = json.load(sys.stdin)
    # PKCS#1 RSAPublicKey DER, read through its PEM form ("RSA PUBLIC KEY").
    der = base64.b64decode(request["publicKey"])
    key = serialization.load_pem_public_key(
        b"-----BEGIN RSA PUBLIC KEY-----\n" + base64.encodebytes(der) + b"-----END RSA PUBLIC KEY-----\n")
    message = base64.b64decode(request["message"])
    results = {}
    for scheme, signature in request["signatures"].items():
        try:
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
    for name, ciphertext in request["ciphertexts"].items():
        try:
            results[name] = b64(key.decrypt(base64.b64decode(ciphertext), encryption_padding(name)))
        except Exception:
            results[name] = None
    print(json.dumps(results))


CURVES = {"P-384": ec.SECP384R1, "P-521": ec.SECP521R1}


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


if __name__ == "__main__":
    {"make": make, "verify": verify, "decrypt": decrypt, "ec-make": ec_make, "ec-verify": ec_verify}[sys.argv[1]]()
