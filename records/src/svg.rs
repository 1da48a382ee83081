//! Line charts as inline SVG: no script, no fonts to fetch, readable in
//! any browser and in a file viewer. Axes carry their units; a shaded band
//! marks a range of x (the steady-state window); dashed rules mark a value
//! of y (a latency limit) or of x (the rate a QoS search found), and a
//! shaded rule a range of y (the band a steady-state slope must stay in).
//! A caller may give each series its colour and dash (one colour a run,
//! one dash a percentile). Small bar charts too: one bar a value, each
//! labelled with the value above it and its name and a note (a ratio)
//! under it; and grouped bar charts: groups along x (block sizes), a bar a
//! series in each (read/write mixes), a legend, each bar's value above it.

use std::fmt::Write;

pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

pub struct Chart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    /// Queue depths: x on a log2 axis, ticks at the powers of two.
    pub log2_x: bool,
    pub series: Vec<Series>,
    /// A shaded range of x with its label.
    pub band: Option<(f64, f64, String)>,
    /// Dashed lines across the plot, each with its label.
    pub rules: Vec<Rule>,
}

/// A dashed line across the plot at one value, with its label: not data,
/// so drawn as a `<line>`, never a series' `<path>`; or a shaded range of
/// y across the plot, drawn as a `<rect>` under the series.
pub enum Rule {
    /// Across at this y: a limit.
    AtY(f64, String),
    /// Up at this x: a value found.
    AtX(f64, String),
    /// Across from this y to that one, shaded, its label inside it at the
    /// left: a band a line must stay within.
    BandY(f64, f64, String),
}

const W: f64 = 720.0;
const H: f64 = 340.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 48.0;
const COLORS: [&str; 8] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

/// `&`, `<`, `>` and quotes escaped for SVG text and attributes.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A step of 1, 2 or 5 times a power of ten that cuts `max` into about `n` parts.
fn nice_step(max: f64, n: f64) -> f64 {
    if max.is_nan() || max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / n;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// `1.5k`, `250`, `0.12`: short tick labels.
fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-0" { "0".into() } else { s.to_string() }
}

/// The grid lines across the plot (from `left`, `width` wide) and the y
/// ticks at their left, from `y0` to `ymax` in steps of `ystep`; `py`
/// places a value.
fn y_grid(
    s: &mut String,
    left: f64,
    width: f64,
    (y0, ymax, ystep): (f64, f64, f64),
    py: impl Fn(f64) -> f64,
) {
    let mut y = y0;
    while y <= ymax + ystep * 0.01 {
        y_tick(s, left, width, py(y), &tick_label(y));
        y += ystep;
    }
}

/// The legend's row for series `i` of `n`, beside a plot whose right edge
/// is at `right` and `ph` high: a swatch of its line (`color`, and `dash`:
/// empty, or its ` stroke-dasharray` attribute) and its `name`. Rows
/// shrink to fit many series beside the plot.
fn legend_row(
    s: &mut String,
    (i, n): (usize, usize),
    right: f64,
    ph: f64,
    (color, dash): (&str, &str),
    name: &str,
) {
    let row = ((ph - 10.0) / n.max(1) as f64).min(18.0);
    let (lx, ly) = (right + 12.0, TOP + 10.0 + i as f64 * row);
    let _ = write!(
        s,
        r##"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="3"{dash}/><text x="{:.1}" y="{:.1}" class="legend">{}</text>"##,
        lx + 18.0,
        lx + 24.0,
        ly + 4.0,
        escape(name)
    );
}

/// A grid line across the plot (from `left`, `width` wide) at `yy`, and
/// its tick `label` at its left.
fn y_tick(s: &mut String, left: f64, width: f64, yy: f64, label: &str) {
    let _ = write!(
        s,
        r##"<line x1="{left}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="tick">{}</text>"##,
        left + width,
        left - 6.0,
        yy + 4.0,
        label
    );
}

/// How one series is drawn where the caller chooses: its colour and, for
/// a dashed line, the dash pattern (`6 4`). A series without a style takes
/// the next colour of the palette, drawn solid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: &'static str,
    pub dash: Option<&'static str>,
}

/// The palette's colours, told apart by colour alone.
pub const PALETTE: usize = COLORS.len();

/// The `i`th colour of the palette (from 0), taken again from the first
/// past the last.
pub fn color(i: usize) -> &'static str {
    COLORS[i % COLORS.len()]
}

