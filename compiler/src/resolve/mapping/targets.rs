//! Which IDL struct or enum a MAPPING item describes, and the checks of its members.

use std::collections::HashMap;

use super::{
    Resolver, did_you_mean, error, kind_keyword, latest_type, path_text, target_keyword, types,
};
use crate::diagnostics::{FileId, codes, primary, secondary};
use crate::front::map::ast::{MapMember, MapTarget, RustPath};
use crate::front::span::{Ident, Span};
use crate::ir::{EnumDef, Field, Language, Loc, StructDef, StructKind, Type};
use crate::resolve::names;

impl<'a> Resolver<'a> {
    /// The generated name of IDL field `name` in the language of the item being checked.
    fn item_field_name(&self, name: &str) -> String {
        match self.item_language {
            Language::Rust => names::field_name(name),
            Language::Cpp => names::cpp_field_name(name),
        }
    }

    /// Records the first item for `name` on `side`; a second is an error. Returns whether this
    /// item is the first.
    pub(super) fn first_target(&mut self, file: FileId, side: &str, target: &MapTarget) -> bool {
        let key = (side.to_owned(), target.name.name.clone());
        if let Some(&(first_file, first_span)) = self.targets.get(&key) {
            self.push(
                error(
                    codes::MAP_TARGET_TWICE,
                    format!("`{}` is mapped twice on side \"{side}\"", target.name.name),
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
    pub(super) fn struct_target(
        &mut self,
        file: FileId,
        target: &MapTarget,
    ) -> Option<&'a StructDef> {
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
    pub(super) fn unknown_type(&mut self, file: FileId, name: &Ident, what: &str) {
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
            .with_labels(vec![
                primary(file, name.span).with_message(format!("unknown {what}")),
            ])
            .with_notes(notes),
        );
    }

    /// The IDL enum `name`, reporting an unknown name.
    pub(super) fn enum_named(&mut self, file: FileId, name: &Ident) -> Option<&'a EnumDef> {
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
    pub(super) fn field_of(
        &mut self,
        file: FileId,
        def: &'a StructDef,
        name: &Ident,
    ) -> Option<&'a Field> {
        if let Some((_, field)) = def.field(&name.name) {
            return Some(field);
        }
        if def.is_unresolved(&name.name) {
            // Its type had an error, reported already.
            return None;
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
    pub(super) fn field_twice(
        &mut self,
        file: FileId,
        def: &StructDef,
        name: &Ident,
        span: Span,
        first: Span,
    ) {
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

    pub(super) fn struct_item(
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
                    // C++ names a class or struct type with its keyword (`class MyInventory`).
                    let cpp_tag = self.item_language == Language::Cpp
                        && qualifiers.len() == 1
                        && matches!(qualifiers[0].name.as_str(), "class" | "struct");
                    if let (false, Some(q1), Some(q2)) =
                        (cpp_tag, qualifiers.first(), qualifiers.last())
                    {
                        let words: Vec<&str> = qualifiers.iter().map(|q| q.name.as_str()).collect();
                        self.push(
                            error(
                                codes::MAP_QUALIFIER,
                                format!(
                                    "a {} type has no qualifiers: `{}`",
                                    if self.item_language == Language::Cpp {
                                        "field's"
                                    } else {
                                        "Rust"
                                    },
                                    words.join(" ")
                                ),
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
                            let loc = Loc::new(file, ty.span);
                            self.field_types
                                .insert((struct_name.to_owned(), field.name.clone()), (rust, loc));
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
                                self.item_field_name(&field.name)
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
                    // The existing type's field, as its language names it.
                    let rust = match self.item_language {
                        Language::Rust => crate::ir::naming::escape(&rust_field.name),
                        Language::Cpp => rust_field.name.clone(),
                    };
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
                    .map(|m| format!("{m} => {};", self.item_field_name(m)))
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

    pub(super) fn enum_item(
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
}
