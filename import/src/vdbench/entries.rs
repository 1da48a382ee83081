//! The items in, the file's entries out: the general parameters, then the
//! `hd=`, `sd=`, `wd=` and `rd=` entries in vdbench's section order
//! (`Vdbmain.parseParameterLines`, `Vdbmain.java:685-756`), each keyword
//! resolved by its section's chain ([`super::keywords`]). `xx=default`
//! changes a default that every later `xx=NAME` starts from as a copy
//! (`SD_entry.java:360-369`, `WD_entry.java:154-162`,
//! `RD_entry.java:450-456`): defaults reach only the entries after them.
//! Checks unknown keywords, duplicate names, and refuses the sections of
//! other models (`fsd=`, `fwd=`, `rg=`).

use super::keywords::{Section, resolve, starts};
use super::reader::{Item, unquote};
use crate::ImportErrorKind;
use crate::problem::Problem;

/// One parameter of an entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    /// The keyword vdbench takes it for (`xfersize` for `xf`).
    pub(crate) key: &'static str,
    pub(crate) item: Item,
}

/// An `hd=`, `sd=`, `wd=` or `rd=` entry, or the general parameters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub(crate) section: Section,
    pub(crate) name: String,
    pub(crate) line: usize,
    /// In the order given, the default's first; the last of a keyword wins.
    pub(crate) params: Vec<Param>,
}

impl Entry {
    /// The last value given for `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Param> {
        self.params.iter().rev().find(|p| p.key == key)
    }

    /// `wd=NAME` as errors name the entry.
    pub(crate) fn place(&self) -> String {
        match self.section {
            Section::General => "general parameters".to_string(),
            s => format!("{}={}", s.word(), self.name),
        }
    }
}

/// The file's entries by section.
#[derive(Debug, Default)]
pub(crate) struct Entries {
    pub(crate) general: Vec<Param>,
    pub(crate) hosts: Vec<Entry>,
    pub(crate) sds: Vec<Entry>,
    pub(crate) wds: Vec<Entry>,
    pub(crate) rds: Vec<Entry>,
    /// `wd=default` as it stands at the end of the file: what an rd with
    /// `sd=` and no `wd=` runs (`RD_entry.selectWhichWdsToUse`).
    pub(crate) wd_default: Vec<Param>,
}

/// The items into entries.
pub(crate) fn entries(items: Vec<Item>, problems: &mut Vec<Problem>) -> Entries {
    let mut out = Entries::default();
    let mut defaults: [Vec<Param>; 5] = Default::default();
    let mut section = Section::General;
    let mut current: Option<Entry> = None;
    // After a refused fsd=, fwd= or rg=: its parameters, until the next entry.
    let mut skipping = false;
    for item in items {
        if let Some(start) = starts(section, &item.key) {
            finish(current.take(), &mut out, &mut defaults);
            let Some(next) = section_of(start, &item, problems) else {
                skipping = true;
                continue;
            };
            skipping = false;
            section = next;
            let name = unquote(&item.value);
            let params = if name == "default" { Vec::new() } else { defaults[next as usize].clone() };
            current = Some(Entry { section: next, name, line: item.line, params });
            continue;
        }
        if skipping {
            continue;
        }
        let Some(key) = resolve(section, &item.key) else {
            let detail = format!("vdbench knows no keyword `{}=` among the {}", item.key, section.word());
            let hint = match (section, item.key.as_str()) {
                (Section::Rd, "readpct" | "re") => {
                    "an rd takes rdpct= (or forrdpct=); readpct= is a wd keyword"
                }
                (Section::Sd | Section::Wd | Section::Rd, _) => {
                    "general parameters go before every hd, sd, wd and rd; sd parameters before the first wd"
                }
                _ => "see the keywords in docs/vdbench.md",
            };
            problems.push(
                Problem::new(ImportErrorKind::UnknownOption, item.line, detail)
                    .option(item.said())
                    .place(current.as_ref().map_or("general parameters".to_string(), Entry::place))
                    .hint(hint),
            );
            continue;
        };
        let param = Param { key, item };
        match &mut current {
            Some(e) => e.params.push(param),
            None => out.general.push(param),
        }
    }
    finish(current, &mut out, &mut defaults);
    out.wd_default = defaults[Section::Wd as usize].clone();
    check_names(&out, problems);
    out
}