impl Chart<'_> {
    pub fn render(&self) -> String {
        self.render_styled(&[])
    }

    /// The chart, series `i` drawn in `styles[i]` where given (else as
    /// [`render`](Chart::render) draws it), in the plot and in its legend.
    pub fn render_styled(&self, styles: &[Style]) -> String {
        self.draw(styles, false)
    }

    /// As [`render_styled`](Chart::render_styled), but y runs from a tick
    /// under the lowest point or rule (below zero if one is) rather than
    /// from zero: for values whose differences matter more than their size
    /// (a steady-state window and its limits). The axis's ticks say where
    /// it starts.
    pub fn render_fitted(&self, styles: &[Style]) -> String {
        self.draw(styles, true)
    }

    fn draw(&self, styles: &[Style], fitted: bool) -> String {
        let f = self.frame(fitted);
        let mut s = String::new();
        let _ = write!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img"><title>{}</title>"##,
            escape(self.title)
        );
        let _ = write!(s, r##"<text x="{LEFT}" y="20" class="title">{}</text>"##, escape(self.title));
        self.bands(&mut s, &f);
        // Grid and y ticks.
        y_grid(&mut s, LEFT, f.pw, (f.y0, f.ymax, f.ystep), |y| f.py(y));
        self.x_ticks(&mut s, &f);
        self.axes(&mut s, &f);
        self.rules(&mut s, &f);
        self.lines(&mut s, &f, styles);
        s.push_str("</svg>");
        s
    }

    /// Where the chart's values go: x from the points, the band and the
    /// rules up at an x; y from zero (fitted: from a tick under the lowest
    /// point or rule) to a tick over the highest.
    fn frame(&self, fitted: bool) -> Frame {
        let all: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        let tx = |x: f64| tx(self.log2_x, x);
        let (mut x0, mut x1) =
            all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(tx(p.0)), b.max(tx(p.0))));
        if let Some((a, b, _)) = &self.band {
            x0 = x0.min(tx(*a));
            x1 = x1.max(tx(*b));
        }
        for r in &self.rules {
            if let Rule::AtX(x, _) = r
                && x.is_finite()
            {
                x0 = x0.min(tx(*x));
                x1 = x1.max(tx(*x));
            }
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let ys: Vec<f64> = all
            .iter()
            .map(|p| p.1)
            .chain(self.rules.iter().flat_map(|r| match r {
                Rule::AtY(y, _) if y.is_finite() => vec![*y],
                Rule::BandY(a, b, _) if a.is_finite() && b.is_finite() => vec![*a, *b],
                _ => Vec::new(),
            }))
            .collect();
        let ymax_data = ys.iter().copied().fold(0.0f64, f64::max);
        let ymin_data = ys.iter().copied().fold(f64::INFINITY, f64::min);
        // Fitted, y may start below zero too (a least-squares line can).
        let (y0, ystep) = if fitted && ymin_data.is_finite() && ymin_data < ymax_data {
            let step = nice_step(ymax_data - ymin_data, 5.0);
            ((ymin_data / step).floor() * step, step)
        } else {
            (0.0, nice_step(ymax_data, 5.0))
        };
        let ymax = ((ymax_data / ystep).ceil() * ystep).max(y0 + ystep);
        Frame { log2_x: self.log2_x, x0, x1, y0, ymax, ystep, pw: W - LEFT - RIGHT, ph: H - TOP - BOTTOM }
    }

    /// The shaded band of x and the shaded ranges of y, under the rest.
    fn bands(&self, s: &mut String, f: &Frame) {
        let pw = f.pw;
        let ph = f.ph;
        let px = |x: f64| f.px(x);
        let py = |y: f64| f.py(y);
        let y0 = f.y0;
        if let Some((a, b, label)) = &self.band {
            let (xa, xb) = (px(*a), px(*b));
            let _ = write!(
                s,
                r##"<rect class="band" x="{xa:.1}" y="{TOP}" width="{:.1}" height="{ph}" fill="#f5d76e" fill-opacity="0.35"/><text x="{:.1}" y="{:.1}" class="band-label">{}</text>"##,
                (xb - xa).max(1.0),
                xa + 4.0,
                TOP + 14.0,
                escape(label)
            );
        }
        for r in &self.rules {
            if let Rule::BandY(a, b, label) = r {
                if !(a.is_finite() && b.is_finite()) {
                    continue;
                }
                let (top, bottom) = (py(a.max(*b)), py(a.min(*b).max(y0)));
                let _ = write!(
                    s,
                    r##"<rect class="yband" x="{LEFT}" y="{top:.1}" width="{pw}" height="{:.1}" fill="#6baed6" fill-opacity="0.18"/><text x="{:.1}" y="{:.1}" class="band-label">{}</text>"##,
                    (bottom - top).max(1.0),
                    LEFT + 4.0,
                    top + 12.0,
                    escape(label)
                );
            }
        }
    }

    /// The x ticks: at the powers of two on a log2 axis, else at a nice
    /// step.
    fn x_ticks(&self, s: &mut String, f: &Frame) {
        let ph = f.ph;
        let px = |x: f64| f.px(x);
        let tx = |x: f64| f.tx(x);
        let (x0, x1) = (f.x0, f.x1);
        let ticks: Vec<f64> = if self.log2_x {
            (x0.floor() as i32..=x1.ceil() as i32)
                .map(|e| 2f64.powi(e))
                .filter(|v| tx(*v) >= x0 - 1e-9 && tx(*v) <= x1 + 1e-9)
                .collect()
        } else {
            let step = nice_step(x1 - x0, 6.0);
            let mut v = (x0 / step).ceil() * step;
            let mut t = Vec::new();
            while v <= x1 + step * 1e-6 {
                t.push(v);
                v += step;
            }
            t
        };
        for t in ticks {
            let xx = px(t);
            let _ = write!(
                s,
                r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#999"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text>"##,
                TOP + ph,
                TOP + ph + 5.0,
                TOP + ph + 18.0,
                tick_label(t)
            );
        }
    }

    /// The plot's frame and the axes' labels.
    fn axes(&self, s: &mut String, f: &Frame) {
        let pw = f.pw;
        let ph = f.ph;
        let _ = write!(
            s,
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#555"/><text x="{:.1}" y="{:.1}" text-anchor="middle" class="axis">{}</text><text transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle" class="axis">{}</text>"##,
            LEFT + pw / 2.0,
            H - 10.0,
            escape(self.x_label),
            TOP + ph / 2.0,
            escape(self.y_label)
        );
    }

    /// The dashed rules at a y (a limit) or an x (a value found), labelled.
    fn rules(&self, s: &mut String, f: &Frame) {
        let pw = f.pw;
        let ph = f.ph;
        let px = |x: f64| f.px(x);
        let py = |y: f64| f.py(y);
        for r in &self.rules {
            match r {
                Rule::AtY(y, label) if y.is_finite() => {
                    let yy = py(*y);
                    let _ = write!(
                        s,
                        r##"<line class="rule" x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#b00" stroke-width="1.5" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" text-anchor="end" class="rule-label">{}</text>"##,
                        LEFT + pw,
                        LEFT + pw - 4.0,
                        yy - 4.0,
                        escape(label)
                    );
                }
                Rule::AtX(x, label) if x.is_finite() => {
                    let xx = px(*x);
                    let _ = write!(
                        s,
                        r##"<line class="rule" x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="#555" stroke-width="1.5" stroke-dasharray="2 3"/><text x="{:.1}" y="{:.1}" class="rule-label">{}</text>"##,
                        TOP + ph,
                        xx + 4.0,
                        TOP + 28.0,
                        escape(label)
                    );
                }
                _ => {}
            }
        }
    }

    /// Each series' line (its points marked where there are few) and its
    /// legend row, in its style where given.
    fn lines(&self, s: &mut String, f: &Frame, styles: &[Style]) {
        let pw = f.pw;
        let ph = f.ph;
        let px = |x: f64| f.px(x);
        let py = |y: f64| f.py(y);
        for (i, series) in self.series.iter().enumerate() {
            let color = styles.get(i).map_or(COLORS[i % COLORS.len()], |st| st.color);
            let dash = styles
                .get(i)
                .and_then(|st| st.dash)
                .map_or(String::new(), |d| format!(r##" stroke-dasharray="{d}""##));
            let pts: Vec<(f64, f64)> =
                series.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
            if pts.is_empty() {
                continue;
            }
            let mut d = String::new();
            for (k, (x, y)) in pts.iter().enumerate() {
                let _ = write!(d, "{}{:.1} {:.1}", if k == 0 { "M" } else { " L" }, px(*x), py(*y));
            }
            if pts.len() == 1 {
                let _ = write!(d, " l0.1 0");
            }
            let _ = write!(
                s,
                r##"<path class="line" d="{d}" fill="none" stroke="{color}" stroke-width="2"{dash}><title>{}</title></path>"##,
                escape(&series.name)
            );
            if pts.len() <= 40 {
                for (x, y) in &pts {
                    let _ = write!(
                        s,
                        r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"><title>{}: {} at {}</title></circle>"##,
                        px(*x),
                        py(*y),
                        escape(&series.name),
                        tick_label(*y),
                        tick_label(*x)
                    );
                }
            }
            legend_row(s, (i, self.series.len()), LEFT + pw, ph, (color, &dash), &series.name);
        }
    }
}

/// A latency distribution chart: for each series, the share of its I/Os
/// that took at least each latency (1 - CDF, the exceedance), from the
/// median (50%) down to the slowest I/O, both axes on log10 scales: the
/// latency across (µs), the share down, each decade of it labelled with
/// the percentile it is (`0.01% (p99.99)`). Where a line crosses a share,
/// its latency there is that percentile: the "99.99% QoS" figure.
pub struct Exceedance<'a> {
    pub title: &'a str,
    /// Each series: (latency in µs, the share of I/Os that took at least
    /// as long, 0 to 1), the shares falling.
    pub series: Vec<Series>,
    /// Series `i` in `styles[i]` where given (one colour a run), else the
    /// palette's next colour.
    pub styles: Vec<Style>,
}

