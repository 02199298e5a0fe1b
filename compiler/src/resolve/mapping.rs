//! Mapping resolution: the Rust type of every struct, field and enum on one side.
//!
//! [`resolve_mapping`] validates every `MAPPING` item of every side (so `idlc check` finds the
//! errors of all sides) and applies those of the requested side over the built-in defaults
//! (DESIGN.md, "Built-in Rust types"). Errors are collected; the result is always complete.
//!
//! Choices (documented in the language reference):
//! - The target languages are `"Rust"` and `"CPP"` (docs/CPP.md, "Mappings"); an item for
//!   another language is one error and nothing else is checked in it. A side speaks one
//!   language: an item of the other language for the same side is an error. A C++ item names
//!   C++ types (`double`, `float`, `uint16_t`, the IDL's `UINT16`, `std::vector<Item>`,
//!   `std::optional<T>`, `std::string`, `class MyInventory` for a custom collection), resolved
//!   to the same kinds of type as Rust's; the names are C++'s (a reserved word gets a `_`).
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
//! - An OPTIONAL whose value leads back by value to the struct holding it is boxed
//!   (`OPTIONAL<Node> next` in `Node` is `Option<Box<Node>>`); `Box<T>` may also be written.
//! - `DERIVE` of Debug, Clone, PartialEq or Default (always derived) is a warning.

mod clashes;
mod derives;
mod enums;
mod targets;
mod types;

use std::collections::HashMap;

use indexmap::IndexMap;

use super::names;
use crate::diagnostics::suggest::did_you_mean;
use crate::diagnostics::{Diagnostic, FileId, codes, primary, secondary};
use crate::front::map::ast::{Direction, MapBody, MapFile, MapItem, MapTargetKind, RustPath};
use crate::front::span::{Ident, Span};
use crate::ir::{
    EnumMapping, Field, FieldMapping, Language, Loc, ProtocolRole, RustType, Schema, SideMapping,
    StructDef, StructKind, StructMapping, Type, TypedefMapping,
};

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
    resolver.language = side_language(files, side);
    resolver.check_names();
    resolver.collect_existing(files);
    for (file, map) in files {
        for item in &map.items {
            resolver.item(*file, item);
        }
    }
    if let Some(unused) = unused_mappings(files, side) {
        resolver.push(unused);
    }
    let derive_spans = std::mem::take(&mut resolver.derive_spans);
    let (mapping, mut diagnostics) = resolver.finish();
    diagnostics.extend(derives::check(&mapping, &derive_spans));
    (mapping, diagnostics)
}

/// The language of `side`'s mapping items: that of the first of them (another language among
/// them is an error of its item); Rust when it has none.
fn side_language(files: &[(FileId, MapFile)], side: Option<&str>) -> Language {
    files
        .iter()
        .flat_map(|(_, map)| &map.items)
        .filter(|item| Some(item.side.value.as_str()) == side)
        .find_map(|item| Language::from_name(&item.language.value))
        .unwrap_or_default()
}

/// The sides the mapping items of `files` name, sorted, each once.
pub fn sides(files: &[(FileId, MapFile)]) -> Vec<&str> {
    let mut sides: Vec<&str> = files
        .iter()
        .flat_map(|(_, map)| &map.items)
        .filter(|item| Language::from_name(&item.language.value).is_some())
        .map(|item| item.side.value.as_str())
        .collect();
    sides.sort_unstable();
    sides.dedup();
    sides
}