/// The section an entry keyword starts; the models methodic does not have
/// are refused.
fn section_of(start: &str, item: &Item, problems: &mut Vec<Problem>) -> Option<Section> {
    match start {
        "hd" => Some(Section::Host),
        "sd" => Some(Section::Sd),
        "wd" => Some(Section::Wd),
        "rd" => Some(Section::Rd),
        _ => {
            let why = if start == "rg" {
                "replay groups replay a recorded I/O trace, which methodic cannot"
            } else {
                "file-system workloads (fsd=, fwd=) create and use directory trees of files, another model \
                 than methodic's block workloads"
            };
            problems.push(
                Problem::new(ImportErrorKind::Untranslatable, item.line, why).option(item.said()).hint(
                    "methodic's copy step and datasets test files; write them by hand (docs/LANGUAGE.md)",
                ),
            );
            None
        }
    }
}

/// An entry into its section's list, or into its default.
fn finish(entry: Option<Entry>, out: &mut Entries, defaults: &mut [Vec<Param>; 5]) {
    let Some(e) = entry else { return };
    if e.name == "default" {
        defaults[e.section as usize].extend(e.params);
        return;
    }
    match e.section {
        Section::General => {}
        Section::Host => out.hosts.push(e),
        Section::Sd => out.sds.push(e),
        Section::Wd => out.wds.push(e),
        Section::Rd => out.rds.push(e),
    }
}

/// Names used twice in a section, as vdbench refuses them.
fn check_names(e: &Entries, problems: &mut Vec<Problem>) {
    for list in [&e.hosts, &e.sds, &e.wds, &e.rds] {
        for (i, a) in list.iter().enumerate() {
            if let Some(b) = list[..i].iter().find(|b| b.name == a.name) {
                problems.push(
                    Problem::new(
                        ImportErrorKind::Conflict,
                        a.line,
                        format!(
                            "{} is defined twice (first on line {}); vdbench refuses that",
                            a.place(),
                            b.line
                        ),
                    )
                    .option(a.place()),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Entries, Vec<Problem>) {
        let include = |_: &str| Err("none".to_string());
        let input = crate::Input { text, file: "t.vdb", name: "t", vars: &[], include: &include };
        let mut problems = Vec::new();
        let items = super::super::reader::items(&input, &mut problems);
        let e = entries(items, &mut problems);
        (e, problems)
    }

    #[test]
    fn defaults_reach_only_the_entries_after_them() {
        let (e, p) =
            parse("sd=sd1,lun=/a\nsd=default,threads=3\nsd=sd2,lun=/b\nsd=default,th=4\nsd=sd3,lun=/c");
        assert!(p.is_empty(), "{p:?}");
        let threads: Vec<Option<String>> =
            e.sds.iter().map(|s| s.get("threads").map(|p| p.item.value.clone())).collect();
        assert_eq!(threads, [None, Some("3".into()), Some("4".into())]);
    }

    #[test]
    fn sections_follow_vdbench_s_order() {
        let (e, p) =
            parse("compratio=2\nhd=h1,system=a\nsd=sd1,lun=/a\nwd=w1,sd=sd1,xf=8k\nrd=r1,wd=w1,io=max");
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(e.general[0].key, "compratio");
        assert_eq!((e.hosts.len(), e.sds.len(), e.wds.len(), e.rds.len()), (1, 1, 1, 1));
        assert_eq!(e.wds[0].get("sd").unwrap().item.value, "sd1");
        assert_eq!(e.wds[0].get("xfersize").unwrap().item.value, "8k");
    }

    #[test]
    fn unknown_keywords_other_models_and_twice_named_entries_are_refused() {
        let (_, p) = parse("sd=sd1,lun=/a\nwd=w1,sd=sd1\ncompratio=2\nrd=r1,wd=w1,readpct=5\nrd=r1,wd=w1");
        let d: Vec<&str> = p.iter().map(|p| p.detail.as_str()).collect();
        assert!(d.iter().any(|d| d.contains("no keyword `compratio=` among the wd")), "{d:?}");
        assert!(d.iter().any(|d| d.contains("no keyword `readpct=` among the rd")), "{d:?}");
        assert!(d.iter().any(|d| d.contains("rd=r1 is defined twice")), "{d:?}");
        let (_, p) = parse("fsd=f1,anchor=/x\nfwd=f,fsd=f1");
        assert!(p.iter().any(|p| p.detail.contains("file-system workloads")), "{p:?}");
    }
}
