//! A keyword as written in, the full keyword vdbench takes it for out.
//! vdbench does not look for the shortest unique prefix its guide
//! promises: each section tests `"fullname".startsWith(keyword)` in a
//! fixed order and the first match wins, some keywords only when written
//! in full (from `MiscParms.java:51-228`,
//! `HostParms.java:41-136`, `SD_entry.java:344-504`,
//! `WD_entry.java:148-280`, `RD_entry.java:447-624` and
//! `For_loop.java:611-716` in `Hust-Wen/vdbench@e801261:src/Vdb/`). Each
//! table below is one such chain, in its order, with the shortest prefix
//! that reaches each keyword through it.

/// A section of the parameter file, in vdbench's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Section {
    General,
    Host,
    Sd,
    Wd,
    Rd,
}

impl Section {
    /// What the entries are called in errors.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Section::General => "general parameters",
            Section::Host => "hd",
            Section::Sd => "sd",
            Section::Wd => "wd",
            Section::Rd => "rd",
        }
    }
}

/// `(keyword as vdbench spells it, the name this importer uses, shortest
/// prefix)`; a shortest prefix equal to the keyword's length means the
/// keyword is only taken in full.
type Chain = &'static [(&'static str, &'static str, usize)];

const GENERAL: Chain = &[
    ("compratio", "compratio", 2),
    ("compression", "compression", 11),
    ("compressionseed", "compressionseed", 6),
    ("port", "port", 2),
    ("pattern", "pattern", 2),
    ("data_errors", "data_errors", 2),
    ("dataerrors", "data_errors", 10),
    ("swat", "swat", 2),
    ("validate", "validate", 2),
    ("journal", "journal", 7),
    ("startcmd", "startcmd", 8),
    ("start_cmd", "startcmd", 9),
    ("endcmd", "endcmd", 6),
    ("end_cmd", "endcmd", 7),
    ("heartbeat_error", "heartbeat_error", 15),
    ("debug", "debug", 5),
    ("unix2windows", "unix2windows", 2),
    ("formatxfersize", "formatxfersize", 2),
    ("create_anchors", "create_anchors", 2),
    ("formatsds", "formatsds", 7),
    ("report", "report", 2),
    ("report_run_totals", "report_run_totals", 7),
    ("histogram", "histogram", 2),
    ("psrset", "psrset", 2),
    ("auxreport", "auxreport", 2),
    ("monitor", "monitor", 2),
    ("concatenatesds", "concatenatesds", 3),
    ("messagescan", "messagescan", 2),
    ("abort_failed_skew", "abort_failed_skew", 2),
    ("misc", "misc", 2),
    ("pattern_buffer", "pattern_buffer", 14),
    ("showlba", "showlba", 7),
    ("loop", "loop", 4),
    ("timeout", "timeout", 2),
    ("ios_per_jvm", "ios_per_jvm", 2),
    ("fwd_thread_adjust", "fwd_thread_adjust", 2),
];

const HOST: Chain = &[
    ("system", "system", 2),
    ("master", "master", 2),
    ("vdbench", "vdbench", 2),
    ("shell", "shell", 2),
    ("user", "user", 2),
    ("jvms", "jvms", 2),
    ("clients", "clients", 2),
    ("mount", "mount", 2),
];

const SD: Chain = &[
    ("host", "host", 2),
    ("hd", "host", 2),
    ("lun", "lun", 2),
    ("count", "count", 2),
    ("size", "size", 2),
    ("threads", "threads", 2),
    ("hitarea", "hitarea", 2),
    ("offset", "offset", 2),
    ("align", "align", 2),
    ("kstat", "kstat", 2),
    ("instance", "instance", 2),
    ("replay", "replay", 2),
    ("journal", "journal", 2),
    ("resetlun", "resetlun", 3),
    ("resetbus", "resetbus", 6),
    ("openflags", "openflags", 2),
    ("range", "range", 2),
    ("streams", "streams", 2),
];

const WD: Chain = &[
    ("sd", "sd", 2),
    ("skew", "skew", 2),
    ("xfersize", "xfersize", 2),
    ("readpct", "rdpct", 2),
    ("rdpct", "rdpct", 3),
    ("writepct", "writepct", 2),
    ("wrpct", "writepct", 3),
    ("range", "range", 2),
    ("hotband", "hotband", 2),
    ("seekpct", "seekpct", 2),
    ("stride", "stride", 2),
    ("priority", "priority", 2),
    ("iorate", "iorate", 2),
    ("rhpct", "rhpct", 2),
    ("whpct", "whpct", 2),
    ("host", "host", 3),
    ("hd", "host", 2),
    ("openflags", "openflags", 2),
    ("user", "user", 4),
    ("threads", "threads", 2),
    ("streams", "streams", 4),
];

