//! The listening loop: HTTP/1 connections under limits that no client can lift.
//!
//! `axum::serve` reads a request's head for as long as a client likes and accepts every
//! connection, so a few clients that send half a request, or many that send nothing, hold
//! the service and keep SIGTERM from finishing. Here each connection
//! - must send a request's head within `header_timeout` (and may stay idle between
//!   requests no longer), its body within `body_timeout` ([`crate::api`]'s body layer);
//! - counts against `max_connections` and, per client address, `max_connections_per_client`:
//!   a connection beyond either gets a short 503 written without waiting on the client,
//!   and is closed (an IPv6 client is counted by its /64, which one host commonly holds
//!   whole, see [`client_key`]);
//! - is closed when a write of its answer makes no progress for `write_timeout` (a client
//!   that sends requests but never reads the answers);
//! - has a head of at most [`MAX_HEAD`] bytes buffered.
//!
//! On shutdown the listener closes, each connection finishes the request in flight (its
//! answer logged before it is sent), and after `shutdown` whatever is still open is
//! dropped, so a slow client cannot hold the service up.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tower_service::Service;

/// The most bytes of a request's head buffered (hyper answers a bare 431 beyond it; the
/// API answers a JSON 431 above [`crate::api::MAX_HEAD_FIELDS`] already).
pub const MAX_HEAD: usize = 64 * 1024;

/// The limits of [`serve`].
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most time to send a request's head, or to stay idle between requests.
    pub header_timeout: Duration,
    /// Most time a write of an answer may make no progress.
    pub write_timeout: Duration,
    /// Connections at once.
    pub max_connections: usize,
    /// Connections at once from one client address.
    pub max_per_client: usize,
    /// After shutdown begins, most time before open connections are dropped.
    pub shutdown: Duration,
}

/// Open connections, in all and per client address.
#[derive(Default)]
struct Open {
    total: usize,
    by_client: HashMap<IpAddr, usize>,
}

/// One connection's place among the open ones, given back when dropped.
struct Slot {
    open: Arc<Mutex<Open>>,
    client: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.total -= 1;
        if let Some(n) = open.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.by_client.remove(&self.client);
            }
        }
    }
}

/// A place for a connection from `client`, unless a limit is reached.
fn take(open: &Arc<Mutex<Open>>, client: IpAddr, limits: &Limits) -> Option<Slot> {
    let mut o = open.lock().unwrap_or_else(|p| p.into_inner());
    let mine = o.by_client.get(&client).copied().unwrap_or(0);
    if o.total >= limits.max_connections || mine >= limits.max_per_client {
        return None;
    }
    o.total += 1;
    *o.by_client.entry(client).or_insert(0) += 1;
    Some(Slot {
        open: open.clone(),
        client,
    })
}

/// What a client is counted as: its IPv4 address (an IPv4-mapped IPv6 address too), or
/// the /64 of its IPv6 address.
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(std::net::Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

/// A connection whose writes fail once one has made no progress for `stall`.
struct Stalling<T> {
    inner: T,
    stall: Duration,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> Stalling<T> {
    /// A write that is pending: pending still, or an error once the stall has lasted.
    fn stalled<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let stall = self.stall;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(stall)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing of its answer for too long",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progressed<R>(&mut self, r: io::Result<R>) -> Poll<io::Result<R>> {
        self.timer = None;
        Poll::Ready(r)
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Stalling<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Stalling<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// The answer to a connection beyond a limit.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
connection: close\r\ncontent-length: 56\r\n\r\n\
{\"error\":\"too many connections: try again\",\"status\":503}";

/// Serves `router` on `listener` under `limits` until `shutdown` completes, then lets the
/// requests in flight finish for at most `limits.shutdown`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let graceful = GracefulShutdown::new();
    let open = Arc::new(Mutex::new(Open::default()));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(MAX_HEAD);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // out of file descriptors or a connection reset before it was taken: the
                // loop goes on after a pause rather than spinning
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Some(slot) = take(&open, client_key(peer.ip()), &limits) else {
            let _ = stream.try_write(BUSY);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request
                .extensions_mut()
                .insert(ConnectInfo::<SocketAddr>(peer));
            router.clone().call(request)
        });
        let stream = Stalling {
            inner: stream,
            stall: limits.write_timeout,
            timer: None,
        };
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(limits.shutdown) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_count_per_client_and_in_all_and_come_back() {
        let limits = Limits {
            header_timeout: Duration::from_secs(1),
            write_timeout: Duration::from_secs(1),
            max_connections: 3,
            max_per_client: 2,
            shutdown: Duration::from_secs(1),
        };
        let open = Arc::new(Mutex::new(Open::default()));
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        let a1 = take(&open, a, &limits).unwrap();
        let _a2 = take(&open, a, &limits).unwrap();
        assert!(take(&open, a, &limits).is_none(), "per client");
        let _b1 = take(&open, b, &limits).unwrap();
        assert!(take(&open, b, &limits).is_none(), "in all");
        drop(a1);
        assert!(take(&open, b, &limits).is_some(), "a slot comes back");
        let body = BUSY.split(|&c| c == b'\n').next_back().unwrap();
        assert_eq!(body.len(), 56);
        assert!(serde_json::from_slice::<serde_json::Value>(body).is_ok());
    }

    #[test]
    fn clients_are_counted_by_ipv4_address_or_ipv6_slash_64() {
        let key = |s: &str| client_key(s.parse().unwrap()).to_string();
        assert_eq!(key("127.0.0.2"), "127.0.0.2");
        assert_eq!(key("::ffff:10.1.2.3"), "10.1.2.3");
        assert_eq!(key("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::");
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
    }
}
