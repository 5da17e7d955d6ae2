//! For tests only: a real single-node Apache Kafka broker (KRaft, broker and controller
//! in one JVM) and an independent consumer. The server's and the binary's tests use it,
//! so it is a crate of its own rather than a copied module.
//!
//! Everything runs from the jars that `scripts/kafka.sh fetch` caches from Maven Central, on
//! the machine's Java (17+, `$JAVA_HOME/bin/java` or `java` on the PATH).  Reading back goes
//! through Kafka's own ConsoleConsumer rather than our client code, so a test checks what
//! really reached the broker.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{OnceLock, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// The broker logs this once it is unfenced and its listeners accept requests; an open TCP
/// port alone comes seconds earlier, before the broker can serve metadata.
const READY_LINE: &str = "Kafka Server started";
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// A graceful shutdown takes well under 2 s; past this the broker is killed outright.
const STOP_TIMEOUT: Duration = Duration::from_secs(15);
/// JVM flags for every Kafka JVM.  C1 only: these JVMs live for seconds and move little data,
/// so skipping the C2 compiler saves about a fifth of the startup on a 2-core machine.
const JVM_FLAGS: &[&str] = &["-XX:TieredStopAtLevel=1", "-Dfile.encoding=UTF-8"];

pub struct Broker {
    dir: TempDir,
    lib: PathBuf,
    /// The broker's port; its controller listens on the next one.
    port: u16,
    child: Option<Child>,
    /// Where the current run's output begins in `broker.log`, which every run appends to.
    log_start: u64,
}

impl Broker {
    /// Fetches Kafka if needed and starts a broker on free loopback ports with a fresh
    /// data dir, as `scripts/kafka.sh serve` configures and formats it; returns once it
    /// serves clients.
    pub fn start() -> Broker {
        let lib = kafka_lib().to_path_buf();
        let dir = tempfile::Builder::new()
            .prefix("quire-kafka-")
            .tempdir()
            .expect("create Kafka temp dir");
        let port = free_port_pair();
        let mut broker = Broker { dir, lib, port, child: None, log_start: 0 };
        broker.spawn();
        broker.wait_ready();
        broker
    }

    pub fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Shuts the broker down gracefully (SIGTERM, like a service manager would) and waits for
    /// it to exit; kills it if that takes too long.  Data stays for `restart`.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        // std can only send SIGKILL; `kill` is there on every Linux.
        let termed = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        let deadline = Instant::now() + STOP_TIMEOUT;
        while termed && Instant::now() < deadline {
            if child.try_wait().expect("poll Kafka broker").is_some() {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Starts the broker again on the same ports and data, as after a crash or an upgrade.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
        self.wait_ready();
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("broker.log")
    }

    fn spawn(&mut self) {
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .expect("open broker.log");
        self.log_start = log.metadata().expect("stat broker.log").len();
        // The script writes the configuration, formats the data dir on the first run and
        // then becomes the broker's JVM (`exec`), so the child is the broker itself.
        // Timestamps make the log usable when a test fails on timing.
        let java_opts = [
            "-Xmx512m",
            JVM_FLAGS.join(" ").as_str(),
            "-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
        ]
        .join(" ");
        let child = Command::new("bash")
            .arg(script())
            .arg("serve")
            .arg(self.dir.path())
            .arg(self.port.to_string())
            .env("QUIRE_KAFKA_JAVA_OPTS", java_opts)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("clone broker.log handle"))
            .stderr(log)
            .spawn()
            .expect("start scripts/kafka.sh serve");
        self.child = Some(child);
    }

