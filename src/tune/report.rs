//! What a person sees after `tune`: a Markdown report (every candidate: the knob it moved,
//! its estimate, what was measured — cycles/byte, cold cycles, code bytes, spills — or why it
//! was not) and an SVG plot of the space (the goal's metric relative to the default per
//! candidate in visiting order, coloured by knob). Hand-written SVG: no plotting dependency.

use super::search::{Outcome, Status};
use super::{Dim, Goal};
use crate::ir::Slicing;
use crate::target::Arch;

/// The facts of the run the report states.
pub struct Context<'a> {
    pub file: &'a str,
    pub slicing: Slicing,
    pub arch: Arch,
    pub goal: Goal,
    pub budget_s: f64,
    pub cpu: &'a str,
    pub compilers: &'a [String],
    pub allow_abi_change: bool,
    /// The knobs searched, in order.
    pub dims: &'a [Dim],
    /// File name of the plot, linked from the report.
    pub plot: Option<&'a str>,
    /// Processes each batch was timed in (`--runs`; each candidate's minimum over them).
    pub runs: usize,
}

fn num(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{:.*}", digits, x),
        _ => "-".into(),
    }
}

/// The Markdown report.
pub fn markdown(o: &Outcome, cx: &Context) -> String {
    let def = &o.visits[o.default_id];
    let chosen = &o.visits[o.chosen_id];
    let mut s = String::new();
    s.push_str(&format!(
        "# nakiri tune: `{}` (-{} --arch {}, goal {})\n\n",
        cx.file,
        cx.slicing,
        cx.arch,
        cx.goal.name()
    ));
    s.push_str(&format!(
        "- machine: {}; C compilers: {}\n",
        cx.cpu,
        cx.compilers.join("; ")
    ));
    s.push_str(&format!(
        "- budget {} s, used {:.1} s; {} candidates visited, {} measured in {} batches ({}, variants in alternating windows)\n",
        cx.budget_s,
        o.elapsed,
        o.visits.len(),
        o.visits.iter().filter(|v| v.measurement.is_some()).count(),
        o.batches,
        if cx.runs > 1 {
            format!(
                "each batch in {} processes, each candidate's minimum: runs={}",
                cx.runs, cx.runs
            )
        } else {
            "each batch in one process".to_string()
        }
    ));
    let unit = match cx.goal {
        Goal::Cold => "TSC cycles of one call on one block, caches evicted (median)",
        Goal::Packed => "TSC cycles/byte of the packed entry E__packed (transposition included), hot loop (minimum over windows)",
        _ => "TSC cycles/byte of the raw entry, hot loop (minimum over windows)",
    };
    s.push_str(&format!("- metric: {}\n", unit));
    s.push_str(&format!(
        "- knobs searched, in order: {}\n",
        cx.dims
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if !cx.allow_abi_change {
        s.push_str("- interleaving not searched: it changes the raw entry's ABI; the packed entry keeps its signature (`--allow-abi-change` searches it)\n");
    }
    s.push_str(&format!(
        "- **chosen**: `{}` (#{}), build with `{}`\n",
        chosen.knobs.diff(&def.knobs),
        chosen.id,
        chosen.knobs.cc.label()
    ));
    match (o.final_metrics, cx.goal) {
        (Some((d, c)), Goal::Size) => s.push_str(&format!(
            "- final check: fastest {:.4}, chosen {:.4} (within 5%: {})\n",
            d,
            c,
            c <= d * 1.05
        )),
        (Some((d, c)), _) => s.push_str(&format!(
            "- final check against the default, one batch: default {:.4}, chosen {:.4}: {:.3}x\n",
            d,
            c,
            d / c
        )),
        (None, _) => {}
    }
    for n in &o.notes {
        s.push_str(&format!("- note: {}\n", n));
    }
    if let Some(p) = cx.plot {
        s.push_str(&format!("\n![the space]({})\n", p));
    }
    s.push_str("\n| # | knob | candidate (change from default) | est. | c/B | cold cycles | code bytes | spills/block | vs incumbent | vs default | status |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for v in &o.visits {
        let m = v.measurement.as_ref();
        let est = v
            .estimate
            .as_ref()
            .map(|e| super::search::estimated(e, cx.goal));
        let status = match &v.status {
            Status::Measured if v.id == o.chosen_id => "**chosen**".to_string(),
            Status::Measured => "measured".into(),
            Status::Pruned { estimate, bound } => {
                format!("pruned: estimate {:.3} > {:.3}", estimate, bound)
            }
            Status::Duplicate(of) => format!("same C as #{}", of),
            Status::Failed(e) => format!("failed: {}", e.replace('|', "/")),
            Status::OverBudget => "not measured (budget)".into(),
        };
        s.push_str(&format!(
            "| {} | {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            v.id,
            v.dim.map(|d| d.name()).unwrap_or("default"),
            v.knobs.diff(&def.knobs),
            num(est, 3),
            num(m.and_then(|m| m.hot_cpb), 3),
            num(m.and_then(|m| m.cold_cycles), 0),
            m.and_then(|m| m.code_bytes)
                .map(|b| b.to_string())
                .unwrap_or_else(|| "-".into()),
            num(m.and_then(|m| m.spills_per_block), 1),
            num(v.vs_incumbent, 3),
            num(v.relative, 3),
            status
        ));
    }
    s.push_str("\nest. = static estimate (cycles/byte hot, cycles cold; ranks candidates, prunes those worse than 1.5x the incumbent's). vs incumbent = metric / the incumbent's in the same batch; vs default = chained through the batches (< 1: faster).\n");
    s
}

/// A colour per knob.
fn colour(d: Option<Dim>) -> &'static str {
    match d {
        None => "#000000",
        Some(Dim::Loops) => "#1f77b4",
        Some(Dim::Inline) => "#ff7f0e",
        Some(Dim::SchedBits) => "#2ca02c",
        Some(Dim::SchedIlp) => "#d62728",
        Some(Dim::Interleave) => "#9467bd",
        Some(Dim::Ternlog) => "#8c564b",
        Some(Dim::TernlogOrder) => "#c49c94",
        Some(Dim::NotAbsorb) => "#dbdb8d",
        Some(Dim::TernlogDup) => "#9edae5",
        Some(Dim::Spill) => "#bcbd22",
        Some(Dim::PackedInterleave) => "#aec7e8",
        Some(Dim::PackedConsts) => "#ffbb78",
        Some(Dim::SboxCircuit) => "#98df8a",
        Some(Dim::OpaqueNot) => "#c5b0d5",
        Some(Dim::LoopRegs) => "#f7b6d2",
        Some(Dim::StateLoads) => "#c7c7c7",
        Some(Dim::LoopAlign) => "#393b79",
        Some(Dim::SchedBitsUp) => "#dbdb8d",
        Some(Dim::EntryHalves) => "#ff9896",
        Some(Dim::Cc) => "#e377c2",
        Some(Dim::InlineNode) => "#7f7f7f",
        Some(Dim::Loop) => "#17becf",
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG plot: one dot per measured candidate (x = visiting order, y = goal metric relative
/// to the default, log scale), coloured by the knob it moved; the chosen one ringed; pruned
/// candidates as crosses at their estimate relative to the default's estimate.
pub fn svg(o: &Outcome, cx: &Context) -> String {
    let (w, h) = (760.0f64, 420.0f64);
    let (l, r, t, b) = (70.0, 170.0, 40.0, 50.0);
    let def_est = o.visits[o.default_id]
        .estimate
        .as_ref()
        .map(|e| super::search::estimated(e, cx.goal));
    let mut pts: Vec<(usize, f64, Option<Dim>, bool)> = Vec::new(); // (id, y, dim, measured)
    for v in &o.visits {
        if let Some(rel) = v.relative.filter(|_| v.measurement.is_some()) {
            pts.push((v.id, rel, v.dim, true));
        } else if let (Status::Pruned { estimate, .. }, Some(de)) = (&v.status, def_est) {
            pts.push((v.id, estimate / de, v.dim, false));
        }
    }
    let ys: Vec<f64> = pts
        .iter()
        .map(|p| p.1)
        .chain([1.0])
        .filter(|y| y.is_finite() && *y > 0.0)
        .collect();
    let lo = ys
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min)
        .min(0.95)
        .ln();
    let hi = ys.iter().cloned().fold(0.0, f64::max).max(1.05).ln();
    let n = o.visits.len().max(2) as f64;
    let x_of = |i: usize| l + (w - l - r) * i as f64 / (n - 1.0);
    let y_of = |v: f64| t + (h - t - b) * (hi - v.max(1e-9).ln()) / (hi - lo).max(1e-9);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n");
    s.push_str(&format!(
        "<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n"
    ));
    let metric = if cx.goal == Goal::Cold {
        "cold cycles"
    } else {
        "cycles/byte"
    };
    s.push_str(&format!(
        "<text x=\"{}\" y=\"22\" font-size=\"14\">{} -{} {} (goal {}): {} relative to the default</text>\n",
        l,
        esc(cx.file),
        cx.slicing,
        cx.arch,
        cx.goal.name(),
        metric
    ));
    // Axes and gridlines at round ratios.
    s.push_str(&format!(
        "<line x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{}\" stroke=\"#444\"/>\n",
        h - b
    ));
    s.push_str(&format!(
        "<line x1=\"{l}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\"/>\n",
        h - b,
        w - r,
        h - b
    ));
    for g in [0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0] {
        let ln = f64::ln(g);
        if ln < lo || ln > hi {
            continue;
        }
        let y = y_of(g);
        let style = if g == 1.0 {
            "stroke=\"#000\" stroke-dasharray=\"6,4\""
        } else {
            "stroke=\"#ddd\""
        };
        s.push_str(&format!(
            "<line x1=\"{l}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" {style}/>\n",
            w - r
        ));
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}{}</text>\n",
            l - 6.0,
            y + 4.0,
            g,
            if g == 1.0 { " (default)" } else { "" }
        ));
    }
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">candidate (visiting order)</text>\n",
        (l + w - r) / 2.0,
        h - 15.0
    ));
    for &(id, y, dim, measured) in &pts {
        let (cx_, cy) = (x_of(id), y_of(y));
        let c = colour(dim);
        if measured {
            s.push_str(&format!("<circle cx=\"{cx_:.1}\" cy=\"{cy:.1}\" r=\"4.5\" fill=\"{c}\"><title>#{id} {}: {:.3}</title></circle>\n", esc(&o.visits[id].knobs.diff(&o.visits[o.default_id].knobs)), y));
        } else {
            s.push_str(&format!(
                "<path d=\"M{:.1} {:.1} l7 7 m0 -7 l-7 7\" stroke=\"{c}\" stroke-width=\"1.5\"><title>#{id} pruned (estimate {:.3})</title></path>\n",
                cx_ - 3.5,
                cy - 3.5,
                y
            ));
        }
        if id == o.chosen_id {
            s.push_str(&format!("<circle cx=\"{cx_:.1}\" cy=\"{cy:.1}\" r=\"9\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n"));
        }
    }
    // Legend: the knobs present.
    let mut dims: Vec<Option<Dim>> = vec![None];
    for v in &o.visits {
        if !dims.contains(&v.dim) {
            dims.push(v.dim);
        }
    }
    let mut y = t + 6.0;
    for d in dims {
        s.push_str(&format!(
            "<circle cx=\"{}\" cy=\"{:.1}\" r=\"4.5\" fill=\"{}\"/>\n",
            w - r + 18.0,
            y,
            colour(d)
        ));
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\">{}</text>\n",
            w - r + 28.0,
            y + 4.0,
            d.map(|d| d.name()).unwrap_or("default")
        ));
        y += 18.0;
    }
    s.push_str(&format!("<circle cx=\"{}\" cy=\"{:.1}\" r=\"9\" fill=\"none\" stroke=\"#000\"/><text x=\"{}\" y=\"{:.1}\">chosen</text>\n", w - r + 18.0, y + 4.0, w - r + 32.0, y + 8.0));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{:.1}\">x = pruned (estimate)</text>\n",
        w - r + 10.0,
        y + 30.0
    ));
    s.push_str("</svg>\n");
    s
}
