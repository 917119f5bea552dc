//! rustls client set-up: turns [`TlsOptions`] into a `ClientConfig` and runs
//! the handshake over an open TCP stream. The ring provider is named
//! explicitly so that another rustls provider enabled elsewhere in the build
//! cannot make the choice ambiguous.

use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::TlsOptions;
use crate::core::addr::ServerAddr;
use crate::core::error::Error;

/// Runs the TLS handshake on `tcp`, verifying the certificate for `addr.host`
/// (a DNS name or an IP address). `alpn` is offered when the config has none.
pub(super) async fn handshake(
    addr: &ServerAddr,
    options: &TlsOptions,
    tcp: TcpStream,
    alpn: Option<&[u8]>,
) -> Result<TlsStream<TcpStream>, Error> {
    let name = ServerName::try_from(addr.host.clone())
        .map_err(|_| Error::Tls(format!("{:?} is not a valid server name", addr.host)))?;
    let connector = TlsConnector::from(client_config(options, alpn)?);
    connector.connect(name, tcp).await.map_err(io_to_error)
}

fn client_config(options: &TlsOptions, alpn: Option<&[u8]>) -> Result<Arc<ClientConfig>, Error> {
    if let Some(config) = &options.config {
        return Ok(match alpn {
            Some(proto) if config.alpn_protocols.is_empty() => {
                let mut config = ClientConfig::clone(config);
                config.alpn_protocols = vec![proto.to_vec()];
                Arc::new(config)
            }
            _ => config.clone(),
        });
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(tls_error)?
        .with_root_certificates(root_store(&options.roots_pem)?);
    let mut config = match &options.client_auth_pem {
        Some(auth) => {
            let chain = certificates(&auth.cert_chain, "client certificate")?;
            let key =
                PrivateKeyDer::from_pem_slice(&auth.key).map_err(|e| Error::Tls(format!("client key PEM: {e}")))?;
            builder.with_client_auth_cert(chain, key).map_err(tls_error)?
        }
        None => builder.with_no_client_auth(),
    };
    if let Some(proto) = alpn {
        config.alpn_protocols = vec![proto.to_vec()];
    }
    Ok(Arc::new(config))
}

/// The user's roots when given, otherwise the webpki (Mozilla) roots.
fn root_store(pems: &[Vec<u8>]) -> Result<RootCertStore, Error> {
    if pems.is_empty() {
        return Ok(RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() });
    }
    let mut store = RootCertStore::empty();
    for pem in pems {
        for cert in certificates(pem, "root certificate")? {
            store.add(cert).map_err(tls_error)?;
        }
    }
    Ok(store)
}

fn certificates(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, Error> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Tls(format!("{what} PEM: {e}")))?;
    if certs.is_empty() {
        return Err(Error::Tls(format!("{what} PEM holds no CERTIFICATE block")));
    }
    Ok(certs)
}

fn tls_error(e: rustls::Error) -> Error {
    Error::Tls(e.to_string())
}

/// tokio-rustls reports TLS failures as `io::Error`s wrapping a
/// `rustls::Error`; those become [`Error::Tls`], the rest [`Error::Io`].
pub(crate) fn io_to_error(e: std::io::Error) -> Error {
    match e.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) {
        Some(tls) => Error::Tls(tls.to_string()),
        None => e.into(),
    }
}
