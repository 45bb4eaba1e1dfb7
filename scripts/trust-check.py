#!/usr/bin/env python3
"""Makes certificate chains with pyca/cryptography (an implementation we did not write) for
SecTrustTests, and judges each with pyca's own X.509 verifier (RFC 5280 and the CA/Browser
Forum's rules, `cryptography.x509.verification`), from the virtual environment
scripts/pyattest-env.sh makes.

  trust-check.py chains   prints JSON {time, cases: {name: {certificates: [b64 DER, leaf
                          first], anchors: [b64 DER], host (or null), pyca: true|false}}}:
                          each case's certificates, the anchors to set, the SSL host name
                          to check, and whether pyca's verifier trusts the leaf for that host
                          at `time` (seconds since 1970) with those anchors alone

The chains: a P-256 root, an RSA-2048 intermediate, leaves for www.example.test; then one
change each (expired, not yet valid, a wildcard, an IP address, a missing intermediate, a
forged signature, an intermediate without basicConstraints or with cA false, a leaf used as
anchor for what it signed, a cross-signed intermediate listed first, odd subjectAltNames,
client-only usage, a 1024-bit and a 512-bit key, an 825-day-plus validity, a SHA-1 signature, a leaf that is
its own anchor)."""
import base64
import datetime
import ipaddress
import json
import os
import subprocess
import tempfile

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from cryptography.x509.verification import PolicyBuilder, Store

# The time the chains are judged at: an hour from now (the openssl command dates its
# certificate from now, so it is valid then).
NOW = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)


def name(text):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def issue(subject, key, issuer, issuer_key, ca, sans=(), ips=(), usages=(ExtendedKeyUsageOID.SERVER_AUTH,),
          start=NOW - 30 * DAY, days=365, basic=True):
    builder = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(start + days * DAY))
    if basic:
        builder = builder.add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    if ca:
        builder = builder.add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                                      data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                                      crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
    else:
        names = [x509.DNSName(s) for s in sans] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        builder = builder.add_extension(x509.ExtendedKeyUsage(list(usages)), critical=False)
    builder = builder.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    if issuer_key is not key:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def sha1_signed(key, issuer, issuer_key):
    """A www.example.test leaf that issuer signs with SHA-1, made by the openssl command (pyca
    no longer signs with SHA-1)."""
    with tempfile.TemporaryDirectory() as directory:
        paths = {name: os.path.join(directory, name) for name in ("key.pem", "csr.pem", "ca.pem", "ca-key.pem", "ext.cnf", "leaf.der")}
        csr = (x509.CertificateSigningRequestBuilder().subject_name(name("www.example.test")).sign(key, hashes.SHA256()))
        for path, data in ((paths["csr.pem"], csr.public_bytes(serialization.Encoding.PEM)),
                           (paths["ca.pem"], issuer.public_bytes(serialization.Encoding.PEM)),
                           (paths["ca-key.pem"], issuer_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                                          serialization.NoEncryption())),
                           (paths["ext.cnf"], b"basicConstraints=critical,CA:FALSE\nsubjectAltName=DNS:www.example.test\n"
                                              b"extendedKeyUsage=serverAuth\n")):
            with open(path, "wb") as f:
                f.write(data)
        subprocess.run(["openssl", "x509", "-req", "-in", paths["csr.pem"], "-CA", paths["ca.pem"], "-CAkey", paths["ca-key.pem"],
                        "-set_serial", "7", "-sha1", "-days", "300", "-extfile", paths["ext.cnf"], "-outform", "DER",
                        "-out", paths["leaf.der"]], check=True, capture_output=True)
        with open(paths["leaf.der"], "rb") as f:
            return f.read()


def der(certificate):
    return certificate.public_bytes(serialization.Encoding.DER)


def forged(certificate):
    """The certificate with its signature's last byte changed."""
    data = bytearray(der(certificate))
    data[-1] ^= 0x01
    return bytes(data)


def pyca_trusts(leaf, intermediates, anchors, host):
    try:
        store = Store([x509.load_der_x509_certificate(a) for a in anchors])
        subject = x509.IPAddress(ipaddress.ip_address(host)) if host and host[0].isdigit() else x509.DNSName(host)
        verifier = PolicyBuilder().store(store).time(NOW).build_server_verifier(subject)
        verifier.verify(x509.load_der_x509_certificate(leaf), [x509.load_der_x509_certificate(i) for i in intermediates])
        return True
    except Exception:
        return False


