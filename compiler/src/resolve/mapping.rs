//! Mapping resolution: the Rust type of every struct, field and enum on one side.
//!
//! [`resolve_mapping`] validates every `MAPPING` item of every side (so `idlc check` finds the
//! errors of all sides) and applies those of the requested side over the built-in defaults
//! (DESIGN.md, "Built-in Rust types"). Errors are collected; the result is always complete.
//!
//! Choices (documented in the language reference):
//! - Only `"Rust"` is a target language; an item for another language is one error and nothing
//!   else is checked in it.
//! - An integer field maps to any of `u8`..`u128`, `i8`..`i128` that holds its whole range;
//!   `usize` / `isize` are refused (their width depends on the platform, the range check could
//!   not be made once for all targets).
//! - `FLOAT32` maps to `f32` or `f64`, `FLOAT64` to `f64` only, `NUMERIC` to `f64` or `f32`.
//! - A `SEQUENCE` maps to `Vec<T>` or to any other path, a user collection implementing the
//!   runtime's collection trait. A type argument of either (`Vec<f32>`, `VecDeque<Item>`, exactly
//!   one) is checked as a mapping of the element type; a collection without one (`MyInventory`)
//!   has the element's default Rust type.
//! - `ARRAY<T,N>` is always `[T; N]`; a struct- or enum-typed field always has the Rust type of
//!   that struct or enum on the side (map the struct itself to change it).
//! - An RPC's parameter list is mapped as `MESSAGE rpc_name { ... }`.
//! - A struct or enum may be the target of one item per side; a second is an error.
//! - An enum cannot be mapped to an existing Rust type; an `ENUM` item may only restate it.
//! - Two IDL names that become one Rust name (`fooBar` and `foo_bar`) are an error, checked for
//!   every struct and enum whatever the side.
//! - A field keeps its latest type: after `EXTEND f TO UINT32`, `f` is a `u32`.

mod enums;
mod types;

use std::collections::HashMap;

use indexmap::IndexMap;

use super::names;
use crate::diagnostics::{Diagnostic, FileId, codes, primary, secondary};
use crate::front::map::ast::{
    Direction, MapBody, MapFile, MapItem, MapMember, MapTarget, MapTargetKind, RustPath,
};
use crate::front::span::{Ident, Span};
use crate::ir::{
    EnumDef, EnumMapping, Field, FieldMapping, Loc, ProtocolRole, RustType, Schema, SideMapping,
    StructDef, StructKind, StructMapping, Type,
};

/// The one target language idlc generates.
pub const TARGET_LANGUAGE: &str = "Rust";

/// Derives that every generated type has already.
const ALWAYS_DERIVED: &[&str] = &["Debug", "Clone", "PartialEq", "Default"];

/// Resolves the Mapping files against `schema` for `side` (no side: built-in types only).
///
/// Every item of every side is validated; only the items whose side is `side` apply. The result
/// has an entry for every struct, enum and protocol of the schema, even when there are errors.
pub fn resolve_mapping(
    schema: &Schema,
    files: &[(FileId, MapFile)],
    side: Option<&str>,
) -> (SideMapping, Vec<Diagnostic>) {
    let mut resolver = Resolver::new(schema, side);
    resolver.check_names();
    resolver.collect_existing(files);
    for (file, map) in files {
        for item in &map.items {
            resolver.item(*file, item);
        }
    }
    resolver.finish()
}

/// An error with its code and message.
fn error(code: &str, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error().with_code(code).with_message(message)
}

/// A path as Rust source: `glam::Vec3`.
fn path_text(path: &RustPath) -> String {
    let segments: Vec<&str> = path.segments.iter().map(|s| s.name.as_str()).collect();
    segments.join("::")
}

/// The closest of `candidates` to `name`, when it is a likely typo (edit distance with
/// transpositions, case
/// insensitive, at most a third of the name's length).
fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    // Optimal string alignment distance: edits and transpositions (`angel` → `angle`) cost 1.
    let distance = |a: &str, b: &str| {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 0..=a.len() {
            for j in 0..=b.len() {
                d[i][j] = if i == 0 || j == 0 {
                    i + j
                } else {
                    let edit = (d[i - 1][j] + 1)
                        .min(d[i][j - 1] + 1)
                        .min(d[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]));
                    let swap = i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1];
                    if swap { edit.min(d[i - 2][j - 2] + 1) } else { edit }
                };
            }
        }
        d[a.len()][b.len()]
    };
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (distance(&name.to_lowercase(), &c.to_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, c)| (d, c))
        .map(|(_, c)| c)
}

