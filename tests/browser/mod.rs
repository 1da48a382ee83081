//! Renders a self-contained HTML file in headless Chromium and reports what
//! a reader would have seen: the errors in the console, the DOM once the
//! page has loaded, and a screenshot. Integration tests include it with
//! `mod browser;`.
//!
//! Chromium is driven over the Chrome DevTools Protocol on a pipe
//! (`--remote-debugging-pipe`: requests on fd 3, replies and events on fd 4,
//! each a JSON text ending in a NUL byte). That is what makes the console
//! trustworthy: every message arrives with its level, so `console.error` is
//! told apart from `console.log`, uncaught exceptions and failed loads are
//! separate events, and nothing depends on the wording of Chromium's log
//! lines. (`--enable-logging=stderr` prints every console message as
//! `INFO:CONSOLE` whatever its level, and no failed resource loads at all.)
//! The pipe needs no WebSocket client, only std and serde_json.
//!
//! Every render starts its own Chromium with an empty profile in a fresh
//! temporary directory, in its own process group; when the render is done,
//! however it ends, the group is killed, the process reaped and the directory
//! removed. Nothing is left running.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What a render saw.
#[derive(Debug)]
pub struct Rendered {
    /// Console messages at level error (console.error and failed
    /// console.assert, uncaught exceptions, failed resource loads), as text,
    /// in the order they came.
    pub console_errors: Vec<String>,
    /// The DOM after load (document.documentElement.outerHTML).
    pub dom: String,
    /// A PNG screenshot of the page.
    pub screenshot: PathBuf,
    /// What each of [`Visit::probes`] evaluated to, in order (read by the
    /// binaries that ask; every binary that renders includes this module).
    #[allow(dead_code)]
    pub probes: Vec<Value>,
}

/// What a render does beyond loading and reading the page.
#[derive(Default)]
pub struct Visit<'a> {
    /// JavaScript expressions evaluated in the page once it has loaded (the
    /// page has no script of its own: these are the test's questions about
    /// its layout), each awaited if it is a promise.
    pub probes: &'a [&'a str],
    /// Where to print the page to PDF (`Page.printToPDF`, with the page's
    /// own `@page` size), as a reader printing it would.
    pub pdf: Option<&'a Path>,
}

/// The window the page is laid out in, in CSS pixels: a laptop screen, so
/// that a layout that only works on a wide monitor shows up in screenshots.
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 800;

/// The screenshot covers the whole page, down to this height at most
/// (a runaway layout should not make a gigabyte PNG).
const MAX_SCREENSHOT_HEIGHT: f64 = 8192.0;

/// A render that takes longer than this has hung; Chromium is killed and the
/// render fails. A render normally takes well under a second.
const TIMEOUT: Duration = Duration::from_secs(60);

/// How long Chromium gets to exit by itself once asked to close before its
/// process group is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// What tests say when there is no Chromium: they fail rather than skip, so
/// a machine without it cannot pass the report tests unnoticed.
const NOT_INSTALLED: &str = "chromium is not installed, and the report tests need it to render the \
     reports: run .ci/run, or apt-get install chromium";

/// Headless, and nothing that reaches for the network (which is closed here:
/// Chromium would stall on refused connections) or for a sandbox (we may run
/// as root, where Chromium refuses to start sandboxed).
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-pipe",
];

/// Where chromium is (on PATH, or Debian's /usr/bin/chromium), or None when
/// it is not installed. Without it [`render`] is an Err saying to run
/// .ci/run or apt-get install chromium: the tests fail, they do not skip.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .chain([PathBuf::from("/usr/bin/chromium")])
        .find(|candidate| candidate.is_file())
}

/// Renders the HTML file `html` in headless Chromium and saves a PNG
/// screenshot of it to `screenshot`.
///
/// The page is loaded from a file:// URL in a 1280×800 window; once its load
/// event has fired and two animation frames have been drawn (so charts drawn
/// in `requestAnimationFrame` are there), the DOM is read and the whole page
/// is captured. An Err says what went wrong, with the end of Chromium's
/// stderr; console errors are not an Err, they are in
/// [`Rendered::console_errors`] for the test to judge.
pub fn render(html: &Path, screenshot: &Path) -> Result<Rendered, String> {
    render_with(html, screenshot, &Visit::default())
}