    fn wait_ready(&mut self) {
        let started = Instant::now();
        loop {
            if self.run_log().contains(READY_LINE) {
                return;
            }
            let child = self.child.as_mut().expect("broker was spawned");
            if let Some(status) = child.try_wait().expect("poll Kafka broker") {
                self.child = None;
                panic!(
                    "Kafka broker exited during startup ({status}); log tail:\n{}",
                    self.log_tail()
                );
            }
            if started.elapsed() > START_TIMEOUT {
                panic!(
                    "Kafka broker not ready after {START_TIMEOUT:?}; log tail:\n{}",
                    self.log_tail()
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// The current run's part of the log, so that a restart is not fooled by the last run's
    /// ready line.
    fn run_log(&self) -> String {
        let mut bytes = Vec::new();
        if let Ok(mut file) = File::open(self.log_path())
            && file.seek(SeekFrom::Start(self.log_start)).is_ok()
        {
            let _ = file.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn log_tail(&self) -> String {
        let log = self.run_log();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(60)..].join("\n")
    }

    fn java(&self) -> Command {
        java(&self.lib)
    }
}

impl Drop for Broker {
    /// No graceful shutdown here: the data dir is deleted right after, so nothing is saved
    /// by waiting.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[derive(Debug, Clone)]
pub struct Message {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
    pub key: Option<String>,
    pub headers: Vec<(String, String)>,
    /// A null value (a tombstone) reads as the empty string, and so does a null header value.
    pub value: String,
}

/// How many messages each partition of the topics matching `topic_regex` holds (its end
/// offset), by Kafka's own GetOffsetShell: `(topic, partition, end offset)`, sorted.
pub fn end_offsets(broker: &Broker, topic_regex: &str) -> Vec<(String, i32, i64)> {
    let out = broker
        .java()
        .arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
        .arg("org.apache.kafka.tools.GetOffsetShell")
        .args(["--bootstrap-server", &broker.bootstrap()])
        .args(["--topic-partitions", topic_regex])
        .output()
        .expect("run Kafka GetOffsetShell (is Java installed?)");
    assert!(
        out.status.success(),
        "GetOffsetShell failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut offsets: Vec<(String, i32, i64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut parts = line.rsplitn(3, ':');
            let offset = parts.next()?.parse().ok()?;
            let partition = parts.next()?.parse().ok()?;
            Some((parts.next()?.to_string(), partition, offset))
        })
        .collect();
    offsets.sort();
    offsets
}

/// Reads every message of the topics matching `topic_regex` (a Java regex, matched against
/// whole topic names) from the beginning with Kafka's own ConsoleConsumer (an independent
/// client), until `expected` messages arrived or `timeout` passed; returns what it read.
/// With `expected == 0` it reads for the whole `timeout`, to show that nothing is there.
///
/// It reads as a fresh consumer group with `read_committed`, as a downstream service would:
/// records of aborted or still open transactions are not returned.  Records come in order
/// within a partition, not across partitions.
pub fn consume(
    broker: &Broker,
    topic_regex: &str,
    expected: usize,
    timeout: Duration,
) -> Vec<Message> {
    let deadline = Instant::now() + timeout;
    let stderr_path = broker.dir.path().join(format!("consumer-{}.log", next_id()));
    let stderr = File::create(&stderr_path).expect("create consumer log");

    let mut cmd = broker.java();
    cmd.arg("-Xmx256m")
        // The consumer's INFO chatter would bury the one line that matters when it fails.
        .arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
        .arg("org.apache.kafka.tools.consumer.ConsoleConsumer")
        .args(["--bootstrap-server", &broker.bootstrap()])
        .args(["--include", topic_regex])
        .arg("--from-beginning")
        // A group of its own, so that no earlier call's committed offsets apply.
        .args(["--group", &format!("quire-test-consume-{}-{}", std::process::id(), next_id())])
        .args(["--isolation-level", "read_committed"])
        // Stock formatters cannot print the topic; this one is built by scripts/kafka.sh.
        .args(["--formatter", "quire.kafka.LineFormatter"])
        // Regex subscriptions only see topics in the metadata the client holds: refresh it
        // often, so that a topic created just after the consumer started is picked up too.
        .args(["--consumer-property", "metadata.max.age.ms=500"])
        // A safety net should this process outlive us: it exits once idle that long.
        .args(["--timeout-ms", &timeout.as_millis().max(1).to_string()]);
    if expected > 0 {
        cmd.args(["--max-messages", &expected.to_string()]);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("start Kafka ConsoleConsumer (is Java installed?)");

    // A reader thread, so that waiting for lines can time out.
    let stdout = child.stdout.take().expect("consumer stdout is piped");
    let (tx, rx) = mpsc::channel();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });

    let mut messages = Vec::new();
    let mut garbage = None;
    while expected == 0 || messages.len() < expected {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => match parse_line(&line) {
                Some(message) => messages.push(message),
                None => {
                    garbage = Some(line);
                    break;
                }
            },
            // Timed out, or the consumer exited (done, or failed: its log tells below).
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = reader.join();
    // Only now that the consumer is gone, so a failing test leaves no JVM behind.
    if let Some(line) = garbage {
        panic!("unexpected ConsoleConsumer output: {line:?}");
    }

    if messages.len() < expected {
        // Shown by the test harness only if the test then fails, which is when it helps.
        let log = fs::read_to_string(&stderr_path).unwrap_or_default();
        eprintln!(
            "consume({topic_regex:?}): {} of {expected} messages within {timeout:?}; \
             ConsoleConsumer stderr:\n{log}",
            messages.len()
        );
    }
    messages
}

/// Parses one line of `quire.kafka.LineFormatter`: topic, partition, offset, key, value, then
/// header name/value pairs, tab-separated, escaped, `\N` for null.
fn parse_line(line: &str) -> Option<Message> {
    let fields: Vec<Option<String>> = line.split('\t').map(unescape).collect();
    if fields.len() < 5 || fields.len().is_multiple_of(2) {
        return None;
    }
    let text = |i: usize| fields[i].clone();
    let headers = fields[5..]
        .chunks(2)
        .map(|pair| Some((pair[0].clone()?, pair[1].clone().unwrap_or_default())))
        .collect::<Option<Vec<_>>>()?;
    Some(Message {
        topic: text(0)?,
        partition: text(1)?.parse().ok()?,
        offset: text(2)?.parse().ok()?,
        key: text(3),
        headers,
        value: text(4).unwrap_or_default(),
    })
}

/// Undoes the formatter's escaping; `None` for its null marker.
fn unescape(field: &str) -> Option<String> {
    if field == "\\N" {
        return None;
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(out)
}

/// `scripts/kafka.sh`, which fetches Kafka and runs a broker.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka.sh")
}

/// The cached Kafka lib dir, fetched at most once per test process (the script itself
/// serializes fetches across processes).
fn kafka_lib() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let script = script();
        // Through bash, so a checkout that lost the exec bit still works.
        let out = Command::new("bash")
            .arg(&script)
            .arg("fetch")
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "{} fetch failed ({}):\n{}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let lib = String::from_utf8(out.stdout).expect("kafka.sh prints a UTF-8 path");
        PathBuf::from(lib.trim_end())
    })
}

fn java(lib: &Path) -> Command {
    let java = std::env::var_os("JAVA_HOME")
        .map(|home| PathBuf::from(home).join("bin/java"))
        .unwrap_or_else(|| PathBuf::from("java"));
    let mut cmd = Command::new(java);
    // The JVM expands `dir/*` to every jar in dir itself.
    cmd.args(JVM_FLAGS).arg("-cp").arg(lib.join("*"));
    cmd
}

/// A free loopback port whose successor is free too: the broker's and its controller's
/// (`scripts/kafka.sh serve` puts the controller on the next port). Another process could
/// still take one before the broker binds it, which is rare enough for tests.
fn free_port_pair() -> u16 {
    loop {
        let first = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
        let port = first.local_addr().expect("local addr").port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
}

/// Unique within the process, for consumer group and log file names.
fn next_id() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
