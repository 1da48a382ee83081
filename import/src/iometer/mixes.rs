//! Which of methodic's standard mixes (`use std.mixes`,
//! compiler/std/mixes.method) an imported workload does the same I/O as,
//! or the same but for its alignment (Iometer's classic Database and
//! Workstation specifications, aligned to the sector where std.mixes
//! aligns to the block): said in the workload's comment. Found by
//! compiling both and comparing their I/O, as `methodic diff` does.

use methodic_compiler::plan::{Bytes, WorkloadIo};

/// How a workload compares with a standard mix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Mix {
    /// The same I/O as this mix.
    Same(String),
    /// The same but for the alignment: this mix's.
    AlignedOtherwise(String, Bytes),
}

impl Mix {
    /// The comment line.
    pub(super) fn note(&self) -> String {
        match self {
            Mix::Same(name) => format!("The same I/O as std.mixes' {name} (`use std.mixes`)."),
            Mix::AlignedOtherwise(name, align) => format!(
                "std.mixes' {name} is this workload aligned to {align} (Iometer 1.1.0's \"request size\" \
                 alignment); see docs/iometer.md."
            ),
        }
    }
}

/// The names of the standard mixes.
fn mix_names() -> Vec<&'static str> {
    methodic_compiler::MIXES_SOURCE
        .lines()
        .filter_map(|l| l.strip_prefix("workload "))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// For each workload body (`random; block 8KiB; read 67%`), the mix it
/// matches, if any; all `None` if the bodies do not compile together.
pub(super) fn matches(bodies: &[String]) -> Vec<Option<Mix>> {
    let names = mix_names();
    let mut src = String::from("methodology \"mixes\" version \"1\"\nuse std.mixes\n");
    for (i, b) in bodies.iter().enumerate() {
        src.push_str(&format!("workload imported_{i} {{ {b} }}\n"));
    }
    for i in 0..bodies.len() {
        src.push_str(&format!("measure imported_{i} qd 1 for 1s\n"));
    }
    for n in &names {
        src.push_str(&format!("measure {n} qd 1 for 1s\n"));
    }
    let Ok(compiled) = methodic_compiler::compile(&src, &methodic_compiler::Options::default()) else {
        return vec![None; bodies.len()];
    };
    let io: Vec<WorkloadIo> =
        compiled.plan.steps.iter().filter_map(|s| s.action.workloads().first().map(|w| w.io())).collect();
    if io.len() != bodies.len() + names.len() {
        return vec![None; bodies.len()];
    }
    let (mine, std) = io.split_at(bodies.len());
    mine.iter()
        .map(|m| {
            let same = std.iter().position(|s| s == m).map(|i| Mix::Same(names[i].to_string()));
            same.or_else(|| {
                std.iter()
                    .position(|s| WorkloadIo { align: s.align, ..m.clone() } == *s)
                    .map(|i| Mix::AlignedOtherwise(names[i].to_string(), std[i].align))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_specs_against_the_mixes() {
        let m = matches(&[
            "random; block 8KiB; read 67%; align 512B".into(),
            "random; block 8KiB; read 67%".into(),
            "random; block 4KiB; read 1%".into(),
        ]);
        assert_eq!(m[0], Some(Mix::AlignedOtherwise("database".into(), Bytes(8192))));
        assert_eq!(m[1], Some(Mix::Same("database".into())));
        assert_eq!(m[2], None);
    }
}