/// As [`render`], then evaluates `visit.probes` and prints the page to
/// `visit.pdf`.
pub fn render_with(html: &Path, screenshot: &Path, visit: &Visit) -> Result<Rendered, String> {
    let exe = chromium().ok_or_else(|| NOT_INSTALLED.to_string())?;
    let html = html.canonicalize().map_err(|e| format!("cannot render {}: {e}", html.display()))?;
    let mut browser = Browser::launch(&exe)?;
    let outcome = browser.visit(&html, screenshot, visit);
    browser.close();
    outcome.map_err(|e| {
        format!(
            "rendering {} in {}: {e}\n--- the end of chromium's stderr ---\n{}",
            html.display(),
            exe.display(),
            browser.stderr_tail()
        )
    })
}

/// The `d` attributes of every `<path>` element in `dom` (as serialized by
/// [`Rendered::dom`]), in document order, for checking that charts have
/// non-empty paths.
///
/// A `<path>` without a `d` attribute gives "", so that it is caught as an
/// empty path too. Entities in the value are decoded. Markup inside
/// `<script>`, `<style>`, `<template>` and comments is not part of the page
/// and is skipped: a script that builds paths from strings does not count.
pub fn path_data(dom: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = dom;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        if let Some(comment) = rest.strip_prefix("!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let (name, attributes, after) = tag(rest);
        rest = after;
        if name.eq_ignore_ascii_case("path") {
            let d = attributes.iter().find(|(name, _)| name.eq_ignore_ascii_case("d"));
            found.push(d.map(|(_, value)| unescape(value)).unwrap_or_default());
        }
        for raw in ["script", "style", "template"] {
            if name.eq_ignore_ascii_case(raw) {
                rest = find_ignore_case(rest, &format!("</{raw}")).map_or("", |end| &rest[end..]);
            }
        }
    }
    found
}

/// One Chromium, its DevTools pipe and its temporary directory (profile,
/// config, cache, stderr). Dropping it kills and reaps the lot and removes
/// the directory.
struct Browser {
    child: Child,
    dir: PathBuf,
    /// Requests to Chromium (its fd 3); None once closed.
    requests: Option<ChildStdin>,
    /// Replies and events from Chromium (its fd 4), one JSON value each.
    messages: Receiver<Result<Value, String>>,
    deadline: Instant,
    next_id: u64,
    /// The page's session, once attached; requests then go to the page.
    session: Option<String>,
    console_errors: Vec<String>,
    loaded: bool,
}

