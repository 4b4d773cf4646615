//! Live metrics (`--metrics ADDR`, `--metrics-push FILE`): an observer beside the terminal's that
//! keeps a [`text::Snapshot`] of the run from what the run loop already hands every observer (the
//! plan, the points, and five times a second the executor's live counters with the seconds the
//! workers have finished) and serves it, or appends it to a file once a second. Nothing here runs
//! on a worker: the workers only hand over each finished second's interval histograms.

mod server;
pub mod text;

use crate::observer::{Message, Observer};
use rigel_exec::LiveCounters;
use rigel_plan::{DataPoint, RunPlan};
use rigel_results::PointResult;
use std::fs::File;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};
use text::{PointNow, SecondNow, Snapshot};

/// How often `--metrics-push` appends the exposition.
const PUSH_EVERY: Duration = Duration::from_secs(1);

/// Why the metrics could not start (the run does not start either).
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error(
        "--metrics {addr}: not an address to listen on ({why}); give HOST:PORT, e.g. 127.0.0.1:9464"
    )]
    Address { addr: String, why: String },
    #[error(
        "--metrics {addr}: cannot listen there: {source}{}",
        if source.kind() == std::io::ErrorKind::AddrInUse {
            " (another process holds the port: pick another)"
        } else {
            ""
        }
    )]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("--metrics-push {}: cannot open it to append: {source}", path.display())]
    Push {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where the metrics go.
#[derive(Clone, Debug, Default)]
pub struct MetricsOptions {
    /// `--metrics HOST:PORT`: serve the exposition there.
    pub listen: Option<String>,
    /// `--metrics-push FILE`: append it there once a second.
    pub push: Option<PathBuf>,
}

impl MetricsOptions {
    pub fn wanted(&self) -> bool {
        self.listen.is_some() || self.push.is_some()
    }
}

/// A fleet rank's address under `--metrics HOST:PORT`: the port plus the rank, so the ranks on
/// one host each serve their own (rank 0 on PORT, rank 1 on PORT + 1, …).
pub fn rank_address(listen: &str, rank: u32) -> Result<String, MetricsError> {
    let bad = |why: &str| MetricsError::Address {
        addr: listen.to_owned(),
        why: why.to_owned(),
    };
    let (host, port) = listen.rsplit_once(':').ok_or_else(|| bad("no port"))?;
    let port: u16 = port.parse().map_err(|_| bad("the port is not a number"))?;
    let port = u32::from(port)
        .checked_add(rank)
        .and_then(|p| u16::try_from(p).ok())
        .ok_or_else(|| bad("the port plus the rank passes 65535"))?;
    Ok(format!("{host}:{port}"))
}

/// The metrics of one run: bound (and the push file opened) before any I/O.
pub struct Metrics {
    text: Arc<Mutex<String>>,
    server: Option<server::Server>,
    push: Option<(PathBuf, File)>,
    snapshot: Snapshot,
    /// Per point: the classes' names, and the plan's time per point (warmup + duration).
    names: Vec<String>,
    per_point: Duration,
    duration_s: f64,
    point_start: Instant,
    seen: Option<(u32, usize)>,
    last_push: Option<Instant>,
}

impl Metrics {
    /// Binds `--metrics` where asked (only there) and opens `--metrics-push`.
    pub fn start(o: &MetricsOptions) -> Result<Metrics, MetricsError> {
        let text = Arc::new(Mutex::new(String::new()));
        let server = match &o.listen {
            Some(addr) => {
                let listener = bind(addr)?;
                let bind_err = |source| MetricsError::Bind {
                    addr: addr.clone(),
                    source,
                };
                Some(server::Server::start(listener, Arc::clone(&text)).map_err(bind_err)?)
            }
            None => None,
        };
        let push = match &o.push {
            Some(p) => Some((p.clone(), open_push(p)?)),
            None => None,
        };
        let m = Metrics {
            text,
            server,
            push,
            snapshot: Snapshot::default(),
            names: Vec::new(),
            per_point: Duration::ZERO,
            duration_s: 1.0,
            point_start: Instant::now(),
            seen: None,
            last_push: None,
        };
        m.publish();
        Ok(m)
    }

    /// Where the endpoint listens (the port the system chose for port 0).
    pub fn address(&self) -> Option<SocketAddr> {
        self.server.as_ref().map(|s| s.addr)
    }

    /// An observer that tells `inner` everything and keeps these metrics too.
    pub fn watching<'a>(&'a mut self, inner: &'a mut dyn Observer) -> Watching<'a> {
        Watching {
            metrics: self,
            inner,
        }
    }

    /// The exposition served now.
    pub fn text(&self) -> String {
        self.text
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Refreshes the clock-driven figures and serves the snapshot.
    fn refresh(&mut self) {
        let cpu = rigel_exec::process_cpu();
        let s = &mut self.snapshot;
        s.cpu_user_s = cpu.user_s;
        s.cpu_system_s = cpu.system_s;
        s.time_s = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let per = self.per_point.as_secs_f64();
        let total = per * s.points as f64;
        let in_point = if s.point.is_some() {
            self.point_start.elapsed().as_secs_f64().min(per)
        } else {
            0.0
        };
        let spent = (per * s.done as f64 + in_point).min(total);
        s.progress = if total > 0.0 { spent / total } else { 0.0 };
        s.eta_s = total - spent;
        self.publish();
    }

    /// Serves the snapshot, and appends it to the push file once a second.
    fn publish(&self) {
        let text = text::render(&self.snapshot);
        *self.text.lock().unwrap_or_else(PoisonError::into_inner) = text;
    }

    /// Appends the exposition to `--metrics-push` when a second has passed (`force`: now).
    fn push(&mut self, force: bool) -> Option<String> {
        let due = self.last_push.is_none_or(|t| t.elapsed() >= PUSH_EVERY);
        let (path, file) = self.push.as_mut()?;
        if !(due || force) {
            return None;
        }
        self.last_push = Some(Instant::now());
        let text = self
            .text
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match file.write_all(text.as_bytes()) {
            Ok(()) => None,
            Err(e) => {
                let said = format!("--metrics-push {}: {e}; no more pushes", path.display());
                self.push = None;
                Some(said)
            }
        }
    }

    fn tick(&mut self, live: &LiveCounters) {
        live.seconds.watch();
        if let Some(second) = live.seconds.latest(self.seen) {
            self.seen = Some((second.point, second.index));
            // The window's last second may be cut short (a duration not in whole seconds).
            let length = (self.duration_s - second.index as f64).min(1.0);
            self.snapshot.second = Some(SecondNow::of(&second, &self.names, length));
        }
        self.refresh();
    }
}

/// Binds exactly `addr` (every address it names, the first that binds).
fn bind(addr: &str) -> Result<TcpListener, MetricsError> {
    let addrs: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| MetricsError::Address {
            addr: addr.to_owned(),
            why: e.to_string(),
        })?
        .collect();
    let mut last = None;
    for a in &addrs {
        match TcpListener::bind(a) {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(source) => MetricsError::Bind {
            addr: addr.to_owned(),
            source,
        },
        None => MetricsError::Address {
            addr: addr.to_owned(),
            why: "it names no address".into(),
        },
    })
}

fn open_push(path: &Path) -> Result<File, MetricsError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| MetricsError::Push {
            path: path.to_owned(),
            source,
        })
}

