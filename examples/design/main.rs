//! A registry's design exported for other tools: seed 001's five entity
//! types and fifteen access patterns (each proven when the registry is
//! built) as a Markdown review table, a NoSQL Workbench data model, the
//! `schema.json` of AWS's data-modelling tools, a CloudFormation template
//! and a Terraform resource.
//!
//! ```text
//! cargo run --example design                   # writes examples/design/exports/
//! cargo run --example design -- some/dir       # writes them there
//! cargo run --example design -- --check        # fails if the committed files are stale
//! ```
//!
//! The committed files in `exports/` are what the example writes; its test
//! (`tests.rs`, run by `cargo test`) fails when they drift, and checks each
//! document against what its tool requires.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use dynamodb_mapper::DesignExport;
use dynamodb_mapper_support::seed001;

/// The table name the exports use.
const TABLE: &str = "AppTable";

/// Each export, with the file it is written to.
fn exports() -> Result<Vec<(&'static str, String)>, dynamodb_mapper::Error> {
    let registry = seed001::access_registry()?;
    Ok([
        ("AppTable.md", DesignExport::Markdown),
        ("AppTable.workbench.json", DesignExport::NoSqlWorkbench),
        ("AppTable.schema.json", DesignExport::DataModel),
        ("AppTable.cloudformation.json", DesignExport::CloudFormation),
        ("AppTable.tf", DesignExport::Terraform),
    ]
    .into_iter()
    .map(|(file, format)| (file, registry.export(format, TABLE)))
    .collect())
}

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/design/exports")
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or_else(committed, PathBuf::from);
    let exports = match exports() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("the design does not build: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stale = Vec::new();
    for (file, text) in &exports {
        let path = dir.join(file);
        if check {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(path.display().to_string());
            }
            continue;
        }
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text)) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    if stale.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "stale (run `cargo run --example design` and commit): {}",
            stale.join(", ")
        );
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests;