impl Browser {
    fn launch(exe: &Path) -> Result<Browser, String> {
        static LAUNCHES: AtomicUsize = AtomicUsize::new(0);
        let n = LAUNCHES.fetch_add(1, Ordering::Relaxed);
        let dir = crate::common::temp_path(&format!("chromium-{n}"));
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let stderr = File::create(dir.join("stderr"))
            .map_err(|e| format!("cannot create {}: {e}", dir.join("stderr").display()))?;
        // std cannot hand a child fds 3 and 4, so sh moves the two pipes
        // there (stdin and stdout) before it execs Chromium, which keeps
        // the pid. Chromium's own stdout goes to the stderr file.
        // XDG_CONFIG_HOME and XDG_CACHE_HOME keep what it writes outside
        // --user-data-dir (crash report database, dconf cache) out of $HOME.
        let spawned = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>&2"#)
            .arg(exe)
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(format!("--window-size={WIDTH},{HEIGHT}"))
            .arg("about:blank")
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                let _ = fs::remove_dir_all(&dir);
                return Err(format!("cannot start {}: {e}", exe.display()));
            }
        };
        let requests = child.stdin.take();
        let replies = child.stdout.take().map(BufReader::new);
        let (send, messages) = mpsc::channel();
        // Reads until Chromium closes the pipe (it exited or was killed); a
        // render that gives up early drops the receiver, which ends it too.
        thread::spawn(move || {
            let Some(mut replies) = replies else { return };
            let mut message = Vec::new();
            while let Ok(1..) = replies.read_until(0, &mut message) {
                if message.last() == Some(&0) {
                    message.pop();
                }
                let parsed = serde_json::from_slice(&message).map_err(|e| {
                    format!("unreadable DevTools message ({e}): {}", String::from_utf8_lossy(&message))
                });
                if send.send(parsed).is_err() {
                    return;
                }
                message.clear();
            }
        });
        Ok(Browser {
            child,
            dir,
            requests,
            messages,
            deadline: Instant::now() + TIMEOUT,
            next_id: 0,
            session: None,
            console_errors: Vec::new(),
            loaded: false,
        })
    }

    /// Loads `html` in the page and reads back what it shows.
    fn visit(&mut self, html: &Path, screenshot: &Path, visit: &Visit) -> Result<Rendered, String> {
        // Chromium opens about:blank on start; attach to that page, or to a
        // new one should it not be there yet.
        let targets = self.call("Target.getTargets", json!({}))?;
        let page = targets["targetInfos"]
            .as_array()
            .and_then(|targets| targets.iter().find(|target| target["type"] == "page"))
            .map(|target| target["targetId"].clone());
        let page = match page {
            Some(page) => page,
            None => self.call("Target.createTarget", json!({ "url": "about:blank" }))?["targetId"].clone(),
        };
        let attached = self.call("Target.attachToTarget", json!({ "targetId": page, "flatten": true }))?;
        let session = attached["sessionId"].as_str().ok_or("Target.attachToTarget gave no sessionId")?;
        self.session = Some(session.to_string());

        // Console and log first, so nothing the page says is missed.
        self.call("Runtime.enable", json!({}))?;
        self.call("Log.enable", json!({}))?;
        self.call("Page.enable", json!({}))?;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": false }),
        )?;
        let navigated = self.call("Page.navigate", json!({ "url": file_url(html) }))?;
        if let Some(error) = navigated["errorText"].as_str().filter(|error| !error.is_empty()) {
            return Err(format!("Page.navigate: {error}"));
        }
        while !self.loaded {
            let message = self.next().map_err(|e| format!("waiting for the page to load: {e}"))?;
            self.observe(&message)?;
        }
        self.evaluate(
            "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done))))",
        )?;
        let dom = self.evaluate("document.documentElement.outerHTML")?;
        let dom = dom.as_str().ok_or("document.documentElement.outerHTML is not a string")?.to_string();

        let metrics = self.call("Page.getLayoutMetrics", json!({}))?;
        let height = metrics["cssContentSize"]["height"].as_f64().unwrap_or(f64::from(HEIGHT));
        let height = height.clamp(f64::from(HEIGHT), MAX_SCREENSHOT_HEIGHT);
        let shot = self.call(
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "captureBeyondViewport": true,
                "clip": { "x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1 },
            }),
        )?;
        let png = base64(shot["data"].as_str().ok_or("Page.captureScreenshot gave no data")?)?;
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err("Page.captureScreenshot did not give a PNG".to_string());
        }
        fs::write(screenshot, png).map_err(|e| format!("cannot write {}: {e}", screenshot.display()))?;

        let mut probes = Vec::new();
        for probe in visit.probes {
            probes.push(self.evaluate(probe)?);
        }
        if let Some(pdf) = visit.pdf {
            let printed =
                self.call("Page.printToPDF", json!({ "preferCSSPageSize": true, "printBackground": true }))?;
            let bytes = base64(printed["data"].as_str().ok_or("Page.printToPDF gave no data")?)?;
            if !bytes.starts_with(b"%PDF") {
                return Err("Page.printToPDF did not give a PDF".to_string());
            }
            fs::write(pdf, bytes).map_err(|e| format!("cannot write {}: {e}", pdf.display()))?;
        }

        Ok(Rendered {
            console_errors: std::mem::take(&mut self.console_errors),
            dom,
            screenshot: screenshot.to_path_buf(),
            probes,
        })
    }

    /// Evaluates `expression` in the page, awaiting it if it is a promise;
    /// an exception is an Err.
    fn evaluate(&mut self, expression: &str) -> Result<Value, String> {
        let mut result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        )?;
        if let Some(exception) = result.get("exceptionDetails") {
            return Err(format!("evaluating {expression}: {}", exception_text(exception)));
        }
        Ok(result["result"]["value"].take())
    }

    /// Sends a request (to the page once attached) and waits for its reply,
    /// noting the events that arrive meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut request = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = &self.session {
            request["sessionId"] = json!(session);
        }
        let mut text = request.to_string().into_bytes();
        text.push(0);
        let requests = self.requests.as_mut().ok_or("the DevTools pipe is closed")?;
        requests
            .write_all(&text)
            .and_then(|()| requests.flush())
            .map_err(|e| format!("{method}: cannot write to chromium: {e}"))?;
        loop {
            let mut message = self.next().map_err(|e| format!("{method}: {e}"))?;
            if message["id"] != id {
                self.observe(&message)?;
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(format!("{method}: {error}"));
            }
            return Ok(message["result"].take());
        }
    }

    /// The next message from Chromium, or an Err if it exited or the render
    /// has run out of time.
    fn next(&mut self) -> Result<Value, String> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(left) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("timed out after {} s (chromium was killed)", TIMEOUT.as_secs()))
            }
            Err(RecvTimeoutError::Disconnected) => Err("chromium exited".to_string()),
        }
    }

    /// Notes an event: an error in the console, or the page's load.
    fn observe(&mut self, message: &Value) -> Result<(), String> {
        let params = &message["params"];
        match message["method"].as_str().unwrap_or_default() {
            "Runtime.consoleAPICalled" if matches!(params["type"].as_str(), Some("error" | "assert")) => {
                let args = params["args"].as_array().map(Vec::as_slice).unwrap_or_default();
                let mut text: Vec<String> = args.iter().map(remote_object_text).collect();
                if params["type"] == "assert" {
                    text.insert(0, "Assertion failed:".to_string());
                }
                self.console_errors.push(text.join(" "));
            }
            "Runtime.exceptionThrown" => {
                self.console_errors.push(exception_text(&params["exceptionDetails"]));
            }
            "Log.entryAdded" if params["entry"]["level"] == "error" => {
                let entry = &params["entry"];
                let text = entry["text"].as_str().unwrap_or_default();
                self.console_errors.push(match entry["url"].as_str().filter(|url| !url.is_empty()) {
                    Some(url) => format!("{text} ({url})"),
                    None => text.to_string(),
                });
            }
            "Page.loadEventFired" => self.loaded = true,
            "Inspector.targetCrashed" | "Target.targetCrashed" => {
                return Err("the page crashed".to_string());
            }
            _ => {}
        }
        Ok(())
    }

    /// Asks Chromium to close and waits a little for it to go, so that it
    /// is not killed while writing its profile; dropping the Browser then
    /// kills whatever is left. Best effort: the render is over either way.
    fn close(&mut self) {
        self.session = None;
        self.deadline = self.deadline.min(Instant::now() + CLOSE_GRACE);
        if self.call("Browser.close", json!({})).is_ok() {
            self.requests = None;
            while self.next().is_ok() {}
        }
    }

    /// The last lines Chromium wrote to stderr, for an Err, less its
    /// complaints that there is no D-Bus (there never is in CI, and they
    /// would fill the tail).
    fn stderr_tail(&self) -> String {
        let text = fs::read_to_string(self.dir.join("stderr")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|line| !line.contains("dbus")).collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.requests = None;
        // The whole group (renderers, GPU process, zygotes), while the
        // unreaped leader still holds the group id so it cannot have been
        // reused; then the leader itself, should `kill` be missing.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Crash handlers outside the group may still be writing their
        // database under config/ as they exit; try again for a moment.
        for _ in 0..20 {
            if fs::remove_dir_all(&self.dir).is_ok() || !self.dir.exists() {
                break;
            }
            thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A console.error argument as the console shows it: strings bare, other
/// values as written, objects by their description.
fn remote_object_text(object: &Value) -> String {
    match &object["value"] {
        Value::String(text) => text.clone(),
        Value::Null if object["subtype"] == "null" => "null".to_string(),
        Value::Null => ["unserializableValue", "description", "type"]
            .iter()
            .find_map(|key| object[key].as_str())
            .unwrap_or("undefined")
            .to_string(),
        value => value.to_string(),
    }
}

/// An uncaught exception as the console shows it, e.g. "Uncaught
/// ReferenceError: f is not defined" and the stack.
fn exception_text(details: &Value) -> String {
    let text = details["text"].as_str().unwrap_or("Uncaught");
    let exception = &details["exception"];
    if exception.is_null() {
        let url = details["url"].as_str().unwrap_or_default();
        let line = details["lineNumber"].as_u64().unwrap_or_default() + 1;
        return format!("{text} ({url}:{line})");
    }
    format!("{text} {}", remote_object_text(exception))
}

/// A file:// URL for an absolute path, percent-encoding all but the
/// characters URLs leave alone.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            url.push(char::from(byte));
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

/// Decodes standard base64 (the screenshot's encoding on the wire).
fn base64(text: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return Err(format!("not base64: {:?}", char::from(c))),
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Ok(bytes)
}

/// Splits a tag that starts `rest` (just after its `<`) into its name, its
/// attributes (raw values) and what follows its `>`.
fn tag(rest: &str) -> (&str, Vec<(&str, &str)>, &str) {
    let end_of_name = |c: char| c.is_ascii_whitespace() || c == '/' || c == '>';
    let name_len = rest.find(end_of_name).unwrap_or(rest.len());
    let (name, mut rest) = rest.split_at(name_len);
    let mut attributes = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
        if rest.is_empty() {
            return (name, attributes, rest);
        }
        if let Some(after) = rest.strip_prefix('>') {
            return (name, attributes, after);
        }
        let name_len = rest.find(|c: char| end_of_name(c) || c == '=').unwrap_or(rest.len()).max(1);
        let (attribute, after) = rest.split_at(name_len);
        rest = after.trim_start_matches(|c: char| c.is_ascii_whitespace());
        let mut value = "";
        if let Some(after) = rest.strip_prefix('=') {
            rest = after.trim_start_matches(|c: char| c.is_ascii_whitespace());
            let quote = rest.chars().next().filter(|&c| c == '"' || c == '\'');
            (value, rest) = match quote {
                Some(quote) => {
                    let inner = &rest[1..];
                    let end = inner.find(quote).unwrap_or(inner.len());
                    (&inner[..end], inner.get(end + 1..).unwrap_or_default())
                }
                None => {
                    let end = rest.find(|c: char| c.is_ascii_whitespace() || c == '>').unwrap_or(rest.len());
                    rest.split_at(end)
                }
            };
        }
        attributes.push((attribute, value));
    }
}

/// Where `needle` (ASCII) first occurs in `haystack`, ignoring ASCII case.
fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Decodes the character references a serialized attribute value can hold.
fn unescape(value: &str) -> String {
    let mut text = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        text.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest.find(';').filter(|&end| end <= 10).and_then(|end| {
            let entity = &rest[1..end];
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => match entity.strip_prefix('#') {
                    Some(hex) if hex.starts_with(['x', 'X']) => u32::from_str_radix(&hex[1..], 16).ok(),
                    Some(decimal) => decimal.parse().ok(),
                    None => None,
                }
                .and_then(char::from_u32),
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                text.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                text.push('&');
                rest = &rest[1..];
            }
        }
    }
    text.push_str(rest);
    text
}

