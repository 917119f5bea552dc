//! [`PublishAckFuture`]: the stream's answer to one publish.
//!
//! The window room of a publish is given back the moment its answer arrives,
//! even while nobody polls the future, so a producer that keeps ack futures
//! to await later never blocks itself. For that the request is polled with a
//! waker of our own, and only the answer may wake it: the request carries no
//! deadline (a tokio timer can wake a waker spuriously to make a task
//! yield); the ack timeout is a separate timer polled with the caller's waker.
//! A 503 (no stream leader yet, or no stream at all) re-sends the message
//! after a short backoff.

use std::fmt;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{self, Poll, Wake, Waker, ready};
use std::time::Duration;

use futures_util::task::AtomicWaker;

use super::window::{AckWindow, Acquire, Permit};
use super::{PublishError, PublishErrorKind};
use crate::client::{Client, ResponseFuture};
use crate::core::error::{Error, SortCause};
use crate::core::jetstream::publish::Publish;
use crate::core::message::Message;
use crate::driver::{BoxFuture, DefaultRuntime, Runtime};
use crate::jetstream::api::{PublishAck, parse_plain_response};
use crate::runtime::queue::lock;

/// Wait before the first re-send (after a 503 or a retried timeout); doubles each time.
const FIRST_BACKOFF: Duration = Duration::from_millis(50);

/// What a publish needs besides the message, taken from its context.
pub(super) struct Route {
    pub client: Client,
    pub subject: String,
    pub timeout: Duration,
    pub window: AckWindow,
    pub retries: u32,
    /// Whether a timeout is retried too, not only a 503.
    pub retry_timeouts: bool,
}

/// Resolves to the stream's [`PublishAck`], shaped like async-nats's
/// `PublishAckFuture` (`js.publish(s, p).await?.await?`).
///
/// Errors: [`Error::JetStream`] when the stream refused the message (e.g.
/// `err_code` 10071, wrong last sequence), [`Error::Timeout`] without an
/// answer in the context's timeout, and [`Error::NoResponders`] when the
/// retries ran out with no stream leader listening: no stream captures the
/// subject, or its leader is still being elected. The timeout counts from
/// each send. An ack that never comes keeps its window room until the
/// future is polled past its timeout, or dropped.
#[must_use = "the ack is forgotten when its future is dropped"]
pub struct PublishAckFuture {
    route: Route,
    message: Publish,
    retries_left: u32,
    backoff: Duration,
    step: Step,
    answered: Arc<Answered>,
    /// Polls the request, so an answer frees the window room at once.
    answer_waker: Waker,
}

enum Step {
    /// A request in flight; its permit sits in `answered`.
    Waiting {
        response: ResponseFuture,
        deadline: BoxFuture<()>,
    },
    /// The answer came while sending, before anyone polled.
    Answered(Result<Message, Error>),
    /// After a 503, before the re-send.
    Backoff(BoxFuture<()>),
    /// Waiting for window room for the re-send.
    Acquiring(Acquire),
    Done,
}

/// Holds the permit of the request in flight and the task awaiting it.
#[derive(Default)]
struct Answered {
    permit: Mutex<Option<Permit>>,
    task: AtomicWaker,
}

impl Answered {
    fn release(&self) {
        let permit = lock(&self.permit).take();
        drop(permit);
    }
}

impl Wake for Answered {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.release();
        self.task.wake();
    }
}

impl PublishAckFuture {
    /// Sends the first attempt with the room already taken.
    pub(super) fn send(route: Route, message: Publish, permit: Permit) -> Result<Self, Error> {
        let answered = Arc::new(Answered::default());
        let mut future = PublishAckFuture {
            retries_left: route.retries,
            route,
            message,
            backoff: FIRST_BACKOFF,
            step: Step::Done,
            answer_waker: Waker::from(answered.clone()),
            answered,
        };
        future.step = future.attempt(permit)?;
        Ok(future)
    }

    fn attempt(&mut self, permit: Permit) -> Result<Step, Error> {
        let Route { client, subject, timeout, .. } = &self.route;
        let mut response =
            client.start_request_shared(subject, self.message.headers.as_ref(), &self.message.payload, None)?;
        let deadline = DefaultRuntime::sleep(*timeout);
        *lock(&self.answered.permit) = Some(permit);
        Ok(match poll_answer(&mut response, &self.answered, &self.answer_waker) {
            Poll::Ready(answer) => Step::Answered(answer),
            Poll::Pending => Step::Waiting { response, deadline },
        })
    }
}

/// Polls the request with the waker that frees the room, and frees it here
/// when the answer was already there (no wake comes then).
fn poll_answer(response: &mut ResponseFuture, answered: &Answered, waker: &Waker) -> Poll<Result<Message, Error>> {
    let answer = Pin::new(response).poll(&mut task::Context::from_waker(waker));
    if answer.is_ready() {
        answered.release();
    }
    answer
}

impl Future for PublishAckFuture {
    type Output = Result<PublishAck, PublishError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        loop {
            let answer = match &mut this.step {
                Step::Waiting { response, deadline } => {
                    this.answered.task.register(cx.waker());
                    match poll_answer(response, &this.answered, &this.answer_waker) {
                        Poll::Ready(answer) => answer,
                        Poll::Pending => {
                            ready!(deadline.as_mut().poll(cx));
                            this.answered.release();
                            Err(Error::Timeout)
                        }
                    }
                }
                Step::Answered(_) => match mem::replace(&mut this.step, Step::Done) {
                    Step::Answered(answer) => answer,
                    _ => unreachable!(),
                },
                Step::Backoff(sleep) => {
                    ready!(sleep.as_mut().poll(cx));
                    this.step = Step::Acquiring(this.route.window.acquire());
                    continue;
                }
                Step::Acquiring(acquire) => {
                    let permit = ready!(Pin::new(acquire).poll(cx));
                    match this.attempt(permit) {
                        Ok(step) => {
                            this.step = step;
                            continue;
                        }
                        Err(e) => Err(e),
                    }
                }
                Step::Done => panic!("PublishAckFuture polled after completion"),
            };
            match answer {
                Err(Error::NoResponders) | Err(Error::Timeout)
                    if this.retries_left > 0
                        && (this.route.retry_timeouts || matches!(answer, Err(Error::NoResponders))) =>
                {
                    this.retries_left -= 1;
                    this.step = Step::Backoff(DefaultRuntime::sleep(this.backoff));
                    this.backoff *= 2;
                }
                answer => {
                    this.step = Step::Done;
                    let ack = answer.and_then(|reply| parse_plain_response(&reply.payload));
                    return Poll::Ready(ack.map_err(PublishErrorKind::error));
                }
            }
        }
    }
}

impl Drop for PublishAckFuture {
    /// A waker clone may outlive the request somewhere; the room must not.
    fn drop(&mut self) {
        self.answered.release();
    }
}

impl fmt::Debug for PublishAckFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PublishAckFuture")
            .field("subject", &self.route.subject)
            .field("retries_left", &self.retries_left)
            .finish_non_exhaustive()
    }
}