impl Exceedance<'_> {
    pub fn render(&self) -> String {
        let pts = || self.series.iter().flat_map(|s| s.points.iter()).filter(|(x, y)| *x > 0.0 && *y > 0.0);
        let (lo, hi) = pts().fold((f64::INFINITY, 0.0f64), |(a, b), (x, _)| (a.min(*x), b.max(*x)));
        let least = pts().fold(0.5f64, |m, (_, y)| m.min(*y));
        // Whole decades: latency from the one under the least to the one
        // over the most; shares from 50% down to the decade under the least.
        let (x0, x1) = if lo.is_finite() && hi > 0.0 {
            (lo.log10().floor(), hi.log10().ceil().max(lo.log10().floor() + 1.0))
        } else {
            (0.0, 1.0)
        };
        let (y_top, y_bottom) = (0.5f64.log10(), least.log10().floor().min(-2.0));
        // Room at the left for the shares' labels, `0.001% (p99.999)`.
        const LEFT: f64 = 128.0;
        let pw = W - LEFT - RIGHT;
        let ph = H - TOP - BOTTOM;
        let px = |x: f64| LEFT + (x.log10() - x0) / (x1 - x0) * pw;
        let py = |y: f64| TOP + (y_top - y.log10()) / (y_top - y_bottom) * ph;
        let mut s = String::new();
        let _ = write!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart exceedance" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img"><title>{}</title><text x="{LEFT}" y="20" class="title">{}</text>"##,
            escape(self.title),
            escape(self.title)
        );
        // The shares: 50%, then each decade, named by its percentile.
        let mut shares = vec![0.5];
        let mut e = -1.0;
        while e >= y_bottom - 1e-9 {
            shares.push(10f64.powf(e));
            e -= 1.0;
        }
        for share in shares {
            y_tick(&mut s, LEFT, pw, py(share), &share_label(share));
        }
        // The latencies: each decade, and 2 and 5 times it, unlabelled.
        for d in x0 as i32..=x1 as i32 {
            for (m, labelled) in [(1.0, true), (2.0, false), (5.0, false)] {
                let v = m * 10f64.powi(d);
                if v.log10() > x1 + 1e-9 {
                    continue;
                }
                let xx = px(v);
                let _ = write!(
                    s,
                    r##"<line x1="{xx:.1}" y1="{TOP}" x2="{xx:.1}" y2="{:.1}" stroke="{}"/>"##,
                    TOP + ph,
                    if labelled { "#ccc" } else { "#eee" }
                );
                if labelled {
                    let _ = write!(
                        s,
                        r##"<text x="{xx:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text>"##,
                        TOP + ph + 18.0,
                        tick_label(v)
                    );
                }
            }
        }
        let _ = write!(
            s,
            r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#555"/><text x="{:.1}" y="{:.1}" text-anchor="middle" class="axis">latency (µs, log scale)</text><text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle" class="axis">I/Os at least this slow</text>"##,
            LEFT + pw / 2.0,
            H - 10.0,
            TOP + ph / 2.0
        );
        for (i, series) in self.series.iter().enumerate() {
            let color = self.styles.get(i).map_or(color(i), |st| st.color);
            let mut d = String::new();
            for (k, (x, y)) in series.points.iter().filter(|(x, y)| *x > 0.0 && *y > 0.0).enumerate() {
                let _ = write!(d, "{}{:.1} {:.1}", if k == 0 { "M" } else { " L" }, px(*x), py(*y));
            }
            if !d.is_empty() {
                let _ = write!(
                    s,
                    r##"<path class="line" d="{d}" fill="none" stroke="{color}" stroke-width="2"><title>{}</title></path>"##,
                    escape(&series.name)
                );
            }
            legend_row(&mut s, (i, self.series.len()), LEFT + pw, ph, (color, ""), &series.name);
        }
        s.push_str("</svg>");
        s
    }
}

