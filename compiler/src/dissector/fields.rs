//! The ProtoFields of a dissector: one per field of every struct it decodes, named
//! `<protocol>.<type>.<field>` in lower case for display filters.

use indexmap::IndexMap;

use super::Refusal;
use crate::ir::StructDef;

/// The fields declared so far, by abbreviation, with the struct and field they stand for.
#[derive(Debug, Default)]
pub struct Fields {
    /// The protocol's abbreviation: its name in lower case.
    pub protocol: String,
    declared: IndexMap<String, (String, String)>,
}

impl Fields {
    /// No fields yet, for the protocol `protocol`.
    pub fn new(protocol: &str) -> Self {
        Fields {
            protocol: protocol.to_lowercase(),
            declared: IndexMap::new(),
        }
    }

    /// The abbreviation of `field` of `def`.
    pub fn abbreviation(&self, def: &str, field: &str) -> String {
        format!(
            "{}.{}.{}",
            self.protocol,
            def.to_lowercase(),
            field.to_lowercase()
        )
    }

    /// Declares every field of `def`; two fields whose names differ only in case collide.
    pub fn declare(&mut self, def: &StructDef) -> Result<(), Refusal> {
        for field in def.fields() {
            let abbreviation = self.abbreviation(&def.name, &field.name);
            let key = (def.name.clone(), field.name.clone());
            match self.declared.get(&abbreviation) {
                Some(other) if *other != key => {
                    return Err(Refusal {
                        message: format!(
                            "`{}.{}` and `{}.{}` have the same filter name `{abbreviation}`",
                            other.0, other.1, def.name, field.name
                        ),
                        loc: Some(field.loc),
                        note: "Wireshark's field names are lower case: rename one of them"
                            .to_string(),
                    });
                }
                _ => {
                    self.declared.insert(abbreviation, key);
                }
            }
        }
        Ok(())
    }

    /// The Lua declarations of every field, in the order declared.
    pub fn lua(&self) -> String {
        let mut out = String::new();
        for (abbreviation, (_, field)) in &self.declared {
            out.push_str(&format!(
                "field({}, {})\n",
                super::lua::string(abbreviation),
                super::lua::string(field)
            ));
        }
        out
    }

    /// The Lua expression of the ProtoField of `field` of `def`.
    pub fn reference(&self, def: &str, field: &str) -> String {
        format!("F[{}]", super::lua::string(&self.abbreviation(def, field)))
    }
}