/// The terminal's observer and the metrics, told the same events.
pub struct Watching<'a> {
    metrics: &'a mut Metrics,
    inner: &'a mut dyn Observer,
}

impl Watching<'_> {
    fn pushed(&mut self, force: bool) {
        if let Some(e) = self.metrics.push(force) {
            self.inner.message(Message::Warning(e));
        }
    }
}

impl Observer for Watching<'_> {
    fn fill_started(&mut self, path: &Path, total: u64) {
        self.inner.fill_started(path, total);
    }
    fn precondition_started(&mut self, total: u64, read: bool) {
        self.inner.precondition_started(total, read);
    }
    fn fill_progress(&mut self, done: u64) {
        self.inner.fill_progress(done);
    }
    fn fill_finished(&mut self) {
        self.inner.fill_finished();
    }
    fn job(&mut self, spec: &str, sha256: &str) {
        self.metrics.snapshot.spec = spec.to_owned();
        self.metrics.snapshot.sha256 = sha256.to_owned();
        self.metrics.refresh();
        self.inner.job(spec, sha256);
    }
    fn run_started(&mut self, plan: &RunPlan, todo: usize) {
        let m = &mut *self.metrics;
        m.snapshot.points = todo;
        m.per_point = Duration::from_millis(plan.run.duration_ms + plan.run.warmup_ms);
        m.duration_s = plan.run.duration_ms as f64 / 1000.0;
        m.refresh();
        self.inner.run_started(plan, todo);
        self.pushed(true);
    }
    fn point_started(&mut self, index: usize, point: &DataPoint) {
        let m = &mut *self.metrics;
        m.names = point.classes.iter().map(|c| c.class.clone()).collect();
        m.point_start = Instant::now();
        m.snapshot.point = Some(PointNow {
            place: index + 1,
            id: point.id,
            loads: point
                .classes
                .iter()
                .map(|c| (c.class.clone(), c.outstanding))
                .collect(),
        });
        m.refresh();
        self.inner.point_started(index, point);
    }
    fn tick(&mut self, live: &LiveCounters) {
        self.metrics.tick(live);
        self.inner.tick(live);
        self.pushed(false);
    }
    fn point_finished(&mut self, result: &PointResult) {
        self.metrics.snapshot.done += 1;
        self.metrics.refresh();
        self.inner.point_finished(result);
    }
    fn run_finished(&mut self) {
        self.metrics.snapshot.point = None;
        self.metrics.refresh();
        self.inner.run_finished();
        self.pushed(true);
    }
    fn message(&mut self, m: Message) {
        self.inner.message(m);
    }
}
