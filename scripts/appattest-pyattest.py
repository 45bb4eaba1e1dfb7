#!/usr/bin/env python3
# Verifies App Attest output with pyattest (PyPI), an implementation Touchstone did not write.
# Run with the interpreter of scripts/pyattest-env.sh (.build/pyattest-venv/bin/python).
"""Independent App Attest check with pyattest 1.0.5.

  attest  ROOT_PEM APP_ID KEY_ID_B64 CHALLENGE_HEX ATTESTATION_FILE [--production] [--pubkey-out FILE]
  assert  PUBKEY_PEM APP_ID CLIENT_DATA_HEX ASSERTION_FILE [--previous-counter N]

Prints "ok" (exit 0) or "fail: <exception>" (exit 1).
"""
import argparse, asyncio, base64, binascii, struct, sys, warnings
from hashlib import sha256

# pyhanko-certvalidator warns that extra_trust_roots / the OS trust list are deprecated
warnings.filterwarnings("ignore", category=DeprecationWarning)

from cbor2 import CBORError
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from pyhanko_certvalidator.errors import ValidationError
from pyattest.assertion import Assertion
from pyattest.attestation import Attestation
from pyattest.configs.apple import AppleConfig
from pyattest.exceptions import PyAttestException


def attest(a):
    root_pem = open(a.root_pem, "rb").read()
    key_id = base64.b64decode(a.key_id_b64, validate=True)       # pyattest compares RAW 32 bytes
    challenge = bytes.fromhex(a.challenge_hex)                    # RAW challenge: pyattest hashes it itself
    config = AppleConfig(key_id=key_id, app_id=a.app_id, production=a.production, root_ca=root_pem)
    attestation = Attestation(open(a.attestation_file, "rb").read(), challenge, config)
    asyncio.run(attestation.verify())                              # verify() is a coroutine
    leaf = attestation.data["certs"].leaf                          # asn1crypto Certificate (credCert)
    if a.pubkey_out:
        key = serialization.load_der_public_key(leaf.public_key.dump())
        open(a.pubkey_out, "wb").write(key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


def assertion(a):
    public_key = serialization.load_pem_public_key(open(a.pubkey_pem, "rb").read())
    client_data_hash = sha256(bytes.fromhex(a.client_data_hex)).digest()   # pyattest does NOT hash this
    # config is only used to pick the verifier class; key_id/root_ca are irrelevant here
    config = AppleConfig(key_id=b"", app_id=a.app_id, production=False)
    asr = Assertion(open(a.assertion_file, "rb").read(), client_data_hash, public_key, config)
    asr.verify()                                                    # signature only (sync)
    # pyattest checks nothing else; Apple's remaining steps, done here by hand:
    if asr.data["rp_id"] != sha256(a.app_id.encode()).digest():
        raise ValueError("rpIdHash is not SHA-256(app id)")
    if a.previous_counter is not None and asr.data["counter"] <= a.previous_counter:
        raise ValueError(f"counter {asr.data['counter']} not greater than {a.previous_counter}")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("attest")
    for n in ("root_pem", "app_id", "key_id_b64", "challenge_hex", "attestation_file"):
        s.add_argument(n)
    s.add_argument("--production", action="store_true")
    s.add_argument("--pubkey-out")
    s = sub.add_parser("assert")
    for n in ("pubkey_pem", "app_id", "client_data_hex", "assertion_file"):
        s.add_argument(n)
    s.add_argument("--previous-counter", type=int)
    a = p.parse_args()
    try:
        (attest if a.cmd == "attest" else assertion)(a)
    except (PyAttestException, ValidationError, InvalidSignature, ValueError, KeyError,
            TypeError, IndexError, struct.error, binascii.Error, CBORError) as e:
        cause = f" (cause: {type(e.__cause__).__name__}: {e.__cause__})" if e.__cause__ else ""
        print(f"fail: {type(e).__name__}: {e}{cause}")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