/// "did you mean `x`?", or nothing.
fn did_you_mean<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<String> {
    closest(name, candidates).map(|c| format!("did you mean `{c}`?"))
}

/// The type a field has in the latest version of its struct: its last EXTEND's, else its own.
fn latest_type<'s>(def: &'s StructDef, field: &'s Field) -> &'s Type {
    def.segments
        .iter()
        .flat_map(|s| s.extends.iter())
        .filter(|e| e.field == field.name)
        .last()
        .map_or(&field.ty, |e| &e.to)
}

/// The IDL keyword of a struct kind, as a MAPPING writes it.
fn kind_keyword(kind: StructKind) -> &'static str {
    match kind {
        StructKind::Struct => "STRUCT",
        StructKind::Publishable => "PUBLISHABLE_STRUCT",
        StructKind::Message | StructKind::RpcParams => "MESSAGE",
    }
}

/// The keyword of a mapping target.
fn target_keyword(kind: MapTargetKind) -> &'static str {
    match kind {
        MapTargetKind::Struct => "STRUCT",
        MapTargetKind::Publishable => "PUBLISHABLE_STRUCT",
        MapTargetKind::Message => "MESSAGE",
        MapTargetKind::Enum => "ENUM",
    }
}

fn direction_keyword(direction: Direction) -> &'static str {
    match direction {
        Direction::Send => "SEND",
        Direction::Receive => "RECEIVE",
        Direction::Both => "BOTH",
    }
}

/// Walks the items, collecting diagnostics and the requested side's choices.
struct Resolver<'a> {
    schema: &'a Schema,
    side: Option<&'a str>,
    diagnostics: Vec<Diagnostic>,
    /// Per (side, IDL struct): the `= path` of the first item mapping that struct on that side.
    existing: HashMap<(String, String), Option<String>>,
    /// Per (side, IDL struct or enum): where the first item mapping it names it.
    targets: HashMap<(String, String), (FileId, Span)>,
    /// Per (side, protocol): the first direction given and where.
    protocols: HashMap<(String, String), (Direction, FileId, Span)>,
    /// The requested side's field types, per (struct, field).
    field_types: HashMap<(String, String), RustType>,
    /// The requested side's `=>` fields of existing types, per (struct, field), escaped.
    renames: HashMap<(String, String), String>,
    /// The requested side's derives.
    derives: Vec<String>,
    /// The requested side's protocol roles.
    roles: HashMap<String, ProtocolRole>,
}

impl<'a> Resolver<'a> {
    fn new(schema: &'a Schema, side: Option<&'a str>) -> Self {
        Resolver {
            schema,
            side,
            diagnostics: Vec::new(),
            existing: HashMap::new(),
            targets: HashMap::new(),
            protocols: HashMap::new(),
            field_types: HashMap::new(),
            renames: HashMap::new(),
            derives: Vec::new(),
            roles: HashMap::new(),
        }
    }

    fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// The existing type a struct is mapped to on `side`, if any.
    fn existing_path(&self, side: Option<&str>, name: &str) -> Option<&str> {
        let side = side?;
        self.existing
            .get(&(side.to_owned(), name.to_owned()))
            .and_then(|path| path.as_deref())
    }

    /// The Rust type name of IDL struct `name` on `side`: its existing path or its generated name.
    fn struct_rust_name(&self, side: Option<&str>, name: &str) -> String {
        self.existing_path(side, name)
            .map_or_else(|| names::type_name(name), str::to_owned)
    }

    /// The built-in Rust type of `ty` on `side`.
    fn default_type(&self, side: Option<&str>, ty: &Type) -> RustType {
        match ty {
            Type::Bool => RustType::Bool,
            Type::Uint(bits) => RustType::Int(format!("u{bits}")),
            Type::Int(bits) => RustType::Int(format!("i{bits}")),
            Type::Float32 => RustType::F32,
            Type::Float64 | Type::Numeric { .. } => RustType::F64,
            Type::IntRange { min, max } => RustType::Int(types::smallest_int(*min, *max).to_owned()),
            Type::String { .. } => RustType::String,
            Type::Bytes { .. } => RustType::Bytes,
            Type::Sequence { element, .. } => {
                RustType::Vec(Box::new(self.default_type(side, element)))
            }
            Type::Array { element, len } => {
                RustType::Array(Box::new(self.default_type(side, element)), *len)
            }
            Type::Optional(inner) => RustType::Option(Box::new(self.default_type(side, inner))),
            Type::Struct(name) => RustType::Named(self.struct_rust_name(side, name)),
            Type::Enum(name) => RustType::Named(names::type_name(name)),
        }
    }

