//! Hover: what a name is, and for a field what it costs on the wire in each encoding of the
//! project: the rows `idlc report` prints ([`crate::report`], from the IR's wire plan; nothing
//! is recomputed here).

use std::fmt::Write as _;
use std::path::Path;

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use super::analysis::Analysis;
use super::index::{Kind, Symbol};
use crate::ir::StructDef;
use crate::report::{RowKind, StructReport, struct_report};

/// The hover of the name at `position` of `path`, if one is there.
pub fn hover(analysis: &Analysis, path: &Path, position: Position) -> Option<Hover> {
    let index = analysis.index();
    let occurrence = index.at(path, position)?;
    let text = match &occurrence.symbol {
        Symbol::Field { owner, name } => field(analysis, owner, name),
        Symbol::Item(name) => {
            let kind = index
                .declarations(&occurrence.symbol)
                .find_map(|o| o.declares)?;
            item(analysis, name, kind)
        }
        Symbol::File(file) => format!("`{}`", file.display()),
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(occurrence.range),
    })
}

/// The struct `name` of the first compilation that declares it, complete ones first.
fn find_struct<'a>(analysis: &'a Analysis, name: &str) -> Option<&'a StructDef> {
    analysis
        .best_first()
        .find_map(|c| c.ir.schema.structs.get(name))
}

/// The reports of the struct `name` in every encoding of the complete compilations (each
/// encoding once).
fn reports(analysis: &Analysis, name: &str) -> Vec<StructReport> {
    let mut out: Vec<StructReport> = Vec::new();
    for compilation in analysis.complete() {
        let ir = &compilation.ir;
        let Some(def) = ir.schema.structs.get(name) else {
            continue;
        };
        for encoding in ir.encodings.values() {
            if out.iter().any(|r| r.encoding == encoding.name) {
                continue;
            }
            out.extend(struct_report(ir, encoding, def));
        }
    }
    out
}

/// What to say when no bits are known.
fn no_report(analysis: &Analysis) -> &'static str {
    if analysis.complete().next().is_none() {
        "\n\nThe project has errors: its bits show once they are fixed."
    } else {
        ""
    }
}

fn field(analysis: &Analysis, owner: &str, name: &str) -> String {
    let def = find_struct(analysis, owner);
    let declared = def.and_then(|def| def.field(name)).map(|(_, f)| &f.ty);
    let mut text = match declared {
        Some(ty) => format!("```idlc\n{} {name}\n```\n", ty.describe()),
        None => format!("```idlc\n{name}\n```\n"),
    };
    let owner_kind = def.map_or(String::new(), |def| format!(" ({})", def.kind.keyword()));
    let _ = write!(text, "Field of `{owner}`{owner_kind}.");
    if let (Some(def), Some(declared)) = (def, declared)
        && let Some(current) = def.current_type(name)
        && current != declared
    {
        let _ = write!(text, " Extended to `{}`.", current.describe());
    }
    let reports = reports(analysis, owner);
    let rows: Vec<String> = reports
        .iter()
        .flat_map(|report| {
            report
                .rows
                .iter()
                .filter(|row| {
                    row.name == name && matches!(row.kind, RowKind::Field | RowKind::Extend)
                })
                .map(|row| {
                    format!(
                        "| {} | {} | {} | {} |",
                        report.encoding, row.rule, row.cost, row.note
                    )
                })
        })
        .collect();
    if rows.is_empty() {
        text.push_str(no_report(analysis));
    } else {
        text.push_str("\n\n| encoding | rule | bits | note |\n|---|---|---|---|\n");
        text.push_str(&rows.join("\n"));
    }
    text
}

fn item(analysis: &Analysis, name: &str, kind: Kind) -> String {
    let compilation = analysis.best_first().next();
    let mut text = format!("```idlc\n{} {name}\n```", kind.keyword());
    let Some(compilation) = compilation else {
        return text;
    };
    let schema = &compilation.ir.schema;
    match kind {
        Kind::Struct | Kind::Publishable | Kind::Message | Kind::Rpc => {
            let fields = find_struct(analysis, name).map_or(0, |def| def.fields().count());
            let _ = write!(
                text,
                "\n{fields} field{}.",
                if fields == 1 { "" } else { "s" }
            );
            let reports = reports(analysis, name);
            if reports.is_empty() {
                text.push_str(no_report(analysis));
            } else {
                text.push_str("\n\n| encoding | bits | delta: nothing changed | delta: worst |\n|---|---|---|---|");
                for report in reports {
                    let (unchanged, worst) = report.delta.as_ref().map_or_else(
                        || (String::new(), String::new()),
                        |d| (d.unchanged.to_string(), d.worst.to_string()),
                    );
                    let _ = write!(
                        text,
                        "\n| {} | {} | {unchanged} | {worst} |",
                        report.encoding, report.total
                    );
                }
            }
        }
        Kind::Enum => {
            if let Some(def) = schema.enums.get(name) {
                let names: Vec<&str> = def.enumerators.iter().map(|e| e.name.as_str()).collect();
                let _ = write!(text, "\n{}", names.join(", "));
            }
        }
        Kind::Typedef => {
            if let Some(def) = schema.typedefs.get(name) {
                let _ = write!(text, "\n= `{}`", def.ty.describe());
            }
        }
        Kind::Const => {
            if let Some(def) = schema.consts.get(name) {
                let _ = write!(text, "\n= `{}`", def.value.describe());
            }
        }
        Kind::Protocol => {
            if let Some(def) = schema.protocols.get(name) {
                let _ = write!(text, "\n{} messages and RPCs.", def.entries.len());
            }
        }
        Kind::Field => {}
    }
    text
}
