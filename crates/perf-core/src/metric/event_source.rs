// SPDX-License-Identifier: GPL-2.0-only
//! The events a metric names, made into evsels: perf's event parser (which
//! takes the CPU's JSON event names, `INST_RETIRED.ANY`, as its vendor
//! tables' metrics write them), plus the form perf's common metrics use that
//! perf 6.1's grammar lacks: the software PMU's event terms
//! (`software/cpu-clock,name=cpu-clock/`).

use crate::parse_events::{self, ParseError, ParsedEvsel, Sysfs};

/// Where metric events are looked up.
#[derive(Clone, Copy)]
pub struct EventSource<'a> {
    /// The PMUs (`None`: the running system's, with its tracefs).
    pub sysfs: Option<&'a Sysfs>,
}

impl EventSource<'static> {
    /// The running system.
    pub fn system() -> Self {
        EventSource { sysfs: None }
    }
}

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
        self.software(spec).ok_or(err)
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
