// SPDX-License-Identifier: GPL-2.0-only
//! The events a metric names, made into evsels: perf's event parser, plus
//! the two forms metrics use that perf 6.1's grammar lacks: the software
//! PMU's event terms (`software/cpu-clock,name=cpu-clock/`, perf's common
//! metrics) and the CPU's JSON events by name (`INST_RETIRED.ANY`, the
//! vendor tables' metrics), encoded as the pmu-events table encodes them.

use crate::parse_events::{self, ParseError, ParsedEvsel, Sysfs};
use crate::pmu_events::PmuEvent;

/// Where metric events are looked up.
#[derive(Clone, Copy)]
pub struct EventSource<'a> {
    /// The PMUs (`None`: the running system's, with its tracefs).
    pub sysfs: Option<&'a Sysfs>,
    /// The CPU's JSON events (its pmu-events table's).
    pub json: &'a [PmuEvent],
}

impl EventSource<'static> {
    /// The running system and this CPU's table.
    pub fn system() -> Self {
        EventSource {
            sysfs: None,
            json: crate::pmu_events::cpu_table().map_or(&[], |t| t.events.as_slice()),
        }
    }
}

/// The core PMU a JSON event without a `Unit` is on.
const CORE_PMUS: &[&str] = &["cpu", "cpu_core", "cpum_cf", "armv8_pmuv3_0"];

impl EventSource<'_> {
    fn parse_events(&self, spec: &str) -> Result<Vec<ParsedEvsel>, ParseError> {
        match self.sysfs {
            Some(s) => parse_events::parse_events_in(spec, s, None),
            None => parse_events::parse_events(spec),
        }
    }

    /// The evsels of one metric event (its id with `@` made `/`).
    ///
    /// # Errors
    /// The parser's error for the event as written.
    pub fn parse(&self, spec: &str) -> Result<Vec<ParsedEvsel>, ParseError> {
        let err = match self.parse_events(spec) {
            Ok(v) => return Ok(v),
            Err(e) => e,
        };
        self.software(spec)
            .or_else(|| self.json_event(spec))
            .ok_or(err)
    }

    /// `software/EVENT,name=NAME/`: the legacy software event, named NAME.
    fn software(&self, spec: &str) -> Option<Vec<ParsedEvsel>> {
        let inner = spec.strip_prefix("software/")?.strip_suffix('/')?;
        let mut terms = inner.split(',');
        let event = terms.next()?;
        let mut name = None;
        for t in terms {
            name = Some(t.strip_prefix("name=")?);
        }
        let mut parsed = self.parse_events(event).ok()?;
        let software = perf_event_open_sys::bindings::PERF_TYPE_SOFTWARE;
        if parsed.iter().any(|p| p.attr.type_ != software) {
            return None;
        }
        if let Some(n) = name {
            for p in &mut parsed {
                n.clone_into(&mut p.name);
            }
        }
        Some(parsed)
    }

    /// A core JSON event by name (perf's tables keep names lower case):
    /// `CORE_PMU/ENCODING,name=ID/`.
    fn json_event(&self, spec: &str) -> Option<Vec<ParsedEvsel>> {
        if spec.contains(['/', ':', ',', '{']) {
            return None;
        }
        let ev = self.json.iter().find(|e| {
            e.name.eq_ignore_ascii_case(spec)
                && e.pmu
                    .as_deref()
                    .is_none_or(|p| p == "default_core" || p == "cpu")
        })?;
        CORE_PMUS.iter().find_map(|pmu| {
            self.parse_events(&format!("{pmu}/{},name={spec}/", ev.event))
                .ok()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fake_sysfs() -> Sysfs {
        Sysfs::at(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/parse_events/testdata/sysfs"))
    }

    #[test]
    fn a_json_event_is_its_encoding_on_the_core_pmu() {
        let sysfs = fake_sysfs();
        let json = [PmuEvent {
            name: "inst_retired.any".into(),
            event: "event=0xc0,period=2000003".into(),
            pmu: Some("default_core".into()),
            ..PmuEvent::default()
        }];
        let src = EventSource {
            sysfs: Some(&sysfs),
            json: &json,
        };
        let got = src.parse("INST_RETIRED.ANY").unwrap();
        let want =
            parse_events::parse_events_in("cpu/event=0xc0,period=2000003/", &sysfs, None).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name, "INST_RETIRED.ANY");
        assert_eq!(got[0].attr, want[0].attr);
        assert!(src.parse("NO_SUCH.EVENT").is_err());
    }

    #[test]
    fn software_terms_are_the_legacy_event_named() {
        let src = EventSource::system();
        let got = src
            .parse("software/context-switches,name=context-switches/")
            .unwrap();
        let want = parse_events::parse_events("context-switches").unwrap();
        assert_eq!(
            (got[0].name.as_str(), got[0].attr),
            ("context-switches", want[0].attr)
        );
        assert!(src.parse("software/nope,name=x/").is_err());
    }
}
