// SPDX-License-Identifier: GPL-2.0-only
//! What `perf script -F ip,sym,symoff,dso` (and `ip,srcline`,
//! `ip,insn,insnlen`) prints, from this crate's session and resolution:
//! the text the tests compare with perf's.

use std::path::Path;
use std::sync::Arc;

use perf_core::perf_data::PerfData;
use perf_core::session::{Event, Handler, MachineRef, Session, SessionOptions};
use perf_core::symbol::callchain::CallchainNode;
use perf_core::symbol::conf::SymbolConf;
use perf_core::symbol::resolve::AddrLocation;

/// `sym+0xoff`, or `[unknown]`.
pub fn sym_off(al: &AddrLocation) -> String {
    match (al.symbol_name(), al.symoff()) {
        (Some(n), Some(off)) => format!("{n}+0x{off:x}"),
        (Some(n), None) => n.to_owned(),
        _ => "[unknown]".to_owned(),
    }
}

/// The address perf prints for a frame: the binary offset for user
/// objects, the address itself for the kernel and unmapped addresses.
pub fn shown_addr(node: &CallchainNode) -> u64 {
    match &node.location.map {
        Some(m) if !m.is_kernel() => m.map_ip(node.ip),
        _ => node.ip,
    }
}

/// One line per frame, as `sample__fprintf_callchain` prints it: an
/// inlined frame (`inline_name`) with its name and `(inlined)` in place
/// of the object.
pub fn frame_line(node: &CallchainNode) -> String {
    if node.inlined() {
        let off = node.location.symoff().unwrap_or_default();
        return format!(
            "\t{:16x} {}+0x{off:x} (inlined)",
            shown_addr(node),
            node.symbol_name()
        );
    }
    format!(
        "\t{:16x} {} ({})",
        shown_addr(node),
        sym_off(&node.location),
        node.dso_name(false)
    )
}

/// perf script prints the sample's call chain (else its ip alone): it
/// has recorded words, or a user stack to unwind.
fn has_chain(ev: &Event<'_>) -> bool {
    !ev.record.sample.callchain.is_empty() || ev.user_stack().is_some()
}

/// Frames whose symbol name was demangled, by output line: (the name we
/// show, the name in the symbol table).
pub type Demangled = std::collections::HashMap<usize, (String, String)>;

/// Calls `f` for every sample of the recording, read by this crate's
/// session with symbol sources `conf`; returns the session's machine as it
/// is at the end.
pub fn each_sample(data: &Path, conf: SymbolConf, mut f: impl FnMut(&Event<'_>)) -> MachineRef {
    struct H<F>(F);
    impl<F: FnMut(&Event<'_>)> Handler for H<F> {
        type Error = std::convert::Infallible;
        fn sample(&mut self, ev: &Event<'_>) -> Result<(), Self::Error> {
            (self.0)(ev);
            Ok(())
        }
    }
    let options = SessionOptions {
        symbols: conf,
        ..SessionOptions::default()
    };
    let path = data.to_str().expect("utf-8 path");
    let mut session = Session::new(PerfData::open(path).expect("open"), options).expect("session");
    if let Err(e) = session.process_events(&mut H(&mut f)) {
        panic!("{path}: {e}");
    }
    session.machine().clone()
}

/// The whole `perf script -F ip,sym,symoff,dso` output for the recording,
/// and the demangled names in it.
pub fn ip_sym_dso(data: &Path, conf: SymbolConf) -> (String, Demangled) {
    let mut out = String::new();
    let mut demangled = Demangled::new();
    each_sample(data, conf, |ev| {
        // perf script resolves the sample's own ip first (machine__resolve),
        // then the call chain.
        let al = ev.resolve();
        if !has_chain(ev) {
            let dso = al.map.as_ref().map_or("[unknown]", |m| m.dso_name(false));
            let ip = ev.record.sample.ip;
            out.push_str(&format!(" {:16x} {} ({})", ip, sym_off(&al), dso));
        } else {
            out.push('\n');
            for node in ev.callchain() {
                if let Some(s) = &node.location.sym {
                    let sym = s.symbol();
                    if sym.name() != sym.raw_name() {
                        let line = out.matches('\n').count();
                        demangled.insert(line, (sym.name().to_owned(), sym.raw_name().to_owned()));
                    }
                }
                out.push_str(&frame_line(&node));
                out.push('\n');
            }
        }
        out.push('\n');
    });
    (out, demangled)
}

/// The whole `perf script -F ip,srcline` output for the recording.
pub fn ip_srcline(data: &Path, conf: SymbolConf) -> String {
    let mut out = String::new();
    each_sample(data, conf, |ev| {
        if !has_chain(ev) {
            return;
        }
        let _ = ev.resolve();
        let dsos = Arc::clone(ev.machine.lock().dsos());
        out.push('\n');
        for node in ev.callchain() {
            out.push_str(&format!("\t{:16x}", shown_addr(&node)));
            if let Some(text) = dsos.srcline_text(node.location.map.as_deref(), node.location.addr)
            {
                out.push_str("\n  ");
                out.push_str(&text);
            }
            out.push('\n');
        }
        out.push('\n');
    });
    out
}

/// perf script's ` ilen: N insn: xx ...` line for each sample (with
/// `-F ip,insn,insnlen`, after the call chain), from `Dsos::fetch_insn`.
pub fn insn_lines(data: &Path, conf: SymbolConf) -> Vec<String> {
    let mut out = Vec::new();
    each_sample(data, conf, |ev| {
        let al = ev.resolve();
        let insn = ev.machine.lock().dsos().fetch_insn(&al).unwrap_or_default();
        let mut line = format!(" ilen: {}", insn.len());
        if !insn.is_empty() {
            line.push_str(" insn:");
            for b in &insn {
                line.push_str(&format!(" {b:02x}"));
            }
        }
        out.push(line);
    });
    out
}
