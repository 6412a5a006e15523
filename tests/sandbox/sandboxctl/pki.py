"""Certificates and keys for the sandbox's control plane (made once per state folder)."""
import datetime
import ipaddress
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID


def _key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _write_key(path, key):
    with open(path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                  serialization.NoEncryption()))
    os.chmod(path, 0o600)


def _write_cert(path, cert):
    with open(path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))


def _name(cn, org=None):
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def _sign(subject, key, ca_cert, ca_key, *, ca=False, server=False):
    now = datetime.datetime.now(datetime.timezone.utc)
    b = (x509.CertificateBuilder().subject_name(subject)
         .issuer_name(ca_cert.subject if ca_cert is not None else subject)
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(now - datetime.timedelta(minutes=5))
         .not_valid_after(now + datetime.timedelta(days=365))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        b = b.add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True)
    else:
        usages = [x509.ExtendedKeyUsageOID.CLIENT_AUTH]
        if server:
            usages.append(x509.ExtendedKeyUsageOID.SERVER_AUTH)
            b = b.add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.DNSName("kubernetes"), x509.DNSName("kubernetes.default.svc"),
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.IPAddress(ipaddress.ip_address("10.96.0.1")),
            ]), critical=False)
        b = b.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    return b.sign(ca_key if ca_key is not None else key, hashes.SHA256())


def ensure_pki(pki_dir):
    """Create CA, API server serving cert, admin client cert (system:masters) and the SA key pair."""
    os.makedirs(pki_dir, exist_ok=True)
    paths = {n: os.path.join(pki_dir, n) for n in (
        "ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key", "sa.key", "sa.pub")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    ca_key = _key()
    ca_cert = _sign(_name("teardown-gates-sandbox-ca"), ca_key, None, None, ca=True)
    _write_key(paths["ca.key"], ca_key)
    _write_cert(paths["ca.crt"], ca_cert)
    srv_key = _key()
    _write_key(paths["apiserver.key"], srv_key)
    _write_cert(paths["apiserver.crt"], _sign(_name("kube-apiserver"), srv_key, ca_cert, ca_key, server=True))
    adm_key = _key()
    _write_key(paths["admin.key"], adm_key)
    _write_cert(paths["admin.crt"], _sign(_name("sandbox-admin", "system:masters"), adm_key, ca_cert, ca_key))
    sa_key = _key()
    _write_key(paths["sa.key"], sa_key)
    with open(paths["sa.pub"], "wb") as f:
        f.write(sa_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo))
    return paths


def issue_client(pki, crt_path, key_path, cn, org):
    """A client certificate signed by the sandbox CA (a controller's own identity in the audit log)."""
    with open(pki["ca.crt"], "rb") as f:
        ca_cert = x509.load_pem_x509_certificate(f.read())
    with open(pki["ca.key"], "rb") as f:
        ca_key = serialization.load_pem_private_key(f.read(), password=None)
    key = _key()
    _write_key(key_path, key)
    _write_cert(crt_path, _sign(_name(cn, org), key, ca_cert, ca_key))