/// An error when mapping items were given but none of them is for `side` (or no side was asked
/// for): they would be ignored without a word, and the fields keep their built-in types.
fn unused_mappings(files: &[(FileId, MapFile)], side: Option<&str>) -> Option<Diagnostic> {
    let items: Vec<(FileId, &MapItem)> = files
        .iter()
        .flat_map(|(file, map)| map.items.iter().map(move |item| (*file, item)))
        .filter(|(_, item)| Language::from_name(&item.language.value).is_some())
        .collect();
    let (first_file, first) = items.first().copied()?;
    if items
        .iter()
        .any(|(_, item)| Some(item.side.value.as_str()) == side)
    {
        return None;
    }
    let mut sides: Vec<&str> = items.iter().map(|(_, i)| i.side.value.as_str()).collect();
    sides.sort_unstable();
    sides.dedup();
    let listed = sides
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let (message, mut notes) = match side {
        None => (
            "mapping files were given without a side: none of their items applies".to_string(),
            vec![format!(
                "pass the side to generate, e.g. `--side {}` (the files map: {listed})",
                sides[0]
            )],
        ),
        Some(side) => (
            format!("no mapping item is for the side `{side}`: none of them applies"),
            vec![format!("the files map: {listed}")],
        ),
    };
    if let Some(side) = side {
        if let Some(hint) = did_you_mean(side, sides.iter().copied()) {
            notes.push(format!("{hint} (sides are case-sensitive)"));
        }
    }
    Some(
        error(codes::MAP_NO_ITEM_FOR_SIDE, message)
            .with_labels(vec![
                primary(first_file, first.side.span)
                    .with_message(format!("this item is for `{}`", first.side.value)),
            ])
            .with_notes(notes),
    )
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

/// The type a field has in the latest version of its struct: its last EXTEND's, else its own.
fn latest_type<'s>(def: &'s StructDef, field: &'s Field) -> &'s Type {
    def.segments
        .iter()
        .rev()
        .flat_map(|s| s.extends.iter().rev())
        .find(|e| e.field == field.name)
        .map_or(&field.ty, |e| &e.to)
}

/// The IDL keyword of a struct kind, as a MAPPING writes it.
fn kind_keyword(kind: StructKind) -> &'static str {
    match kind {
        StructKind::Struct => "STRUCT",
        StructKind::Publishable => "PUBLISHABLE_STRUCT",
        StructKind::Message | StructKind::RpcParams | StructKind::RpcResponse => "MESSAGE",
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
    field_types: HashMap<(String, String), (RustType, Loc)>,
    /// The requested side's `=>` fields of existing types, per (struct, field), escaped.
    renames: HashMap<(String, String), String>,
    /// The requested side's derives.
    derives: Vec<String>,
    /// The requested side's C++ headers to include.
    includes: Vec<String>,
    /// The requested side's derives, with where each was first written.
    derive_spans: Vec<(String, FileId, Span)>,
    /// The requested side's protocol roles.
    roles: HashMap<String, ProtocolRole>,
    /// The requested side's target language: its names are that language's.
    language: Language,
    /// The language of the item being checked: the types it writes are that language's.
    item_language: Language,
    /// Per side: the language of its first item, and where that item names it.
    side_languages: HashMap<String, (Language, FileId, Span)>,
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
            includes: Vec::new(),
            derive_spans: Vec::new(),
            roles: HashMap::new(),
            language: Language::Rust,
            item_language: Language::Rust,
            side_languages: HashMap::new(),
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
            .map_or_else(|| self.type_name(name), str::to_owned)
    }

    /// The name of IDL struct or enum `name` in the side's language.
    pub(super) fn type_name(&self, name: &str) -> String {
        match self.language {
            Language::Rust => names::type_name(name),
            Language::Cpp => names::cpp_type_name(name),
        }
    }

    /// The name of IDL field `name` in the side's language.
    pub(super) fn field_name(&self, name: &str) -> String {
        match self.language {
            Language::Rust => names::field_name(name),
            Language::Cpp => names::cpp_field_name(name),
        }
    }

    /// The name of IDL enumerator `name` in the side's language.
    fn variant_name(&self, name: &str) -> String {
        match self.language {
            Language::Rust => names::variant_name(name),
            Language::Cpp => names::cpp_variant_name(name),
        }
    }

    /// Records, per side and struct, the `= path` of the first Rust item mapping it, so that
    /// fields of that struct's type know their Rust type wherever they are checked.
    fn collect_existing(&mut self, files: &[(FileId, MapFile)]) {
        for (_, map) in files {
            for item in &map.items {
                if Language::from_name(&item.language.value).is_none() {
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
        let Some(language) = Language::from_name(&item.language.value) else {
            let known = [Language::Rust, Language::Cpp].map(Language::name);
            let mut notes = vec![format!(
                "the target languages are \"{}\" and \"{}\"",
                known[0], known[1]
            )];
            if let Some(name) = known
                .iter()
                .find(|name| item.language.value.eq_ignore_ascii_case(name))
            {
                notes.push(format!("write \"{name}\" with this capitalization"));
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
        };
        let side_name = item.side.value.clone();
        match self.side_languages.get(&side_name) {
            Some(&(first, first_file, first_span)) if first != language => {
                self.push(
                    error(
                        codes::MAP_MIXED_LANGUAGES,
                        format!(
                            "side \"{side_name}\" is mapped in \"{}\" and in \"{}\"",
                            first.name(),
                            language.name()
                        ),
                    )
                    .with_labels(vec![
                        primary(file, item.language.span)
                            .with_message(format!("\"{}\" here", language.name())),
                        secondary(first_file, first_span)
                            .with_message(format!("\"{}\" first", first.name())),
                    ])
                    .with_notes(vec![
                        "a side generates one language: give the other language's items their own side"
                            .into(),
                    ]),
                );
                return;
            }
            Some(_) => {}
            None => {
                self.side_languages
                    .insert(side_name, (language, file, item.language.span));
            }
        }
        self.item_language = language;
        if language == Language::Cpp {
            if let MapBody::Derive(paths) = &item.body {
                let span = paths.first().map_or(item.span, |p| p.span);
                self.push(
                    error(
                        codes::MAP_CPP_DERIVE,
                        "DERIVE is a Rust mapping's: a C++ side has no derives",
                    )
                    .with_labels(vec![primary(file, span).with_message("in a \"CPP\" item")])
                    .with_notes(vec!["remove the DERIVE item".into()]),
                );
                return;
            }
        }
        if let (Language::Rust, MapBody::Include(header)) = (language, &item.body) {
            self.push(
                error(
                    codes::MAP_RUST_INCLUDE,
                    "INCLUDE is a C++ mapping's: a Rust side includes no headers",
                )
                .with_labels(vec![
                    primary(file, header.span).with_message("in a \"Rust\" item"),
                ])
                .with_notes(vec![
                    "bring Rust types into scope where the generated module is included".into(),
                ]),
            );
            return;
        }
        let side = item.side.value.as_str();
        let applies = self.side == Some(side);
        match &item.body {
            MapBody::Derive(paths) => self.derive(file, paths, applies),
            MapBody::Include(header) => {
                if applies && !self.includes.contains(&header.value) {
                    self.includes.push(header.value.clone());
                }
            }
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
                self.derive_spans.push((text.clone(), file, path.span));
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
                .with_labels(vec![
                    primary(file, name.span).with_message("unknown protocol"),
                ])
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
                            secondary(previous_file, previous_span)
                                .with_message(format!("{} here", direction_keyword(previous))),
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

    fn finish(self) -> (SideMapping, Vec<Diagnostic>) {
        let schema = self.schema;
        let side = self.side;
        let typedefs = schema
            .typedefs
            .iter()
            .map(|(name, def)| {
                let mapping = TypedefMapping {
                    rust_name: self.type_name(name),
                    ty: self.default_type(side, &def.ty),
                };
                (name.clone(), mapping)
            })
            .collect();
        let mut structs = IndexMap::new();
        for (name, def) in &schema.structs {
            let existing = self.existing_path(side, name);
            let mut fields = IndexMap::new();
            for field in def.fields() {
                let key = (name.clone(), field.name.clone());
                let idl = latest_type(def, field);
                let (ty, loc) = match self.field_types.get(&key) {
                    Some((ty, loc)) => (ty.clone(), Some(*loc)),
                    None => (self.default_type(side, idl), None),
                };
                let ty = self.box_cycles(name, idl, ty);
                let rust_name = self
                    .renames
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| self.field_name(&field.name));
                fields.insert(field.name.clone(), FieldMapping { rust_name, ty, loc });
            }
            structs.insert(
                name.clone(),
                StructMapping {
                    rust_name: existing.map_or_else(|| self.type_name(name), str::to_owned),
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
                    .map(|e| (e.name.clone(), self.variant_name(&e.name)))
                    .collect();
                let mapping = EnumMapping {
                    rust_name: self.type_name(name),
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
            language: self.language,
            derives: self.derives,
            includes: self.includes,
            structs,
            enums,
            protocols,
            typedefs,
        };
        (mapping, self.diagnostics)
    }
}

#[cfg(test)]
mod tests;
