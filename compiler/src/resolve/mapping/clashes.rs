//! IDL names that become one Rust name: an error, whatever the side.

use super::{Resolver, error};
use crate::diagnostics::{codes, primary, secondary};
use crate::ir::{Field, Loc};
use crate::resolve::names;

impl Resolver<'_> {
    /// Reports IDL names that become the same Rust name: types, fields of a struct, enumerators.
    pub(super) fn check_names(&mut self) {
        let schema = self.schema;
        let mut types: Vec<(&str, Loc, String)> = Vec::new();
        for (name, def) in &schema.structs {
            types.push((name, def.loc, names::type_name(name)));
        }
        for (name, def) in &schema.enums {
            types.push((name, def.loc, names::type_name(name)));
        }
        for (name, def) in &schema.typedefs {
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
                    format!(
                        "the IDL types `{}` and `{}` are both `{}` in Rust",
                        a.0, b.0, b.2
                    ),
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
        self.check_generated_names(&types);
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
                let (Some(a), Some(b), Some(rust_name)) = (
                    def.enumerators.get(first),
                    def.enumerators.get(later),
                    rust.get(later),
                ) else {
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

    /// Reports IDL types whose Rust name is one the generated module declares itself: the
    /// default encoding's alias, or a type a protocol generates (`PMessage` of `PROTOCOL P`).
    fn check_generated_names(&mut self, types: &[(&str, Loc, String)]) {
        for (name, loc, rust) in types {
            if rust == crate::ir::DEFAULT_ENCODING_ALIAS {
                self.push(
                    error(
                        codes::MAP_NAME_CLASH,
                        format!(
                            "the IDL type `{name}` is `{rust}` in Rust, the name of the generated module's default encoding"
                        ),
                    )
                    .with_labels(vec![
                        primary(loc.file, loc.span)
                            .with_message(format!("`{name}` becomes the Rust type `{rust}`")),
                    ])
                    .with_notes(vec!["rename the type in the IDL".into()]),
                );
            }
            for (protocol, def) in &self.schema.protocols {
                let generated = crate::ir::protocol_type_names(protocol);
                if protocol == name || !generated.contains(rust) {
                    continue;
                }
                self.push(
                    error(
                        codes::MAP_NAME_CLASH,
                        format!(
                            "the IDL type `{name}` and a type the protocol `{protocol}` generates are both `{rust}` in Rust"
                        ),
                    )
                    .with_labels(vec![
                        primary(loc.file, loc.span)
                            .with_message(format!("`{name}` becomes the Rust type `{rust}`")),
                        secondary(def.loc.file, def.loc.span)
                            .with_message(format!("`{protocol}` generates `{rust}` too")),
                    ])
                    .with_notes(vec![
                        "a protocol `P` generates `P`, `PMessage`, `PResponse`, `PHandler`, `PSender` and `PReceiver`; rename the type or the protocol in the IDL".into(),
                    ]),
                );
            }
        }
    }
}
