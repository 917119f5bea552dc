//! Requests answered on a subscription of their own instead of the shared
//! muxed inbox (async-nats `Request::inbox`, nats.js `noMux` and `reply`):
//! a one-message subscription to the inbox, with the first-message timeout
//! as the request's timeout.

use std::future::Future;
use std::time::Duration;

use futures_util::StreamExt;

use super::Client;
use crate::core::error::Error;
use crate::core::header::HeaderMap;
use crate::core::message::Message;

impl Client {
    /// A request whose answer comes to `inbox`, subscribed for this request
    /// only, rather than to the connection's muxed inbox. Subscribes and
    /// publishes now; the future waits for the answer, up to `timeout`
    /// (`None`: forever). Dropping the future unsubscribes.
    ///
    /// ```no_run
    /// # async fn f(client: natsjet::Client) -> Result<(), natsjet::Error> {
    /// let inbox = client.new_inbox();
    /// let answer = client.send_request_on_inbox("svc.time", &inbox, None, b"", None)?.await?;
    /// # Ok(()) }
    /// ```
    pub fn send_request_on_inbox(
        &self,
        subject: &str,
        inbox: &str,
        headers: Option<&HeaderMap>,
        payload: &[u8],
        timeout: Option<Duration>,
    ) -> Result<impl Future<Output = Result<Message, Error>> + 'static, Error> {
        let mut sub = self.subscribe_inner(inbox, None)?;
        {
            let mut inner = self.inner.shared.lock();
            inner.command(|s| s.unsubscribe(sub.sid, Some(1)))?;
            inner.write(|s| s.publish(subject, Some(inbox), headers, payload))?;
        }
        if let Some(timeout) = timeout {
            sub.set_first_message_timeout(timeout);
        }
        Ok(async move {
            match sub.next().await {
                Some(answer) => answer.into_answer(),
                None if sub.timed_out() => Err(Error::Timeout),
                None => Err(Error::Closed),
            }
        })
    }
}