/// A share of I/Os on an exceedance chart's axis, with the percentile it
/// is: `50% (p50)`, `1% (p99)`, `0.001% (p99.999)`.
fn share_label(share: f64) -> String {
    let pct = share * 100.0;
    let digits = (-pct.log10()).ceil().max(0.0) as usize;
    let percentile = 100.0 - pct;
    format!("{pct:.digits$}% (p{})", trim_percentile(percentile, digits))
}

/// `99.99`, `50`, `90`: a percentile with as many decimals as it needs.
fn trim_percentile(p: f64, digits: usize) -> String {
    let s = format!("{p:.digits$}");
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
}

/// Where a chart's values go: x from `x0` to `x1` on the axis's own scale
/// (log2 for queue depths), y from `y0` to `ymax` with a tick each
/// `ystep`, in a plot `pw` x `ph` at (`LEFT`, `TOP`).
struct Frame {
    log2_x: bool,
    x0: f64,
    x1: f64,
    y0: f64,
    ymax: f64,
    ystep: f64,
    pw: f64,
    ph: f64,
}

/// `x` on the x axis's own scale.
fn tx(log2_x: bool, x: f64) -> f64 {
    if log2_x { x.max(1e-9).log2() } else { x }
}

impl Frame {
    fn tx(&self, x: f64) -> f64 {
        tx(self.log2_x, x)
    }

    /// Where `x` is across the chart.
    fn px(&self, x: f64) -> f64 {
        LEFT + (self.tx(x) - self.x0) / (self.x1 - self.x0) * self.pw
    }

    /// Where `y` is down the chart.
    fn py(&self, y: f64) -> f64 {
        TOP + self.ph - (y - self.y0) / (self.ymax - self.y0) * self.ph
    }
}

/// One bar of a [`Bars`] chart.
pub struct Bar {
    /// Under the bar: `A`.
    pub label: String,
    /// Its height; `None` draws no bar, only the labels.
    pub value: Option<f64>,
    /// Above the bar: `15234`, or `failed`.
    pub value_text: String,
    /// Under the label: `1.00x`.
    pub note: String,
    pub color: &'static str,
    /// Drawn pale: a partial value (the step failed).
    pub faded: bool,
    /// ± this much about the value, drawn as an error bar (a repeated
    /// step: one standard deviation of its runs).
    pub spread: Option<f64>,
}

/// A small bar chart of a few values on one scale from zero.
pub struct Bars<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub bars: Vec<Bar>,
}

const BAR_W: f64 = 340.0;
const BAR_H: f64 = 210.0;
const BAR_LEFT: f64 = 58.0;
const BAR_RIGHT: f64 = 10.0;
const BAR_TOP: f64 = 20.0;
const BAR_BOTTOM: f64 = 40.0;

