//! Test PKI made with rcgen: a CA, a server certificate for `127.0.0.1`,
//! `::1` and `localhost` (or another host), and a client certificate, all written as PEM files.

use std::fs;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
};

/// How the server uses TLS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tls {
    /// TLS required on the client port; clients need only trust the CA.
    Server,
    /// Like `Server`, plus `verify: true`: clients must present a certificate
    /// signed by the CA (use [`TlsFiles::client_cert`] / [`TlsFiles::client_key`]).
    Verify,
    /// Like `Server`, with a certificate for another host only
    /// ([`OTHER_HOST`]): clients that check the host name refuse it.
    OtherHost,
    /// Like `Server`, plus `handshake_first: true`: TLS starts before the
    /// INFO, so only clients that start it first get in.
    First,
}

/// The one name on a [`Tls::OtherHost`] server's certificate.
pub const OTHER_HOST: &str = "elsewhere.invalid";

impl Tls {
    /// The names the server's certificate holds.
    pub fn server_names(self) -> Vec<String> {
        match self {
            Tls::OtherHost => vec![OTHER_HOST.to_string()],
            Tls::Server | Tls::Verify | Tls::First => ["127.0.0.1", "::1", "localhost"].map(String::from).to_vec(),
        }
    }
}

/// Paths (and the CA PEM) of the generated test PKI.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub ca_cert: PathBuf,
    pub ca_pem: String,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
}

impl TlsFiles {
    /// Generates the CA, server (for `server_names`) and client
    /// certificates into `dir`.
    pub fn generate(dir: &Path, server_names: Vec<String>) -> TlsFiles {
        fs::create_dir_all(dir).expect("create tls dir");

        let ca_key = KeyPair::generate().expect("ca key");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
        ca_params.distinguished_name.push(DnType::CommonName, "natsjet test CA");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages =
            vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        let ca_cert = ca_params.self_signed(&ca_key).expect("self-sign CA");
        let ca_pem = ca_cert.pem();
        let issuer = Issuer::new(ca_params, ca_key);

        let server_key = KeyPair::generate().expect("server key");
        let common_name = server_names.last().cloned().unwrap_or_default();
        let mut server_params = CertificateParams::new(server_names).expect("server params");
        server_params.distinguished_name.push(DnType::CommonName, common_name);
        server_params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        server_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let server_cert = server_params.signed_by(&server_key, &issuer).expect("sign server cert");

        let client_key = KeyPair::generate().expect("client key");
        let mut client_params = CertificateParams::new(Vec::<String>::new()).expect("client params");
        client_params.distinguished_name.push(DnType::CommonName, "natsjet test client");
        client_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        client_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let client_cert = client_params.signed_by(&client_key, &issuer).expect("sign client cert");

        let files = TlsFiles {
            ca_cert: dir.join("ca.pem"),
            ca_pem: ca_pem.clone(),
            server_cert: dir.join("server-cert.pem"),
            server_key: dir.join("server-key.pem"),
            client_cert: dir.join("client-cert.pem"),
            client_key: dir.join("client-key.pem"),
        };
        fs::write(&files.ca_cert, &ca_pem).expect("write ca.pem");
        fs::write(&files.server_cert, server_cert.pem()).expect("write server cert");
        fs::write(&files.server_key, server_key.serialize_pem()).expect("write server key");
        fs::write(&files.client_cert, client_cert.pem()).expect("write client cert");
        fs::write(&files.client_key, client_key.serialize_pem()).expect("write client key");
        files
    }
}
