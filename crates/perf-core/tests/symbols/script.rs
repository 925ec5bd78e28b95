// SPDX-License-Identifier: GPL-2.0-only
//! What `perf script -F ip,sym,symoff,dso` prints, from this crate's
//! resolution: the text the tests compare with perf's.

use perf_core::symbol::callchain::{CallchainNode, PERF_MAX_STACK_DEPTH};
use perf_core::symbol::resolve::{AddrLocation, CPUMODE_MASK};

use super::dump::Event;
use super::model::Machine;

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

/// One line per frame, as `sample__fprintf_callchain` prints it.
pub fn frame_line(node: &CallchainNode) -> String {
    format!(
        "\t{:16x} {} ({})",
        shown_addr(node),
        sym_off(&node.location),
        node.dso_name(false)
    )
}

/// Frames whose symbol name was demangled, by output line: (the name we
/// show, the name in the symbol table).
pub type Demangled = std::collections::HashMap<usize, (String, String)>;

/// The whole `perf script -F ip,sym,symoff,dso` output for `events`, and
/// the demangled names in it.
pub fn ip_sym_dso(machine: &mut Machine, events: &[Event]) -> (String, Demangled) {
    let mut out = String::new();
    let mut demangled = Demangled::new();
    for ev in events {
        machine.apply(ev);
        let Event::Sample {
            misc,
            pid,
            ip,
            callchain,
            ..
        } = ev
        else {
            continue;
        };
        let maps = machine.maps(*pid);
        // perf script resolves the sample's own ip first (machine__resolve),
        // then the call chain.
        let al = machine
            .dsos
            .thread_find_symbol(&maps, (*misc & CPUMODE_MASK) as u8, *ip);
        match callchain {
            Some(chain) => {
                out.push('\n');
                for node in machine
                    .dsos
                    .resolve_callchain(&maps, chain, PERF_MAX_STACK_DEPTH)
                {
                    if let Some(s) = &node.location.sym {
                        let sym = s.symbol();
                        if sym.name() != sym.raw_name() {
                            let line = out.matches('\n').count();
                            demangled
                                .insert(line, (sym.name().to_owned(), sym.raw_name().to_owned()));
                        }
                    }
                    out.push_str(&frame_line(&node));
                    out.push('\n');
                }
            }
            None => {
                let dso = al.map.as_ref().map_or("[unknown]", |m| m.dso_name(false));
                out.push_str(&format!(" {:16x} {} ({})", ip, sym_off(&al), dso));
            }
        }
        out.push('\n');
    }
    (out, demangled)
}

/// The whole `perf script -F ip,srcline` output for `events`.
pub fn ip_srcline(machine: &mut Machine, events: &[Event]) -> String {
    let mut out = String::new();
    for ev in events {
        machine.apply(ev);
        let Event::Sample {
            misc,
            pid,
            ip,
            callchain: Some(chain),
            ..
        } = ev
        else {
            continue;
        };
        let maps = machine.maps(*pid);
        let _ = machine
            .dsos
            .thread_find_symbol(&maps, (*misc & CPUMODE_MASK) as u8, *ip);
        out.push('\n');
        for node in machine
            .dsos
            .resolve_callchain(&maps, chain, PERF_MAX_STACK_DEPTH)
        {
            out.push_str(&format!("\t{:16x}", shown_addr(&node)));
            if let Some(text) = machine
                .dsos
                .srcline_text(node.location.map.as_deref(), node.location.addr)
            {
                out.push_str("\n  ");
                out.push_str(&text);
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// perf script's ` ilen: N insn: xx ...` line for each sample (with
/// `-F ip,insn,insnlen`, after the call chain), from `Dsos::fetch_insn`.
pub fn insn_lines(machine: &mut Machine, events: &[Event]) -> Vec<String> {
    let mut out = Vec::new();
    for ev in events {
        machine.apply(ev);
        let Event::Sample { misc, pid, ip, .. } = ev else {
            continue;
        };
        let maps = machine.maps(*pid);
        let al = machine
            .dsos
            .thread_find_symbol(&maps, (*misc & CPUMODE_MASK) as u8, *ip);
        let insn = machine.dsos.fetch_insn(&al).unwrap_or_default();
        let mut line = format!(" ilen: {}", insn.len());
        if !insn.is_empty() {
            line.push_str(" insn:");
            for b in &insn {
                line.push_str(&format!(" {b:02x}"));
            }
        }
        out.push(line);
    }
    out
}