impl Bars<'_> {
    pub fn render(&self) -> String {
        let reach = |b: &Bar| Some(b.value? + b.spread.filter(|d| d.is_finite()).unwrap_or(0.0));
        let max = self.bars.iter().filter_map(reach).filter(|v| v.is_finite()).fold(0.0f64, f64::max);
        let ystep = nice_step(max, 4.0);
        let ymax = ((max / ystep).ceil() * ystep).max(ystep);
        let pw = BAR_W - BAR_LEFT - BAR_RIGHT;
        let ph = BAR_H - BAR_TOP - BAR_BOTTOM;
        let py = |y: f64| BAR_TOP + ph - y / ymax * ph;
        let mut s = String::new();
        let _ = write!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="bars" viewBox="0 0 {BAR_W} {BAR_H}" width="{BAR_W}" height="{BAR_H}" role="img"><title>{}</title>"##,
            escape(self.title)
        );
        y_grid(&mut s, BAR_LEFT, pw, (0.0, ymax, ystep), py);
        let _ = write!(
            s,
            r##"<text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle" class="axis">{}</text>"##,
            BAR_TOP + ph / 2.0,
            escape(self.y_label)
        );
        let slot = pw / self.bars.len().max(1) as f64;
        let width = (slot * 0.6).min(56.0);
        for (i, b) in self.bars.iter().enumerate() {
            let mid = BAR_LEFT + slot * (i as f64 + 0.5);
            let top = match b.value.filter(|v| v.is_finite() && *v >= 0.0) {
                Some(v) => {
                    let top = py(v);
                    let _ = write!(
                        s,
                        r##"<rect class="bar" x="{:.1}" y="{top:.1}" width="{width:.1}" height="{:.1}" fill="{}"{}><title>{}: {}</title></rect>"##,
                        mid - width / 2.0,
                        (BAR_TOP + ph - top).max(0.5),
                        b.color,
                        if b.faded { r##" fill-opacity="0.35""## } else { "" },
                        escape(&b.label),
                        escape(&b.value_text)
                    );
                    top
                }
                None => BAR_TOP + ph,
            };
            // The error bar: a line from value - spread to value + spread,
            // capped at both ends; the value's text above it.
            let top = match (
                b.value.filter(|v| v.is_finite() && *v >= 0.0),
                b.spread.filter(|d| d.is_finite()),
            ) {
                (Some(v), Some(d)) => {
                    let (hi, lo) = (py(v + d), py((v - d).max(0.0)));
                    let cap = (width / 4.0).min(6.0);
                    let _ = write!(
                        s,
                        r##"<path class="error-bar" d="M{mid:.1} {hi:.1}V{lo:.1}M{:.1} {hi:.1}H{:.1}M{:.1} {lo:.1}H{:.1}" stroke="#222" fill="none"><title>± {}</title></path>"##,
                        mid - cap,
                        mid + cap,
                        mid - cap,
                        mid + cap,
                        crate::units::figure(d)
                    );
                    hi.min(top)
                }
                _ => top,
            };
            let _ = write!(
                s,
                r##"<text x="{mid:.1}" y="{:.1}" text-anchor="middle" class="bar-value">{}</text><text x="{mid:.1}" y="{:.1}" text-anchor="middle" class="bar-label">{}</text><text x="{mid:.1}" y="{:.1}" text-anchor="middle" class="bar-note">{}</text>"##,
                top - 4.0,
                escape(&b.value_text),
                BAR_TOP + ph + 15.0,
                escape(&b.label),
                BAR_TOP + ph + 30.0,
                escape(&b.note)
            );
        }
        let _ = write!(
            s,
            r##"<line x1="{BAR_LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#555"/></svg>"##,
            BAR_TOP + ph,
            BAR_LEFT + pw,
            BAR_TOP + ph
        );
        s
    }
}

/// One series of a [`GroupedBars`] chart: a bar in each group.
pub struct BarSeries {
    /// In the legend and in each bar's tooltip: `65% read`.
    pub name: String,
    /// A value a group, in the order of the chart's `groups`; `None` (or a
    /// value below zero or not finite) draws no bar.
    pub values: Vec<Option<f64>>,
    /// Each bar's value as the caller writes it (`12,345`), above the bar
    /// and in its tooltip.
    pub texts: Vec<String>,
}

/// A grouped bar chart on one scale from zero: groups along x (block
/// sizes), one bar a series within each group (read/write mixes), a
/// legend naming each series in its colour ([`color`]), a y axis with its
/// ticks and unit, each bar's value above it (turned upright when the bar
/// is narrower than the text) and in its tooltip (`series, group: value`).
pub struct GroupedBars<'a> {
    pub title: &'a str,
    /// The values' unit: `IOPS`, `throughput (MiB/s)`.
    pub y_label: &'a str,
    /// Along x, in order: `4KiB`, `8KiB`, ...
    pub groups: Vec<String>,
    pub series: Vec<BarSeries>,
}

const GB_LEFT: f64 = 72.0;
const GB_RIGHT: f64 = 160.0;
const GB_PLOT_W: f64 = 488.0;
const GB_PLOT_H: f64 = 240.0;
const GB_TITLE: f64 = 34.0;
const GB_BOTTOM: f64 = 40.0;
/// The bars' value labels, in px: set on the text so that the estimate of
/// their width (digits are about 0.6em wide) holds outside the report too.
const GB_VALUE_FONT: f64 = 9.0;
/// The narrowest bar drawn: the plot widens past [`GB_PLOT_W`] rather
/// than draw bars thinner than this.
const GB_MIN_BAR: f64 = 10.0;

