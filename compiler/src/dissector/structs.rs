//! One struct's full form (ir::plan's segments) as a Lua decoder: its top-level form, and its
//! nested form when another struct holds it and it has FENCEs, as interpret/decode.rs reads
//! them. Each decoder adds a node per field under `parent` and returns the value by field name.

use std::fmt::Write as _;

use super::{Generator, Refusal, lua};
use crate::interpret::{Value, default_value};
use crate::ir::plan::{Carries, Step, StructPlan};
use crate::ir::{StructDef, Type};

impl Generator<'_> {
    /// `DECODE["Name"] = function(r, parent, nested) ... end`.
    pub(super) fn struct_decoder(
        &self,
        def: &StructDef,
        plan: &StructPlan,
    ) -> Result<String, Refusal> {
        self.at(def.loc);
        let mut body = String::new();
        if plan.recursive {
            body.push_str("enter(r)\n");
        }
        body.push_str("local v, slots, present = {}, {}, true\n");
        let top = self.top_level_form(def, plan)?;
        if plan.nested_form {
            let nested = self.nested_form(def, plan)?;
            let _ = write!(
                body,
                "if nested then\n{}else\n{}end\n",
                indent(&nested),
                indent(&top)
            );
        } else {
            body.push_str(&top);
        }
        if plan.recursive {
            body.push_str("leave(r)\n");
        }
        body.push_str("return v\n");
        Ok(format!(
            "-- {} {}: its full form\nDECODE[{}] = function(r, parent, nested)\n{}end\n",
            def.kind.keyword(),
            def.name,
            lua::string(&def.name),
            indent(&body)
        ))
    }

    /// Every segment after its present bit; an absent one gives its fields their DEFAULT.
    fn top_level_form(&self, def: &StructDef, plan: &StructPlan) -> Result<String, Refusal> {
        let mut out = String::new();
        for index in 0..plan.segments.len() {
            if index > 0 {
                let _ = writeln!(out, "-- segment {index}, after FENCE {index}");
                out.push_str("present = present and fence_present(r)\n");
            }
            out.push_str(&self.segment(def, plan, index)?);
        }
        Ok(out)
    }

    /// The first segment, then each later one inside an extension (its length first); the
    /// open end's extension skipped.
    fn nested_form(&self, def: &StructDef, plan: &StructPlan) -> Result<String, Refusal> {
        if plan.segments.len() <= 1 {
            let top = self.top_level_form(def, plan)?;
            return Ok(format!("{top}skip_extension(r) -- the open end\n"));
        }
        let mut out = String::from("local outers = {}\n");
        for index in 0..plan.segments.len() {
            if index > 0 {
                let _ = writeln!(out, "-- segment {index}, in an extension");
                out.push_str("present = present and enter_segment(r, outers)\n");
            }
            out.push_str(&self.segment(def, plan, index)?);
        }
        if plan.open_end {
            out.push_str("if present then\n  skip_extension(r) -- the open end\nend\n");
        }
        out.push_str("leave_extensions(r, outers)\n");
        Ok(out)
    }

    /// Segment `index`'s steps: read when the segment is present (segment 0 always is), else
    /// its fields' DEFAULTs.
    fn segment(&self, def: &StructDef, plan: &StructPlan, index: usize) -> Result<String, Refusal> {
        let steps = plan.segments.get(index).map_or(&[][..], Vec::as_slice);
        let mut read = String::new();
        let mut defaults = String::new();
        for step in steps {
            match step {
                Step::Field(field) => {
                    read.push_str(&self.field(def, plan, &field.field, &field.rule)?);
                    defaults.push_str(&self.default(def, &field.field)?);
                }
                Step::Packed { bits, fields } => {
                    let _ = writeln!(
                        read,
                        "packed(r, {bits}) -- {} fields in one word",
                        fields.len()
                    );
                    for field in fields {
                        read.push_str(&self.field(def, plan, &field.field, &field.rule)?);
                        defaults.push_str(&self.default(def, &field.field)?);
                    }
                }
                Step::Extension(extension) => {
                    let name = &extension.field;
                    let value = format!("v[{}]", lua::string(name));
                    let slot = format!("slots[{}]", lua::string(name));
                    match &extension.carries {
                        Carries::HighBits { low, width } => {
                            let _ = writeln!(
                                read,
                                "{value} = extend_high_bits(r, {{ value = {value}, node = {slot} }}, {low}, {width}) -- EXTEND {name}"
                            );
                        }
                        Carries::Whole { rule, .. } => {
                            let current = plan.field(name).map(|f| f.current().clone());
                            let ty = match (&extension.to, current) {
                                (Type::Enum(_), Some(current @ Type::Enum(_))) => current,
                                (to, _) => to.clone(),
                            };
                            let field = self.fields.reference(&def.name, name);
                            let _ = writeln!(
                                read,
                                "drop(parent, {slot}) -- EXTEND {name}: the whole value\n{value} = {}\n{slot} = last(parent)",
                                self.read(rule, &ty, &field)?
                            );
                        }
                    }
                }
                Step::Align => read.push_str("align(r)\n"),
                Step::Check => read.push_str("check(r)\n"),
            }
        }
        if index == 0 {
            return Ok(read);
        }
        Ok(format!(
            "if present then\n{}else\n{}end\n",
            indent(&read),
            indent(&defaults)
        ))
    }

    /// Reads a field's slot into `v` (and keeps its node when an EXTEND joins it later).
    pub(super) fn field(
        &self,
        def: &StructDef,
        plan: &StructPlan,
        name: &str,
        rule: &crate::ir::WireRule,
    ) -> Result<String, Refusal> {
        if let Some((_, field)) = def.field(name) {
            self.at(field.loc);
        }
        let Some(field) = plan.field(name) else {
            return Err(self.refuse(format!("`{}.{name}`, a field the plan lacks", def.name)));
        };
        let reference = self.fields.reference(&def.name, name);
        let mut out = format!(
            "v[{}] = {}\n",
            lua::string(name),
            self.read(rule, field.read_as(), &reference)?
        );
        if !field.extends.is_empty() {
            let _ = writeln!(out, "slots[{}] = last(parent)", lua::string(name));
        }
        Ok(out)
    }

    /// A field of an absent segment: its DEFAULT (else the value nearest zero), as a node and
    /// in `v`.
    fn default(&self, def: &StructDef, name: &str) -> Result<String, Refusal> {
        let Some((_, field)) = def.field(name) else {
            return Ok(String::new());
        };
        let value = default_value(self.ir, &field.ty, field.default.as_ref());
        Ok(format!(
            "v[{}] = {}\ndefault(parent, {}, r.pos, {})\n",
            lua::string(name),
            lua::value(&value),
            self.fields.reference(&def.name, name),
            lua::string(&self.text(&value, &field.ty))
        ))
    }

    /// How a node shows `value` of type `ty` (a DEFAULT).
    fn text(&self, value: &Value, ty: &Type) -> String {
        match (value, ty) {
            (Value::Null, _) => "absent".to_string(),
            (Value::Enum(name), Type::Enum(e)) => {
                let index = self
                    .ir
                    .schema
                    .enums
                    .get(e)
                    .and_then(|e| e.enumerators.iter().position(|x| &x.name == name))
                    .unwrap_or(0);
                format!("{name} ({index})")
            }
            (Value::Str(s), _) => s.clone(),
            (Value::Bytes(bytes), _) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
            (Value::List(items), _) if items.len() == 1 => "1 element".to_string(),
            (Value::List(items), _) => format!("{} elements", items.len()),
            (Value::Struct(_), Type::Struct(name)) => name.clone(),
            (Value::Float(v), _) => format!("{v}"),
            (other, _) => other.to_json().to_string(),
        }
    }
}

/// `text` indented by two spaces, line by line.
pub(super) fn indent(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.is_empty() {
                "\n".to_string()
            } else {
                format!("  {line}\n")
            }
        })
        .collect()
}
