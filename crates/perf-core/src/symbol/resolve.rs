// SPDX-License-Identifier: GPL-2.0-only
//! Addresses to locations: perf's `thread__find_map`,
//! `thread__find_symbol` and `struct addr_location`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::dso::DsoSymbols;
use super::dsos::Dsos;
use super::map::Map;
use super::symbols::Symbol;

/// `PERF_RECORD_MISC_KERNEL`.
pub const CPUMODE_KERNEL: u8 = 1;
/// `PERF_RECORD_MISC_USER`.
pub const CPUMODE_USER: u8 = 2;
/// `PERF_RECORD_MISC_HYPERVISOR`.
pub const CPUMODE_HYPERVISOR: u8 = 3;
/// `PERF_RECORD_MISC_GUEST_KERNEL`.
pub const CPUMODE_GUEST_KERNEL: u8 = 4;
/// `PERF_RECORD_MISC_GUEST_USER`.
pub const CPUMODE_GUEST_USER: u8 = 5;
/// `PERF_RECORD_MISC_CPUMODE_MASK`.
pub const CPUMODE_MASK: u16 = 7;

/// A thread's user-space maps, as the session's thread model holds them.
pub trait ThreadMaps {
    /// `maps__find`: the map holding `addr`, if any.
    fn find_map(&self, addr: u64) -> Option<Arc<Map>>;
}

impl ThreadMaps for super::map::Maps {
    fn find_map(&self, addr: u64) -> Option<Arc<Map>> {
        self.find(addr).cloned()
    }
}

/// A thread with no maps (a sample whose thread the session does not
/// know).
impl ThreadMaps for () {
    fn find_map(&self, _addr: u64) -> Option<Arc<Map>> {
        None
    }
}

/// A symbol held by its (shared) table.
#[derive(Debug, Clone)]
pub struct SymbolRef {
    table: Arc<DsoSymbols>,
    index: u32,
}

impl SymbolRef {
    /// The symbol.
    pub fn symbol(&self) -> &Symbol {
        // An index handed out by find_index always exists; fall back to a
        // placeholder rather than panic.
        static NONE: std::sync::OnceLock<Symbol> = std::sync::OnceLock::new();
        self.table
            .symbols
            .at(self.index)
            .unwrap_or_else(|| NONE.get_or_init(|| Symbol::new(0, 0, 0, 0, "[unknown]")))
    }

    /// The name as perf shows it.
    pub fn name(&self) -> &str {
        self.symbol().name()
    }

    /// The table the symbol is in, and its index there: the same pair is
    /// the same symbol while the table lives.
    pub fn key(&self) -> (&Arc<DsoSymbols>, u32) {
        (&self.table, self.index)
    }
}

/// `struct addr_location`: where an address is.
#[derive(Debug, Clone, Default)]
pub struct AddrLocation {
    /// The map holding the address, if any.
    pub map: Option<Arc<Map>>,
    /// The address in the map's DSO (`map_ip`), or the address itself
    /// without a map.
    pub addr: u64,
    /// The symbol holding it, if any.
    pub sym: Option<SymbolRef>,
    /// The cpumode used for the lookup.
    pub cpumode: u8,
}

impl AddrLocation {
    /// The offset perf script prints after the symbol (`sym+0x…`,
    /// `__symbol__fprintf_symname_offs`): from the symbol's start, or,
    /// for an address past the end of a zero-sized symbol, what perf
    /// computes then.
    pub fn symoff(&self) -> Option<u64> {
        let s = self.sym.as_ref()?.symbol();
        if self.addr < s.end {
            Some(self.addr.wrapping_sub(s.start))
        } else {
            let m = self.map.as_ref()?;
            Some(self.addr.wrapping_sub(m.unmap_ip(s.start)))
        }
    }

    /// The symbol's name, if resolved.
    pub fn symbol_name(&self) -> Option<&str> {
        self.sym.as_ref().map(SymbolRef::name)
    }
}

impl Dsos {
    /// `thread__find_map`: the map for `addr` under `cpumode` (kernel
    /// addresses in the kernel maps, user ones in the thread's), with the
    /// address translated.
    pub fn thread_find_map(&self, thread: &dyn ThreadMaps, cpumode: u8, addr: u64) -> AddrLocation {
        let map = match cpumode {
            CPUMODE_KERNEL => self.find_kernel_map(addr),
            CPUMODE_USER => thread.find_map(addr),
            _ => None,
        };
        AddrLocation {
            addr: map.as_ref().map_or(addr, |m| m.map_ip(addr)),
            map,
            sym: None,
            cpumode,
        }
    }

    /// `thread__find_symbol` (and `machine__resolve` for a sample's ip):
    /// the map and the symbol, loading the DSO's symbols on first use.
    pub fn thread_find_symbol(
        &self,
        thread: &dyn ThreadMaps,
        cpumode: u8,
        addr: u64,
    ) -> AddrLocation {
        let mut al = self.thread_find_map(thread, cpumode, addr);
        if let Some(m) = &al.map {
            let table = self.load(m.dso());
            // perf's map__find_symbol returns nothing right after a failed
            // dso__load, then uses what the load had inserted.
            if m.dso().failed_lookup_pending.swap(false, Ordering::Relaxed) {
                // The next lookup finds what this one did not.
                self.changed();
                return al;
            }
            al.sym = table
                .symbols
                .find_index(al.addr)
                .map(|index| SymbolRef { table, index });
        }
        al
    }
}