/// The harness can fail: pages with errors give errors, a clean page gives
/// none, and the DOM and screenshot are the page's.
#[cfg(test)]
mod self_test {
    use super::*;

    /// A temporary file, removed when dropped.
    struct Temp(PathBuf);

    impl Temp {
        fn new(extension: &str) -> Temp {
            static FILES: AtomicUsize = AtomicUsize::new(0);
            let n = FILES.fetch_add(1, Ordering::Relaxed);
            Temp(crate::common::temp_name(&format!("browser-selftest-{n}")).with_extension(extension))
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = fs::remove_file(&self.0);
        }
    }

    /// Renders a page with `body` in it, failing the test (not skipping it)
    /// if Chromium is missing or the render fails. The screenshot's Temp
    /// comes back to keep the file alive while the test looks at it.
    fn render_body(body: &str) -> (Rendered, Temp) {
        let page = Temp::new("html");
        let screenshot = Temp::new("png");
        let html = format!(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"></head><body>{body}</body></html>\n"
        );
        fs::write(&page.0, html).expect("the page is written");
        let rendered = render(&page.0, &screenshot.0).unwrap_or_else(|e| panic!("{e}"));
        (rendered, screenshot)
    }

    #[test]
    fn console_error_is_captured() {
        let (rendered, _screenshot) = render_body(r#"<script>console.error("boom")</script>"#);
        assert_eq!(rendered.console_errors, ["boom"]);
    }

    #[test]
    fn uncaught_exception_is_captured() {
        let (rendered, _screenshot) = render_body("<script>undefinedFunction()</script>");
        assert_eq!(rendered.console_errors.len(), 1, "{:?}", rendered.console_errors);
        let error = &rendered.console_errors[0];
        assert!(error.contains("ReferenceError: undefinedFunction is not defined"), "{error}");
    }

    #[test]
    fn failed_load_is_captured() {
        let (rendered, _screenshot) = render_body(r#"<img src="methodic-no-such-image.png" alt="">"#);
        assert_eq!(rendered.console_errors.len(), 1, "{:?}", rendered.console_errors);
        let error = &rendered.console_errors[0];
        assert!(error.contains("methodic-no-such-image.png"), "{error}");
    }

    /// Errors raised while the page draws after load (as a chart drawn in an
    /// animation frame would) are caught too, and only errors: other levels
    /// are not.
    #[test]
    fn error_in_animation_frame_is_captured_and_other_levels_are_not() {
        let (rendered, _screenshot) = render_body(
            r#"<script>
                console.log("log"); console.info("info"); console.warn("warn"); console.assert(true);
                requestAnimationFrame(() => console.error("drawn", 42, null, undefined, {a: 1}));
                requestAnimationFrame(() => console.assert(false, "a chart"));
            </script>"#,
        );
        assert_eq!(rendered.console_errors, ["drawn 42 null undefined Object", "Assertion failed: a chart"]);
    }

    #[test]
    fn clean_page_has_no_errors_and_its_path_and_screenshot() {
        let (rendered, screenshot) = render_body(
            r#"<h1>A clean page</h1><p>With a chart:</p>
               <svg width="200" height="200"><path d="M0 0 L10 10" stroke="black"/></svg>"#,
        );
        assert_eq!(rendered.console_errors, Vec::<String>::new());
        assert_eq!(path_data(&rendered.dom), ["M0 0 L10 10"]);
        assert!(rendered.dom.contains("<h1>A clean page</h1>"), "{}", rendered.dom);
        assert_eq!(rendered.screenshot, screenshot.0);
        let png = fs::read(&rendered.screenshot).expect("the screenshot is written");
        assert!(png.len() > 1024, "the screenshot is {} bytes", png.len());
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        // IHDR: width and height, big-endian, at bytes 16..24.
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!((width, height), (WIDTH, HEIGHT));
    }

    #[test]
    fn missing_page_is_an_error() {
        let missing = Temp::new("html");
        let screenshot = Temp::new("png");
        let error = render(&missing.0, &screenshot.0).expect_err("there is no page");
        assert!(error.contains("cannot render"), "{error}");
    }

    #[test]
    fn path_data_reads_the_serialized_dom() {
        let dom = r#"<html><head><style>path { fill: none }</style></head><body>
            <!-- <path d="commented out"/> -->
            <svg><clipPath id="c"><path d="M1 1"></path></clipPath>
            <path class="line" d="M0 0 L1 2 &amp; &quot;q&quot; &#65;&#x42;"></path>
            <path></path><path d=""/><PATH D='M5,5'/><pattern></pattern>
            <g data-x="<path d='in an attribute'>"><textPath>t</textPath></g></svg>
            <script>const p = '<path d="' + d + '"/>';</script>
            <template><path d="inert"></path></template>
            <path d="M9 9"></path></body></html>"#;
        assert_eq!(path_data(dom), ["M1 1", r#"M0 0 L1 2 & "q" AB"#, "", "", "M5,5", "M9 9"]);
        assert_eq!(path_data(""), Vec::<String>::new());
        assert_eq!(path_data("<path d=\"M0 0"), ["M0 0"]);
    }

    #[test]
    fn base64_and_file_urls() {
        assert_eq!(base64("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        assert_eq!(base64("iVBORw0KGgo=").unwrap(), b"\x89PNG\r\n\x1a\n");
        assert!(base64("a b").is_err());
        assert_eq!(file_url(Path::new("/tmp/a b/r%1.html")), "file:///tmp/a%20b/r%251.html");
    }
}