def chains():
    root_key = ec.generate_private_key(ec.SECP256R1())
    root = issue("Touchstone Trust Root", root_key, "Touchstone Trust Root", root_key, True, start=NOW - 400 * DAY, days=3650)
    middle_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    middle = issue("Touchstone Trust Intermediate", middle_key, "Touchstone Trust Root", root_key, True, start=NOW - 200 * DAY, days=1825)
    not_ca = issue("Touchstone Not A CA", middle_key, "Touchstone Trust Root", root_key, False, start=NOW - 200 * DAY, days=1825, basic=False,
                   usages=(ExtendedKeyUsageOID.SERVER_AUTH,))
    ca_false = issue("Touchstone CA False", middle_key, "Touchstone Trust Root", root_key, False, start=NOW - 200 * DAY, days=1825)
    stranger_key = ec.generate_private_key(ec.SECP256R1())
    stranger = issue("Touchstone Stranger Root", stranger_key, "Touchstone Stranger Root", stranger_key, True, start=NOW - 400 * DAY, days=3650)
    # The intermediate's name and key again, issued by a root nobody trusts (a cross-signature).
    cross = issue("Touchstone Trust Intermediate", middle_key, "Touchstone Stranger Root", stranger_key, True, start=NOW - 200 * DAY, days=1825)
    leaf_key = ec.generate_private_key(ec.SECP256R1())

    def leaf(**changes):
        fields = dict(sans=("www.example.test",))
        fields.update(changes)
        return issue("www.example.test", leaf_key, "Touchstone Trust Intermediate", middle_key, False, **fields)

    valid = leaf()
    # A 512-bit RSA key, which pyca no longer makes: the openssl command does.
    tiny_key = serialization.load_pem_private_key(subprocess.run(
        ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:512"], check=True, capture_output=True).stdout, None)
    weak_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    self_signed = issue("self.example.test", leaf_key, "self.example.test", leaf_key, False, sans=("self.example.test",))
    chain = [der(middle)]
    cases = {
        "valid": ([der(valid)] + chain, [der(root)], "www.example.test"),
        "validUppercaseHostWithDot": ([der(valid)] + chain, [der(root)], "WWW.Example.TEST."),
        "noHost": ([der(valid)] + chain, [der(root)], None),
        "hostMismatch": ([der(valid)] + chain, [der(root)], "mail.example.test"),
        "expired": ([der(leaf(start=NOW - 400 * DAY))] + chain, [der(root)], "www.example.test"),
        "notYetValid": ([der(leaf(start=NOW + 2 * DAY))] + chain, [der(root)], "www.example.test"),
        "expiredAndHostMismatch": ([der(leaf(start=NOW - 400 * DAY))] + chain, [der(root)], "mail.example.test"),
        "wildcard": ([der(leaf(sans=("*.example.test",)))] + chain, [der(root)], "api.example.test"),
        "wildcardTwoLabelsDeep": ([der(leaf(sans=("*.example.test",)))] + chain, [der(root)], "a.b.example.test"),
        "wildcardBareDomain": ([der(leaf(sans=("*.example.test",)))] + chain, [der(root)], "example.test"),
        "ipAddress": ([der(leaf(sans=(), ips=("127.0.0.1",)))] + chain, [der(root)], "127.0.0.1"),
        "ipAddressAsName": ([der(leaf(sans=("127.0.0.1",)))] + chain, [der(root)], "127.0.0.1"),
        "untrustedRoot": ([der(valid)] + chain + [der(root)], [], "www.example.test"),
        "untrustedRootAndExpired": ([der(leaf(start=NOW - 400 * DAY))] + chain + [der(root)], [], "www.example.test"),
        "missingIntermediate": ([der(valid)], [der(root)], "www.example.test"),
        "forgedSignature": ([forged(valid)] + chain, [der(root)], "www.example.test"),
        "issuerNotACA": ([der(issue("www.example.test", leaf_key, "Touchstone Not A CA", middle_key, False, sans=("www.example.test",)))]
                         + [der(not_ca)], [der(root)], "www.example.test"),
        "clientUsageOnly": ([der(leaf(usages=(ExtendedKeyUsageOID.CLIENT_AUTH,)))] + chain, [der(root)], "www.example.test"),
        "weakKey": ([der(issue("www.example.test", weak_key, "Touchstone Trust Intermediate", middle_key, False, sans=("www.example.test",)))]
                    + chain, [der(root)], "www.example.test"),
        "brokenKey": ([der(issue("www.example.test", tiny_key, "Touchstone Trust Intermediate", middle_key, False, sans=("www.example.test",)))]
                      + chain, [der(root)], "www.example.test"),
        "validityTooLong": ([der(leaf(days=900))] + chain, [der(root)], "www.example.test"),
        "issuerCAFalse": ([der(issue("www.example.test", leaf_key, "Touchstone CA False", middle_key, False, sans=("www.example.test",)))]
                          + [der(ca_false)], [der(root)], "www.example.test"),
        "nonCAAnchorIssues": ([der(issue("child.example.test", ec.generate_private_key(ec.SECP256R1()), "www.example.test", leaf_key, False,
                                         sans=("child.example.test",)))], [der(valid)], "child.example.test"),
        "crossSignedFirst": ([der(valid), der(cross), der(middle)], [der(root)], "www.example.test"),
        "oddNames": ([der(leaf(sans=("1.2.3", "www..example.test", "*.example.test", "-bad.example.test"), ips=("10.0.0.1", "::1")))]
                     + chain, [der(root)], "api.example.test"),
        "sha1Signature": ([sha1_signed(leaf_key, middle, middle_key)] + chain, [der(root)], "www.example.test"),
        "leafIsItsAnchor": ([der(self_signed)], [der(self_signed)], "self.example.test"),
        "intermediateAsAnchor": ([der(valid)], [der(middle)], "www.example.test"),
    }
    out = {}
    for case, (certificates, anchors, host) in cases.items():
        certs = certificates
        out[case] = {"certificates": [base64.b64encode(c).decode() for c in certs],
                     "anchors": [base64.b64encode(a).decode() for a in anchors], "host": host,
                     "pyca": bool(anchors) and host is not None and pyca_trusts(certs[0], certs[1:], anchors, host.rstrip("."))}
    print(json.dumps({"time": NOW.timestamp(), "cases": out}))


if __name__ == "__main__":
    import sys
    {"chains": chains}[sys.argv[1]]()