impl GroupedBars<'_> {
    pub fn render(&self) -> String {
        let value = |s: &BarSeries, g: usize| {
            s.values.get(g).copied().flatten().filter(|v| v.is_finite() && *v >= 0.0)
        };
        let max = self
            .series
            .iter()
            .flat_map(|s| (0..self.groups.len()).filter_map(move |g| value(s, g)))
            .fold(0.0f64, f64::max);
        let ystep = nice_step(max, 5.0);
        let ymax = ((max / ystep).ceil() * ystep).max(ystep);
        let (groups, per) = (self.groups.len().max(1) as f64, self.series.len().max(1) as f64);
        // Each group: its bars side by side, and a bar's width of gap on
        // either side.
        let pw = GB_PLOT_W.max(groups * (per + 1.0) * GB_MIN_BAR);
        let slot = pw / groups;
        let bar = (slot / (per + 1.0)).min(36.0);
        let text_w = |t: &str| t.chars().count() as f64 * GB_VALUE_FONT * 0.6;
        let upright = self.series.iter().flat_map(|s| s.texts.iter()).any(|t| text_w(t) > bar);
        // Room above the plot for the labels over the tallest bars.
        let longest = self.series.iter().flat_map(|s| s.texts.iter()).map(|t| text_w(t)).fold(0.0, f64::max);
        let headroom = if upright { longest + 8.0 } else { GB_VALUE_FONT + 6.0 };
        let top = GB_TITLE + headroom;
        let (w, h) = (GB_LEFT + pw + GB_RIGHT, top + GB_PLOT_H + GB_BOTTOM);
        let py = |y: f64| top + GB_PLOT_H - y / ymax * GB_PLOT_H;
        let mut s = String::new();
        let _ = write!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart grouped-bars" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" role="img"><title>{}</title><text x="{GB_LEFT}" y="20" class="title">{}</text>"##,
            escape(self.title),
            escape(self.title)
        );
        y_grid(&mut s, GB_LEFT, pw, (0.0, ymax, ystep), py);
        let _ = write!(
            s,
            r##"<text transform="translate(16 {:.1}) rotate(-90)" text-anchor="middle" class="axis">{}</text>"##,
            top + GB_PLOT_H / 2.0,
            escape(self.y_label)
        );
        for (g, group) in self.groups.iter().enumerate() {
            let left = GB_LEFT + slot * g as f64 + (slot - bar * per) / 2.0;
            for (i, series) in self.series.iter().enumerate() {
                let Some(v) = value(series, g) else { continue };
                let (x, yy) = (left + bar * i as f64, py(v));
                let text = series.texts.get(g).map_or("", String::as_str);
                let _ = write!(
                    s,
                    r##"<rect class="bar" x="{x:.1}" y="{yy:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}, {}: {}</title></rect>"##,
                    (bar - 1.0).max(1.0),
                    (top + GB_PLOT_H - yy).max(0.5),
                    color(i),
                    escape(&series.name),
                    escape(group),
                    escape(text)
                );
                let mid = x + bar / 2.0;
                if upright {
                    // Turned: the text runs up from above the bar, its
                    // glyphs left of the anchor, so the anchor sits right
                    // of the bar's middle by half their height.
                    let _ = write!(
                        s,
                        r##"<text transform="translate({:.1} {:.1}) rotate(-90)" font-size="{GB_VALUE_FONT}" class="bar-value">{}</text>"##,
                        mid + GB_VALUE_FONT * 0.35,
                        yy - 3.0,
                        escape(text)
                    );
                } else {
                    let _ = write!(
                        s,
                        r##"<text x="{mid:.1}" y="{:.1}" text-anchor="middle" font-size="{GB_VALUE_FONT}" class="bar-value">{}</text>"##,
                        yy - 3.0,
                        escape(text)
                    );
                }
            }
            let _ = write!(
                s,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" class="tick">{}</text>"##,
                GB_LEFT + slot * (g as f64 + 0.5),
                top + GB_PLOT_H + 16.0,
                escape(group)
            );
        }
        let _ = write!(
            s,
            r##"<rect x="{GB_LEFT}" y="{top:.1}" width="{pw:.1}" height="{GB_PLOT_H}" fill="none" stroke="#555"/>"##
        );
        // The legend: a swatch and a name a series, beside the plot.
        let row = ((GB_PLOT_H - 10.0) / per).min(18.0);
        let lx = GB_LEFT + pw + 12.0;
        for (i, series) in self.series.iter().enumerate() {
            let ly = top + 10.0 + i as f64 * row;
            let _ = write!(
                s,
                r##"<rect class="swatch" x="{lx:.1}" y="{:.1}" width="12" height="10" fill="{}"/><text x="{:.1}" y="{:.1}" class="legend">{}</text>"##,
                ly - 5.0,
                color(i),
                lx + 18.0,
                ly + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bar with a spread: its error bar runs from value - spread to
    /// value + spread (capped at 0), and the axis reaches its top.
    #[test]
    fn a_bar_s_error_bar_spans_its_spread_on_the_axis() {
        let bar = |value: f64, spread: Option<f64>| Bar {
            label: "A".into(),
            value: Some(value),
            value_text: value.to_string(),
            note: String::new(),
            color: color(0),
            faded: false,
            spread,
        };
        let svg = Bars { title: "t", y_label: "IOPS", bars: vec![bar(100.0, Some(40.0)), bar(50.0, None)] }
            .render();
        assert_eq!(svg.matches("class=\"error-bar\"").count(), 1);
        // The axis to 140 at least: ticks of 50 to 150.
        assert!(svg.contains(">150<"), "{svg}");
        let ph = BAR_H - BAR_TOP - BAR_BOTTOM;
        let py = |y: f64| BAR_TOP + ph - y / 150.0 * ph;
        let d = svg.split("class=\"error-bar\" d=\"M").nth(1).unwrap();
        let (x, rest) = d.split_once(' ').unwrap();
        let (hi, rest) = rest.split_once('V').unwrap();
        let lo = rest.split('M').next().unwrap();
        let _: f64 = x.parse().unwrap();
        assert_eq!((hi, lo), (format!("{:.1}", py(140.0)).as_str(), format!("{:.1}", py(60.0)).as_str()));
        let wide = Bars { title: "t", y_label: "IOPS", bars: vec![bar(10.0, Some(30.0))] }.render();
        let d = wide.split("class=\"error-bar\" d=\"M").nth(1).unwrap();
        assert!(d.contains(&format!("V{:.1}", BAR_TOP + ph)), "capped at 0: {d}");
    }

    #[test]
    fn a_chart_draws_one_path_a_series_inside_the_plot() {
        let c = Chart {
            title: "IOPS <by> QD",
            x_label: "queue depth",
            y_label: "IOPS",
            log2_x: true,
            series: vec![
                Series { name: "read".into(), points: vec![(1.0, 10.0), (2.0, 20.0), (256.0, 1000.0)] },
                Series { name: "write".into(), points: vec![(1.0, 5.0)] },
            ],
            band: None,
            rules: Vec::new(),
        };
        let svg = c.render();
        assert_eq!(svg.matches("<path ").count(), 2);
        assert!(svg.contains("IOPS &lt;by&gt; QD"), "text is escaped");
        // The first point sits at the left edge, the last at the right.
        assert!(svg.contains(&format!("M{LEFT:.1} ")), "{svg}");
        assert!(svg.contains(&format!("L{:.1} ", W - RIGHT)), "{svg}");
        assert!(svg.contains(">256<"), "a tick at QD 256");
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }

    #[test]
    fn an_empty_or_flat_chart_still_renders() {
        let c = Chart {
            title: "t",
            x_label: "s",
            y_label: "IOPS",
            log2_x: false,
            series: vec![Series { name: "zero".into(), points: vec![(0.0, 0.0), (1.0, 0.0)] }],
            band: Some((0.0, 1.0, "window".into())),
            rules: Vec::new(),
        };
        let svg = c.render();
        assert!(!svg.contains("NaN") && svg.contains("class=\"band\""));
    }

    #[test]
    fn rules_are_dashed_lines_inside_the_axes_not_series() {
        let c = Chart {
            title: "latency by IOPS",
            x_label: "IOPS",
            y_label: "latency (µs)",
            log2_x: false,
            series: vec![Series { name: "p99".into(), points: vec![(100.0, 200.0), (400.0, 900.0)] }],
            band: None,
            // A limit above every point and a mark left of every point:
            // both still inside the plot.
            rules: vec![Rule::AtY(1000.0, "limit 1ms".into()), Rule::AtX(50.0, "found".into())],
        };
        let svg = c.render();
        assert_eq!(svg.matches("<path ").count(), 1, "a rule is no series");
        assert_eq!(svg.matches("class=\"rule\"").count(), 2);
        assert!(svg.contains(">limit 1ms<") && svg.contains(">found<"));
        // y reaches the limit: its rule is the plot's top or below it.
        let ys: Vec<f64> = svg
            .split("class=\"rule\" x1=\"")
            .skip(1)
            .map(|r| r.split('"').nth(2).unwrap().parse().unwrap())
            .collect();
        assert!(ys[0] >= TOP && ys[0] <= H - BOTTOM, "{ys:?}");
        // x reaches the mark: it sits at the left edge.
        assert!(svg.contains(&format!("class=\"rule\" x1=\"{LEFT:.1}\" y1=\"{TOP}\"")), "{svg}");
    }

    #[test]
    fn styled_series_take_their_colour_and_dash_and_unstyled_ones_draw_as_before() {
        let c = Chart {
            title: "t",
            x_label: "queue depth",
            y_label: "IOPS",
            log2_x: true,
            series: vec![
                Series { name: "A".into(), points: vec![(1.0, 10.0), (4.0, 20.0)] },
                Series { name: "B".into(), points: vec![(1.0, 12.0), (4.0, 25.0)] },
            ],
            band: None,
            rules: Vec::new(),
        };
        assert_eq!(c.render(), c.render_styled(&[]), "no style: the chart as it always was");
        assert!(!c.render().contains("stroke-dasharray"));
        // A styled in the colour past the palette's end (its second again,
        // as B's unstyled one is), dashed: its path and its legend line.
        assert_eq!(color(PALETTE + 1), color(1));
        let svg = c.render_styled(&[Style { color: color(PALETTE + 1), dash: Some("6 4") }]);
        assert_eq!(svg.matches(&format!("stroke=\"{}\" stroke-width", color(1))).count(), 4, "{svg}");
        assert_eq!(svg.matches(&format!("stroke=\"{}\" stroke-width", color(0))).count(), 0, "{svg}");
        assert_eq!(svg.matches("stroke-width=\"2\" stroke-dasharray=\"6 4\"").count(), 1, "{svg}");
        assert_eq!(svg.matches("stroke-width=\"3\" stroke-dasharray=\"6 4\"").count(), 1, "{svg}");
    }

    #[test]
    fn bars_stand_on_one_scale_from_zero_with_their_labels() {
        let bar = |label: &str, value: Option<f64>, note: &str| Bar {
            label: label.into(),
            value,
            value_text: value.map_or("-".into(), |v| format!("{v:.0}")),
            note: note.into(),
            color: color(0),
            faded: false,
            spread: None,
        };
        let svg = Bars {
            title: "rnd4k_read QD 1",
            y_label: "IOPS",
            bars: vec![bar("A", Some(1000.0), ""), bar("B", Some(500.0), "0.50x"), bar("C", None, "-")],
        }
        .render();
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 2, "no bar without a value");
        let heights: Vec<f64> = svg
            .split("<rect class=\"bar\"")
            .skip(1)
            .map(|r| r.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap())
            .collect();
        assert!(
            (heights[0] / heights[1] - 2.0).abs() < 0.01,
            "heights in proportion, from zero: {heights:?}"
        );
        assert!(svg.contains(">1000<") && svg.contains(">0.50x<") && svg.contains(">C<"));
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn grouped_bars_draw_a_bar_a_present_value_and_a_legend_entry_a_series() {
        let series = |name: &str, values: Vec<Option<f64>>| BarSeries {
            name: name.into(),
            texts: values.iter().map(|v| v.map_or("-".into(), |v| format!("{v:.0}"))).collect(),
            values,
        };
        let chart = GroupedBars {
            title: "IOPS <by> block size",
            y_label: "IOPS",
            groups: vec!["4KiB".into(), "8KiB".into(), "16KiB".into()],
            series: vec![
                series("100% read", vec![Some(900.0), Some(600.0), Some(300.0)]),
                series("65% read & more", vec![Some(450.0), None, Some(150.0)]),
                series("0% read", vec![Some(200.0), Some(100.0), Some(f64::NAN)]),
            ],
        };
        let svg = chart.render();
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 7, "one bar a present value: {svg}");
        assert_eq!(svg.matches("class=\"legend\"").count(), 3, "one legend entry a series");
        assert_eq!(svg.matches("class=\"swatch\"").count(), 3);
        // Each series in its colour, in its bars and its swatch.
        assert_eq!(svg.matches(&format!("fill=\"{}\"", color(1))).count(), 3, "{svg}");
        assert!(svg.contains("IOPS &lt;by&gt; block size") && svg.contains("65% read &amp; more"));
        assert!(svg.contains("<title>65% read &amp; more, 4KiB: 450</title>"), "{svg}");
        assert!(svg.contains(">900<") && svg.contains(">IOPS<"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        // Heights in proportion, from zero.
        let heights: Vec<f64> = svg
            .split("<rect class=\"bar\"")
            .skip(1)
            .map(|r| r.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap())
            .collect();
        assert!((heights[0] / heights[1] - 2.0).abs() < 0.01, "{heights:?}");
    }

    #[test]
    fn grouped_bar_values_turn_upright_when_the_bars_are_narrower_than_the_text() {
        let chart = |text: &str, groups: usize| {
            GroupedBars {
                title: "t",
                y_label: "IOPS",
                groups: (0..groups).map(|g| format!("g{g}")).collect(),
                series: (0..7)
                    .map(|i| BarSeries {
                        name: format!("s{i}"),
                        values: vec![Some(1000.0 + i as f64); groups],
                        texts: vec![text.into(); groups],
                    })
                    .collect(),
            }
            .render()
        };
        let wide = chart("9", 1);
        assert!(!wide.contains("rotate(-90)\" font-size"), "a short label fits over a wide bar: {wide}");
        let narrow = chart("1,234,567", 8);
        assert_eq!(narrow.matches("rotate(-90)\" font-size").count(), 56, "{narrow}");
        // No bar thinner than the least width: the plot widens instead.
        let width: f64 = narrow.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(width >= GB_LEFT + GB_RIGHT + 8.0 * 8.0 * GB_MIN_BAR - 0.5, "{width}");
    }

    #[test]
    fn a_y_band_is_shaded_under_the_series_and_reaches_the_scale() {
        let c = Chart {
            title: "t",
            x_label: "round",
            y_label: "IOPS",
            log2_x: false,
            series: vec![Series { name: "IOPS".into(), points: vec![(1.0, 10.0), (2.0, 12.0)] }],
            band: None,
            rules: vec![Rule::BandY(11.0, 30.0, "slope limits".into())],
        };
        let svg = c.render();
        assert_eq!(svg.matches("class=\"yband\"").count(), 1);
        assert!(svg.contains(">slope limits<"));
        assert!(svg.find("class=\"yband\"") < svg.find("<path "), "the band is under the line");
        // The band's top (30) is inside the plot: the scale reached it.
        let top: f64 = svg
            .split("class=\"yband\"")
            .nth(1)
            .unwrap()
            .split("y=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(top >= TOP, "{top}");
    }

    #[test]
    fn a_fitted_chart_starts_y_under_its_lowest_value_and_a_plain_one_at_zero() {
        let c = Chart {
            title: "t",
            x_label: "round",
            y_label: "IOPS",
            log2_x: false,
            series: vec![Series { name: "IOPS".into(), points: vec![(1.0, 1450.0), (2.0, 1530.0)] }],
            band: None,
            rules: vec![
                Rule::AtY(1380.0, "90% of average".into()),
                Rule::BandY(1420.0, 1570.0, "slope".into()),
            ],
        };
        let first_tick = |svg: &str| -> String {
            svg.split("class=\"tick\">").nth(1).unwrap().split('<').next().unwrap().to_string()
        };
        assert_eq!(first_tick(&c.render()), "0");
        let fitted = c.render_fitted(&[]);
        assert_eq!(first_tick(&fitted), "1350", "{fitted}");
        // The lowest rule and the band are inside the plot.
        let ys: Vec<f64> = fitted
            .split("class=\"rule\" x1=\"")
            .skip(1)
            .map(|r| r.split('"').nth(2).unwrap().parse().unwrap())
            .collect();
        assert!(ys[0] >= TOP && ys[0] <= H - BOTTOM, "{ys:?}");
    }

    #[test]
    fn ticks_are_short_and_steps_nice() {
        assert_eq!(tick_label(15000.0), "15k");
        assert_eq!(tick_label(2_500_000.0), "2.5M");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(nice_step(97.0, 5.0), 20.0);
        assert_eq!(nice_step(0.0, 5.0), 1.0);
    }
}