    /// Reports IDL names that become the same Rust name: types, fields of a struct, enumerators.
    fn check_names(&mut self) {
        let schema = self.schema;
        let mut types: Vec<(&str, Loc, String)> = Vec::new();
        for (name, def) in &schema.structs {
            types.push((name, def.loc, names::type_name(name)));
        }
        for (name, def) in &schema.enums {
            types.push((name, def.loc, names::type_name(name)));
        }
        let rust: Vec<&str> = types.iter().map(|t| t.2.as_str()).collect();
        for (first, later) in names::find_clashes(&rust) {
            let (Some(a), Some(b)) = (types.get(first), types.get(later)) else {
                continue;
            };
            self.push(
                error(
                    codes::MAP_NAME_CLASH,
                    format!("the IDL types `{}` and `{}` are both `{}` in Rust", a.0, b.0, b.2),
                )
                .with_labels(vec![
                    primary(b.1.file, b.1.span)
                        .with_message(format!("`{}` becomes the Rust type `{}`", b.0, b.2)),
                    secondary(a.1.file, a.1.span)
                        .with_message(format!("`{}` becomes `{}` too", a.0, a.2)),
                ])
                .with_notes(vec![
                    "Rust type names are UpperCamelCase; rename one of the two in the IDL".into(),
                ]),
            );
        }
        for (struct_name, def) in &schema.structs {
            let fields: Vec<&Field> = def.fields().collect();
            let rust: Vec<String> = fields.iter().map(|f| names::field_name(&f.name)).collect();
            for (first, later) in names::find_clashes(&rust) {
                let (Some(a), Some(b), Some(rust_name)) =
                    (fields.get(first), fields.get(later), rust.get(later))
                else {
                    continue;
                };
                self.push(
                    error(
                        codes::MAP_NAME_CLASH,
                        format!(
                            "the fields `{}` and `{}` of `{struct_name}` are both `{rust_name}` in Rust",
                            a.name, b.name
                        ),
                    )
                    .with_labels(vec![
                        primary(b.loc.file, b.loc.span)
                            .with_message(format!("`{}` becomes the Rust field `{rust_name}`", b.name)),
                        secondary(a.loc.file, a.loc.span)
                            .with_message(format!("`{}` becomes `{rust_name}` too", a.name)),
                    ])
                    .with_notes(vec![
                        "Rust field names are snake_case; rename one of the two in the IDL".into(),
                    ]),
                );
            }
        }
        for (enum_name, def) in &schema.enums {
            let rust: Vec<String> = def
                .enumerators
                .iter()
                .map(|e| names::variant_name(&e.name))
                .collect();
            for (first, later) in names::find_clashes(&rust) {
                let (Some(a), Some(b), Some(rust_name)) =
                    (def.enumerators.get(first), def.enumerators.get(later), rust.get(later))
                else {
                    continue;
                };
                self.push(
                    error(
                        codes::MAP_NAME_CLASH,
                        format!(
                            "the enumerators `{}` and `{}` of `{enum_name}` are both `{rust_name}` in Rust",
                            a.name, b.name
                        ),
                    )
                    .with_labels(vec![primary(def.loc.file, def.loc.span).with_message(
                        format!("`{}` and `{}` become the variant `{rust_name}`", a.name, b.name),
                    )])
                    .with_notes(vec![
                        "Rust variant names are UpperCamelCase; rename one of the two in the IDL"
                            .into(),
                    ]),
                );
            }
        }
    }

    /// Records, per side and struct, the `= path` of the first Rust item mapping it, so that
    /// fields of that struct's type know their Rust type wherever they are checked.
    fn collect_existing(&mut self, files: &[(FileId, MapFile)]) {
        for (_, map) in files {
            for item in &map.items {
                if item.language.value != TARGET_LANGUAGE {
                    continue;
                }
                if let MapBody::Target {
                    target, existing, ..
                } = &item.body
                {
                    if target.kind == MapTargetKind::Enum
                        || !self.schema.structs.contains_key(&target.name.name)
                    {
                        continue;
                    }
                    self.existing
                        .entry((item.side.value.clone(), target.name.name.clone()))
                        .or_insert_with(|| existing.as_ref().map(path_text));
                }
            }
        }
    }

