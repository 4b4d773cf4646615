//! The metrics endpoint: std's `TcpListener` on one thread, answering `GET /metrics` with the last
//! exposition. One read-only endpoint that a scraper hits once every few seconds needs no HTTP
//! framework (and no async runtime beside the executor's threads); the listener is bound by the
//! caller before any I/O, so a port in use is an error before the run starts.

use super::text::CONTENT_TYPE;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the idle accept loop looks for a connection or the stop flag.
const POLL: Duration = Duration::from_millis(50);
/// How long a client may take to send its request head.
const READ_LIMIT: Duration = Duration::from_secs(2);
/// The longest request head read (a scraper's is a few hundred bytes).
const HEAD_LIMIT: usize = 8192;

/// The serving thread; stopped and joined when dropped.
pub(super) struct Server {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    pub(super) addr: SocketAddr,
}

impl Server {
    /// Serves `text` on `listener` until dropped.
    pub(super) fn start(
        listener: TcpListener,
        text: Arc<Mutex<String>>,
    ) -> std::io::Result<Server> {
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("rigel-metrics".into())
            .spawn(move || serve(&listener, &text, &flag))?;
        Ok(Server {
            stop,
            thread: Some(thread),
            addr,
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(listener: &TcpListener, text: &Mutex<String>, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            // A client's failure (it hung up, sent nothing) is its own: the endpoint goes on.
            Ok((stream, _)) => {
                let _ = answer(stream, text);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(_) => std::thread::sleep(POLL),
        }
    }
}

/// Reads one request head and answers it; the connection then closes.
fn answer(mut stream: TcpStream, text: &Mutex<String>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(READ_LIMIT))?;
    stream.set_write_timeout(Some(READ_LIMIT))?;
    let head = read_head(&mut stream)?;
    let request = head.lines().next().unwrap_or_default();
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    let (status, kind, body) = match (method, path) {
        ("GET" | "HEAD", "/metrics" | "/") => {
            let body = text.lock().unwrap_or_else(PoisonError::into_inner).clone();
            ("200 OK", CONTENT_TYPE, body)
        }
        ("GET" | "HEAD", _) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "rigel serves its metrics at /metrics\n".to_owned(),
        ),
        _ => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            "GET /metrics\n".to_owned(),
        ),
    };
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    if method != "HEAD" {
        out.extend_from_slice(body.as_bytes());
    }
    stream.write_all(&out)?;
    stream.flush()
}

/// The request up to its blank line (or what came before the client stopped sending).
fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < HEAD_LIMIT {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}