const RD: Chain = &[
    ("wd", "wd", 2),
    ("sd", "sd", 2),
    ("fsd", "fsd", 3),
    ("iorate", "iorate", 2),
    ("curve", "curve", 2),
    ("stopcurve", "stopcurve", 2),
    ("elapsed", "elapsed", 2),
    ("interval", "interval", 2),
    ("warmup", "warmup", 2),
    ("replay", "replay", 6),
    ("pause", "pause", 2),
    ("forxfersize", "forxfersize", 2),
    ("forthreads", "forthreads", 4),
    ("forrdpct", "forrdpct", 4),
    ("forrhpct", "forrhpct", 5),
    ("forwhpct", "forwhpct", 4),
    ("forseekpct", "forseekpct", 4),
    ("forhitarea", "forhitarea", 4),
    ("forcompratio", "forcompratio", 4),
    ("forcompression", "forcompression", 9),
    ("fordepth", "fordepth", 4),
    ("forwidth", "forwidth", 5),
    ("forfiles", "forfiles", 4),
    ("forsizes", "forsizes", 5),
    ("fortotalsize", "fortotalsize", 5),
    ("forwss", "forwss", 5),
    ("forworkingsetsize", "forwss", 5),
    ("foroperations", "foroperations", 4),
    ("xfersize", "forxfersize", 2),
    ("threads", "forthreads", 2),
    ("rdpct", "forrdpct", 3),
    ("rhpct", "forrhpct", 2),
    ("whpct", "forwhpct", 2),
    ("seekpct", "forseekpct", 2),
    ("hitarea", "forhitarea", 2),
    ("compratio", "forcompratio", 2),
    ("compression", "forcompression", 6),
    ("depth", "fordepth", 2),
    ("width", "forwidth", 2),
    ("files", "forfiles", 2),
    ("sizes", "forsizes", 2),
    ("totalsize", "fortotalsize", 2),
    ("wss", "forwss", 2),
    ("workingsetsize", "forwss", 2),
    ("distribution", "distribution", 2),
    ("startcmd", "startcmd", 3),
    ("start_cmd", "startcmd", 3),
    ("endcmd", "endcmd", 2),
    ("end_cmd", "endcmd", 4),
    ("fwd", "fwd", 3),
    ("fwdrate", "fwdrate", 2),
    ("operations", "operations", 2),
    ("format", "format", 4),
    ("openflags", "openflags", 4),
    ("mount", "mount", 2),
];

/// The keyword `key` (lowercased) stands for in `section`, by the
/// section's chain, or nothing when vdbench does not know it there.
pub(crate) fn resolve(section: Section, key: &str) -> Option<&'static str> {
    if key.starts_with("dedup") && matches!(section, Section::General | Section::Sd) {
        return Some("dedup");
    }
    if section == Section::Rd && key.starts_with("maxdata") {
        return ["maxdata", "maxdataread", "maxdatawritten"].into_iter().find(|k| *k == key);
    }
    let chain = match section {
        Section::General => GENERAL,
        Section::Host => HOST,
        Section::Sd => SD,
        Section::Wd => WD,
        Section::Rd => RD,
    };
    chain.iter().find(|(full, _, min)| key.len() >= *min && full.starts_with(key)).map(|(_, name, _)| *name)
}

/// The section an entry keyword starts, from `section`: `sd=` in a wd is
/// the wd's own parameter, not a new sd. Nothing when `key` is a
/// parameter of `section`.
pub(crate) fn starts(section: Section, key: &str) -> Option<&'static str> {
    let ends: &[&str] = match section {
        Section::General => &["rg", "sd", "fsd", "wd", "fwd", "rd", "hd", "host"],
        Section::Host => &["rg", "sd", "fsd", "wd", "fwd", "rd", "hd", "host"],
        Section::Sd => &["sd", "wd", "rd", "fwd"],
        Section::Wd => &["wd", "fwd", "rd"],
        Section::Rd => &["rd"],
    };
    ends.iter().find(|k| **k == key).map(|k| if *k == "host" { "hd" } else { *k })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_match_of_each_chain_wins() {
        assert_eq!(resolve(Section::Wd, "xf"), Some("xfersize"));
        assert_eq!(resolve(Section::Wd, "re"), Some("rdpct"));
        assert_eq!(resolve(Section::Wd, "rdp"), Some("rdpct"));
        assert_eq!(resolve(Section::Wd, "ho"), Some("hotband"));
        assert_eq!(resolve(Section::Wd, "hos"), Some("host"));
        assert_eq!(resolve(Section::Wd, "st"), Some("stride"));
        assert_eq!(resolve(Section::Sd, "ho"), Some("host"));
        assert_eq!(resolve(Section::Sd, "re"), Some("replay"));
        assert_eq!(resolve(Section::Sd, "res"), Some("resetlun"));
        assert_eq!(resolve(Section::General, "re"), Some("report"));
        assert_eq!(resolve(Section::Rd, "st"), Some("stopcurve"));
        assert_eq!(resolve(Section::Rd, "op"), Some("operations"));
        assert_eq!(resolve(Section::Rd, "open"), Some("openflags"));
        assert_eq!(resolve(Section::Rd, "for"), Some("forxfersize"));
        assert_eq!(resolve(Section::Rd, "fort"), Some("forthreads"));
        assert_eq!(resolve(Section::Rd, "forsi"), Some("forsizes"));
        assert_eq!(resolve(Section::Rd, "io"), Some("iorate"));
        assert_eq!(resolve(Section::Rd, "el"), Some("elapsed"));
        assert_eq!(resolve(Section::Rd, "maxdatawritten"), Some("maxdatawritten"));
    }

    #[test]
    fn keywords_too_long_or_unknown_there_are_not_taken() {
        assert_eq!(resolve(Section::Wd, "xfersizes"), None);
        assert_eq!(resolve(Section::Rd, "readpct"), None, "readpct is a wd keyword only");
        assert_eq!(resolve(Section::Rd, "maxdatax"), None);
        assert_eq!(resolve(Section::Wd, "lun"), None);
        assert_eq!(resolve(Section::General, "startc"), None, "startcmd only in full");
    }

    #[test]
    fn entry_keywords_end_a_section_only_where_vdbench_ends_it() {
        assert_eq!(starts(Section::Wd, "sd"), None, "sd= in a wd names its sds");
        assert_eq!(starts(Section::Sd, "hd"), None, "hd= in an sd is its host");
        assert_eq!(starts(Section::General, "host"), Some("hd"));
        assert_eq!(starts(Section::Wd, "rd"), Some("rd"));
        assert_eq!(starts(Section::Rd, "wd"), None);
    }
}
