//! What the user tells us about TLS: trusted roots, a client certificate,
//! or (natively) a ready-made rustls configuration. Kept as PEM bytes so the
//! type exists on every target; it is parsed natively when a connection is
//! made. In wasm, `nats://` and `tls://` hand them to the JS socket's TLS
//! (Node's `node:tls`); `wss://` is the host's and ignores them.

use std::fmt;
#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
use std::{path::Path, sync::Arc};

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
use crate::core::error::Error;

/// TLS settings for `tls://`, `wss://` and servers that require TLS.
///
/// By default the server is verified against the Mozilla roots of
/// `webpki-roots`. Roots added here replace those defaults, so a private CA
/// is trusted alone. `Debug` never shows key material.
#[derive(Clone, Default)]
pub struct TlsOptions {
    pub(crate) roots_pem: Vec<Vec<u8>>,
    pub(crate) client_auth_pem: Option<ClientAuthPem>,
    #[cfg(all(feature = "native", not(target_arch = "wasm32")))]
    pub(crate) config: Option<Arc<rustls::ClientConfig>>,
}

/// A client certificate chain and its private key, both PEM.
#[derive(Clone)]
#[cfg_attr(not(has_runtime), allow(dead_code, reason = "only transports read it"))]
pub(crate) struct ClientAuthPem {
    pub(crate) cert_chain: Vec<u8>,
    pub(crate) key: Vec<u8>,
}

impl TlsOptions {
    /// Defaults: webpki roots, no client certificate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Trusts the CA certificates in `pem` (one or more `CERTIFICATE`
    /// blocks) instead of the default roots. May be called repeatedly.
    pub fn add_root_certificates_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.roots_pem.push(pem.into());
        self
    }

    /// Presents `cert_chain_pem` (leaf first) with its private key `key_pem`
    /// (PKCS#8, PKCS#1 or SEC1) to servers that verify clients.
    pub fn client_auth_pem(mut self, cert_chain_pem: impl Into<Vec<u8>>, key_pem: impl Into<Vec<u8>>) -> Self {
        self.client_auth_pem = Some(ClientAuthPem { cert_chain: cert_chain_pem.into(), key: key_pem.into() });
        self
    }
}

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
impl TlsOptions {
    /// Like [`TlsOptions::add_root_certificates_pem`], reading a PEM file.
    pub fn add_root_certificates_file(self, path: impl AsRef<Path>) -> Result<Self, Error> {
        Ok(self.add_root_certificates_pem(read(path.as_ref())?))
    }

    /// Like [`TlsOptions::client_auth_pem`], reading two PEM files.
    pub fn client_auth_files(self, cert_chain: impl AsRef<Path>, key: impl AsRef<Path>) -> Result<Self, Error> {
        Ok(self.client_auth_pem(read(cert_chain.as_ref())?, read(key.as_ref())?))
    }

    /// Uses `config` as is; roots and client certificates set here are then
    /// ignored. For `wss://`, ALPN `http/1.1` is added when the config has none.
    pub fn client_config(mut self, config: Arc<rustls::ClientConfig>) -> Self {
        self.config = Some(config);
        self
    }
}

#[cfg(all(feature = "native", not(target_arch = "wasm32")))]
fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::Io { kind: e.kind(), message: format!("{}: {e}", path.display()) })
}

impl fmt::Debug for TlsOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("TlsOptions");
        d.field("root_pems", &self.roots_pem.len());
        d.field("client_auth", &self.client_auth_pem.is_some());
        #[cfg(all(feature = "native", not(target_arch = "wasm32")))]
        d.field("client_config", &self.config.is_some());
        d.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_keys() {
        let o = TlsOptions::new().client_auth_pem("CERT", "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n");
        let shown = format!("{o:?}");
        assert!(shown.contains("client_auth: true"), "{shown}");
        assert!(!shown.contains("c2VjcmV0") && !shown.contains("PRIVATE"), "{shown}");
    }
}