    fn item(&mut self, file: FileId, item: &MapItem) {
        if item.language.value != TARGET_LANGUAGE {
            let lowercase = item.language.value.eq_ignore_ascii_case(TARGET_LANGUAGE);
            let mut notes = vec![format!(
                "the supported target language is \"{TARGET_LANGUAGE}\": idlc generates Rust only"
            )];
            if lowercase {
                notes.push(format!("write \"{TARGET_LANGUAGE}\" with this capitalization"));
            }
            self.push(
                error(
                    codes::MAP_UNSUPPORTED_LANGUAGE,
                    format!(
                        "unsupported target language \"{}\" in a MAPPING",
                        item.language.value
                    ),
                )
                .with_labels(vec![
                    primary(file, item.language.span).with_message("not a supported target"),
                ])
                .with_notes(notes),
            );
            return;
        }
        let side = item.side.value.as_str();
        let applies = self.side == Some(side);
        match &item.body {
            MapBody::Derive(paths) => self.derive(file, paths, applies),
            MapBody::Protocol {
                name,
                direction,
                direction_span,
            } => self.protocol(file, side, applies, name, *direction, *direction_span),
            MapBody::Target {
                target,
                existing,
                members,
            } => {
                if target.kind == MapTargetKind::Enum {
                    self.enum_item(file, side, target, existing.as_ref(), members);
                } else {
                    self.struct_item(file, side, applies, target, existing.as_ref(), members);
                }
            }
        }
    }

    fn derive(&mut self, file: FileId, paths: &[RustPath], applies: bool) {
        for path in paths {
            let text = path_text(path);
            let last = path.segments.last().map_or("", |s| s.name.as_str());
            let std_path = path.segments.len() == 1
                || path
                    .segments
                    .first()
                    .is_some_and(|s| matches!(s.name.as_str(), "std" | "core"));
            if std_path && ALWAYS_DERIVED.contains(&last) {
                self.push(
                    Diagnostic::warning()
                        .with_code(codes::MAP_DERIVE_ALWAYS)
                        .with_message(format!("`{text}` is always derived"))
                        .with_labels(vec![
                            primary(file, path.span).with_message("derived already"),
                        ])
                        .with_notes(vec![format!(
                            "every generated type derives {}; remove `{text}` from DERIVE",
                            ALWAYS_DERIVED.join(", ")
                        )]),
                );
                continue;
            }
            if applies && !self.derives.contains(&text) {
                self.derives.push(text);
            }
        }
    }

    fn protocol(
        &mut self,
        file: FileId,
        side: &str,
        applies: bool,
        name: &Ident,
        direction: Direction,
        direction_span: Span,
    ) {
        if !self.schema.protocols.contains_key(&name.name) {
            let mut notes: Vec<String> =
                did_you_mean(&name.name, self.schema.protocols.keys().map(String::as_str))
                    .into_iter()
                    .collect();
            notes.push("a PROTOCOL mapping names a PROTOCOL declared in the IDL".into());
            self.push(
                error(
                    codes::MAP_UNKNOWN_PROTOCOL,
                    format!("no protocol `{}` in the IDL", name.name),
                )
                .with_labels(vec![primary(file, name.span).with_message("unknown protocol")])
                .with_notes(notes),
            );
            return;
        }
        let key = (side.to_owned(), name.name.clone());
        match self.protocols.get(&key) {
            Some(&(previous, previous_file, previous_span)) => {
                if previous != direction {
                    self.push(
                        error(
                            codes::MAP_PROTOCOL_CONFLICT,
                            format!(
                                "protocol `{}` is both {} and {} on side \"{side}\"",
                                name.name,
                                direction_keyword(previous),
                                direction_keyword(direction)
                            ),
                        )
                        .with_labels(vec![
                            primary(file, direction_span)
                                .with_message(direction_keyword(direction)),
                            secondary(previous_file, previous_span).with_message(format!(
                                "{} here",
                                direction_keyword(previous)
                            )),
                        ])
                        .with_notes(vec![
                            "a side gets one direction per protocol; BOTH gives it both halves"
                                .into(),
                        ]),
                    );
                }
            }
            None => {
                self.protocols
                    .insert(key, (direction, file, direction_span));
                if applies {
                    let role = match direction {
                        Direction::Send => ProtocolRole::Send,
                        Direction::Receive => ProtocolRole::Receive,
                        Direction::Both => ProtocolRole::Both,
                    };
                    self.roles.insert(name.name.clone(), role);
                }
            }
        }
    }

    /// Records the first item for `name` on `side`; a second is an error. Returns whether this
    /// item is the first.
    fn first_target(&mut self, file: FileId, side: &str, target: &MapTarget) -> bool {
        let key = (side.to_owned(), target.name.name.clone());
        if let Some(&(first_file, first_span)) = self.targets.get(&key) {
            self.push(
                error(
                    codes::MAP_TARGET_TWICE,
                    format!(
                        "`{}` is mapped twice on side \"{side}\"",
                        target.name.name
                    ),
                )
                .with_labels(vec![
                    primary(file, target.span).with_message("mapped again here"),
                    secondary(first_file, first_span).with_message("first mapped here"),
                ])
                .with_notes(vec!["merge the two items into one".into()]),
            );
            false
        } else {
            self.targets.insert(key, (file, target.span));
            true
        }
    }

    /// The IDL struct a struct-kind target names, reporting an unknown name or a kind mismatch.
    fn struct_target(&mut self, file: FileId, target: &MapTarget) -> Option<&'a StructDef> {
        let schema = self.schema;
        let name = &target.name;
        if let Some(def) = schema.structs.get(&name.name) {
            let expected = kind_keyword(def.kind);
            let written = target_keyword(target.kind);
            if expected != written {
                let mut notes = vec![format!(
                    "write `{expected} {}`: a mapping restates the IDL's keyword",
                    name.name
                )];
                if def.kind == StructKind::RpcParams {
                    notes.push(format!(
                        "`{}` is an RPC; its parameters are mapped as a MESSAGE",
                        name.name
                    ));
                }
                self.push(
                    error(
                        codes::MAP_KIND_MISMATCH,
                        format!(
                            "`{}` is a {expected} in the IDL, not a {written}",
                            name.name
                        ),
                    )
                    .with_labels(vec![
                        primary(file, target.span).with_message(format!("mapped as {written}")),
                        secondary(def.loc.file, def.loc.span)
                            .with_message(format!("declared as {expected} here")),
                    ])
                    .with_notes(notes),
                );
            }
            return Some(def);
        }
        if let Some(def) = schema.enums.get(&name.name) {
            self.push(
                error(
                    codes::MAP_KIND_MISMATCH,
                    format!(
                        "`{}` is an enum in the IDL, not a {}",
                        name.name,
                        target_keyword(target.kind)
                    ),
                )
                .with_labels(vec![
                    primary(file, target.span).with_message("mapped as a struct"),
                    secondary(def.loc.file, def.loc.span).with_message("declared as an enum here"),
                ])
                .with_notes(vec![format!("write `ENUM {}`", name.name)]),
            );
            return None;
        }
        self.unknown_type(file, name, "struct");
        None
    }

    /// Reports that no struct or enum `name` exists.
    fn unknown_type(&mut self, file: FileId, name: &Ident, what: &str) {
        let schema = self.schema;
        let candidates = schema
            .structs
            .keys()
            .chain(schema.enums.keys())
            .map(String::as_str);
        let mut notes: Vec<String> = did_you_mean(&name.name, candidates).into_iter().collect();
        notes.push(format!(
            "a mapping describes a {what} declared in the IDL files of the compilation"
        ));
        self.push(
            error(
                codes::MAP_UNKNOWN_TYPE,
                format!("no {what} `{}` in the IDL", name.name),
            )
            .with_labels(vec![primary(file, name.span).with_message(format!("unknown {what}"))])
            .with_notes(notes),
        );
    }

    /// The IDL enum `name`, reporting an unknown name.
    fn enum_named(&mut self, file: FileId, name: &Ident) -> Option<&'a EnumDef> {
        let schema = self.schema;
        if let Some(def) = schema.enums.get(&name.name) {
            return Some(def);
        }
        if let Some(def) = schema.structs.get(&name.name) {
            self.push(
                error(
                    codes::MAP_KIND_MISMATCH,
                    format!("`{}` is a struct in the IDL, not an enum", name.name),
                )
                .with_labels(vec![
                    primary(file, name.span).with_message("restated as an enum"),
                    secondary(def.loc.file, def.loc.span).with_message("declared as a struct here"),
                ])
                .with_notes(vec![format!(
                    "restate only enums; map the struct with `{} {} {{ ... }}`",
                    kind_keyword(def.kind),
                    name.name
                )]),
            );
            return None;
        }
        self.unknown_type(file, name, "enum");
        None
    }

    /// The field `name` of `def`, reporting an unknown name.
    fn field_of(&mut self, file: FileId, def: &'a StructDef, name: &Ident) -> Option<&'a Field> {
        if let Some((_, field)) = def.field(&name.name) {
            return Some(field);
        }
        let mut notes: Vec<String> =
            did_you_mean(&name.name, def.fields().map(|f| f.name.as_str()))
                .into_iter()
                .collect();
        let all: Vec<&str> = def.fields().map(|f| f.name.as_str()).collect();
        notes.push(if all.is_empty() {
            format!("`{}` has no fields", def.name)
        } else {
            format!("the fields of `{}` are: {}", def.name, all.join(", "))
        });
        self.push(
            error(
                codes::MAP_UNKNOWN_FIELD,
                format!("`{}` has no field `{}`", def.name, name.name),
            )
            .with_labels(vec![
                primary(file, name.span).with_message("unknown field"),
                secondary(def.loc.file, def.loc.span)
                    .with_message(format!("`{}` declared here", def.name)),
            ])
            .with_notes(notes),
        );
        None
    }

    /// Reports a field mapped a second time.
    fn field_twice(&mut self, file: FileId, def: &StructDef, name: &Ident, span: Span, first: Span) {
        self.push(
            error(
                codes::MAP_FIELD_TWICE,
                format!("field `{}` of `{}` is mapped twice", name.name, def.name),
            )
            .with_labels(vec![
                primary(file, span).with_message("mapped again here"),
                secondary(file, first).with_message("first mapped here"),
            ])
            .with_notes(vec!["keep one of the two".into()]),
        );
    }

    fn struct_item(
        &mut self,
        file: FileId,
        side: &str,
        applies: bool,
        target: &MapTarget,
        existing: Option<&RustPath>,
        members: &[MapMember],
    ) {
        let Some(def) = self.struct_target(file, target) else {
            return;
        };
        let first = self.first_target(file, side, target);
        let apply = applies && first;
        let struct_name = def.name.as_str();
        // Per IDL field: where its type was given, where its `=>` was given.
        let mut typed: HashMap<&str, Span> = HashMap::new();
        let mut renamed: HashMap<&str, Span> = HashMap::new();
        let mut rust_fields: HashMap<String, Span> = HashMap::new();
        for member in members {
            match member {
                MapMember::Field {
                    qualifiers,
                    ty,
                    name,
                    span,
                } => {
                    if let (Some(q1), Some(q2)) = (qualifiers.first(), qualifiers.last()) {
                        let words: Vec<&str> = qualifiers.iter().map(|q| q.name.as_str()).collect();
                        self.push(
                            error(
                                codes::MAP_QUALIFIER,
                                format!("a Rust type has no qualifiers: `{}`", words.join(" ")),
                            )
                            .with_labels(vec![
                                primary(file, q1.span.to(q2.span)).with_message("not Rust"),
                            ])
                            .with_notes(vec![format!(
                                "write the Rust type alone: `{} {};`",
                                types::written_text(ty),
                                name.name
                            )]),
                        );
                    }
                    let Some(field) = self.field_of(file, def, name) else {
                        continue;
                    };
                    if let Some(&first_span) = typed.get(field.name.as_str()) {
                        self.field_twice(file, def, name, *span, first_span);
                        continue;
                    }
                    typed.insert(&field.name, *span);
                    let idl = latest_type(def, field);
                    let subject = types::Subject {
                        name: &field.name,
                        ty: idl,
                        loc: field.loc,
                    };
                    if let Some(rust) = self.check_type(file, side, idl, ty, &subject) {
                        if apply {
                            self.field_types
                                .insert((struct_name.to_owned(), field.name.clone()), rust);
                        }
                    }
                }
                MapMember::Rename {
                    field,
                    rust_field,
                    span,
                } => {
                    if existing.is_none() {
                        self.push(
                            error(
                                codes::MAP_RENAME_WITHOUT_EXISTING,
                                format!(
                                    "`{} => {}` in a mapping of `{struct_name}` without an existing type",
                                    field.name, rust_field.name
                                ),
                            )
                            .with_labels(vec![
                                primary(file, *span).with_message("`=>` names a field of an existing type"),
                                secondary(file, target.span).with_message("no `= path` here"),
                            ])
                            .with_notes(vec![format!(
                                "to map `{struct_name}` to an existing Rust type, write `{} {struct_name} = path::Type {{ ... }}`; otherwise remove this line (the generated field is `{}`)",
                                target_keyword(target.kind),
                                names::field_name(&field.name)
                            )]),
                        );
                        continue;
                    }
                    let Some(idl_field) = self.field_of(file, def, field) else {
                        continue;
                    };
                    if let Some(&first_span) = renamed.get(idl_field.name.as_str()) {
                        self.field_twice(file, def, field, *span, first_span);
                        continue;
                    }
                    renamed.insert(&idl_field.name, *span);
                    let rust = names::escape(&rust_field.name);
                    if let Some(&first_span) = rust_fields.get(&rust) {
                        self.push(
                            error(
                                codes::MAP_RUST_FIELD_TWICE,
                                format!(
                                    "two IDL fields of `{struct_name}` are mapped to the Rust field `{rust}`"
                                ),
                            )
                            .with_labels(vec![
                                primary(file, rust_field.span).with_message("mapped again here"),
                                secondary(file, first_span).with_message("first mapped here"),
                            ])
                            .with_notes(vec![
                                "each IDL field needs its own field of the existing type".into(),
                            ]),
                        );
                        continue;
                    }
                    rust_fields.insert(rust.clone(), rust_field.span);
                    if apply {
                        self.renames
                            .insert((struct_name.to_owned(), idl_field.name.clone()), rust);
                    }
                }
                MapMember::Enum { decl, field, span } => {
                    let Some(enum_def) = self.enum_named(file, &decl.name) else {
                        continue;
                    };
                    self.compare_enum(file, decl, enum_def);
                    let Some(field_name) = field else {
                        continue;
                    };
                    let Some(idl_field) = self.field_of(file, def, field_name) else {
                        continue;
                    };
                    let idl = latest_type(def, idl_field);
                    if *idl != Type::Enum(enum_def.name.clone()) {
                        self.push(
                            error(
                                codes::MAP_ENUM_FIELD_TYPE,
                                format!(
                                    "field `{}` of `{struct_name}` is {}, not the enum `{}`",
                                    idl_field.name,
                                    idl.describe(),
                                    enum_def.name
                                ),
                            )
                            .with_labels(vec![
                                primary(file, decl.name.span.to(field_name.span))
                                    .with_message(format!("restated as `{}`", enum_def.name)),
                                secondary(idl_field.loc.file, idl_field.loc.span)
                                    .with_message(format!("declared as {} here", idl.describe())),
                            ])
                            .with_notes(vec![format!(
                                "restate the enum on its own (`enum {} {{ ... }}` without a field name) or remove it",
                                enum_def.name
                            )]),
                        );
                        continue;
                    }
                    if let Some(&first_span) = typed.get(idl_field.name.as_str()) {
                        self.field_twice(file, def, field_name, *span, first_span);
                        continue;
                    }
                    typed.insert(&idl_field.name, *span);
                }
            }
        }
        if let Some(path) = existing {
            let missing: Vec<&str> = def
                .fields()
                .filter(|f| !renamed.contains_key(f.name.as_str()))
                .map(|f| f.name.as_str())
                .collect();
            if !missing.is_empty() {
                let list: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
                let example: Vec<String> = missing
                    .iter()
                    .map(|m| format!("{m} => {};", names::field_name(m)))
                    .collect();
                self.push(
                    error(
                        codes::MAP_MISSING_RENAMES,
                        format!(
                            "the mapping of `{struct_name}` to the existing type `{}` leaves {} without `=>`",
                            path_text(path),
                            list.join(", ")
                        ),
                    )
                    .with_labels(vec![
                        primary(file, path.span).with_message(format!(
                            "{} IDL field(s) without `=>`",
                            missing.len()
                        )),
                        secondary(def.loc.file, def.loc.span)
                            .with_message(format!("`{struct_name}` declared here")),
                    ])
                    .with_notes(vec![format!(
                        "an existing type must hold every IDL field: add `{}`",
                        example.join(" ")
                    )]),
                );
            }
        }
    }

    fn enum_item(
        &mut self,
        file: FileId,
        side: &str,
        target: &MapTarget,
        existing: Option<&RustPath>,
        members: &[MapMember],
    ) {
        let schema = self.schema;
        let name = &target.name;
        let Some(def) = schema.enums.get(&name.name) else {
            if let Some(def) = schema.structs.get(&name.name) {
                let keyword = kind_keyword(def.kind);
                self.push(
                    error(
                        codes::MAP_KIND_MISMATCH,
                        format!("`{}` is a {keyword} in the IDL, not an ENUM", name.name),
                    )
                    .with_labels(vec![
                        primary(file, target.span).with_message("mapped as ENUM"),
                        secondary(def.loc.file, def.loc.span)
                            .with_message(format!("declared as {keyword} here")),
                    ])
                    .with_notes(vec![format!("write `{keyword} {}`", name.name)]),
                );
            } else {
                self.unknown_type(file, name, "enum");
            }
            return;
        };
        self.first_target(file, side, target);
        if let Some(path) = existing {
            self.push(
                error(
                    codes::MAP_ENUM_MAPPING,
                    format!(
                        "enum `{}` cannot be mapped to the existing type `{}`",
                        name.name,
                        path_text(path)
                    ),
                )
                .with_labels(vec![primary(file, path.span).with_message("existing type")])
                .with_notes(vec![
                    "only structs can be mapped to existing Rust types; enums are always generated"
                        .into(),
                ]),
            );
        }
        for member in members {
            match member {
                MapMember::Enum {
                    decl, field: None, ..
                } => {
                    if decl.name.name != def.name {
                        self.push(
                            error(
                                codes::MAP_ENUM_MISMATCH,
                                format!(
                                    "the mapping of enum `{}` restates `{}`",
                                    def.name, decl.name.name
                                ),
                            )
                            .with_labels(vec![
                                primary(file, decl.name.span).with_message("another enum"),
                                secondary(file, target.span).with_message("mapping of this enum"),
                            ])
                            .with_notes(vec![format!("restate `{}` itself", def.name)]),
                        );
                    } else {
                        self.compare_enum(file, decl, def);
                    }
                }
                MapMember::Enum { span, .. }
                | MapMember::Field { span, .. }
                | MapMember::Rename { span, .. } => {
                    self.push(
                        error(
                            codes::MAP_ENUM_MAPPING,
                            format!("an ENUM mapping has no fields (`{}` is an enum)", def.name),
                        )
                        .with_labels(vec![
                            primary(file, *span).with_message("not allowed in an ENUM mapping"),
                            secondary(def.loc.file, def.loc.span)
                                .with_message(format!("`{}` declared here", def.name)),
                        ])
                        .with_notes(vec![format!(
                            "an ENUM mapping may only restate the enum: `enum {} {{ ... }}`",
                            def.name
                        )]),
                    );
                }
            }
        }
    }

    fn finish(self) -> (SideMapping, Vec<Diagnostic>) {
        let schema = self.schema;
        let side = self.side;
        let mut structs = IndexMap::new();
        for (name, def) in &schema.structs {
            let existing = self.existing_path(side, name);
            let mut fields = IndexMap::new();
            for field in def.fields() {
                let key = (name.clone(), field.name.clone());
                let ty = self
                    .field_types
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| self.default_type(side, latest_type(def, field)));
                let rust_name = self
                    .renames
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| names::field_name(&field.name));
                fields.insert(field.name.clone(), FieldMapping { rust_name, ty });
            }
            structs.insert(
                name.clone(),
                StructMapping {
                    rust_name: existing.map_or_else(|| names::type_name(name), str::to_owned),
                    existing: existing.is_some(),
                    fields,
                },
            );
        }
        let enums = schema
            .enums
            .iter()
            .map(|(name, def)| {
                let variants = def
                    .enumerators
                    .iter()
                    .map(|e| (e.name.clone(), names::variant_name(&e.name)))
                    .collect();
                let mapping = EnumMapping {
                    rust_name: names::type_name(name),
                    variants,
                };
                (name.clone(), mapping)
            })
            .collect();
        let protocols = schema
            .protocols
            .keys()
            .map(|name| {
                let role = self.roles.get(name).copied().unwrap_or(ProtocolRole::Both);
                (name.clone(), role)
            })
            .collect();
        let mapping = SideMapping {
            side: side.map(str::to_owned),
            derives: self.derives,
            structs,
            enums,
            protocols,
        };
        (mapping, self.diagnostics)
    }
}

#[cfg(test)]
mod tests;
